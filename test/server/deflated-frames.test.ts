import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { constants, inflateRawSync } from 'node:zlib';
import { compressedTextFrame, deflatePart, storedPart, takesSharedDeflate } from '../../daemon/server/deflated-frames.ts';
import { startServer, type RunningServer } from '../../daemon/server/server.ts';
import type { ServerMessage } from '../../protocols/feed/messages.ts';
import { Hall } from './hall.ts';
import { isType, TestClient } from './ws-client.ts';

describe('frames compressed once', () => {
  it('parts compressed on their own join into one message a permessage-deflate reader inflates', () => {
    const head = '{"v":1,"type":"snapshot","scope":"tournament","body":';
    const body = JSON.stringify({ games: Array.from({ length: 200 }, (_, i) => ({ id: `r1-t${i}`, fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' })) }) + '}';
    const frame = compressedTextFrame([deflatePart(head), deflatePart(body)]);
    expect(frame[0]).toBe(0xc1); // FIN, RSV1 (compressed), text
    const length = frame[1] === 126 ? frame.readUInt16BE(2) : frame[1] === 127 ? Number(frame.readBigUInt64BE(2)) : frame[1]!;
    const payload = frame.subarray(frame.length - length);
    // RFC 7692 §7.2.2: the reader appends the four bytes the writer removed, then inflates.
    expect(inflateRawSync(Buffer.concat([payload, Buffer.from([0, 0, 0xff, 0xff])]), { finishFlush: constants.Z_SYNC_FLUSH }).toString()).toBe(head + body);
    expect(payload.length).toBeLessThan((head + body).length / 5);
    // A client's own envelope as a stored block before the shared compressed body reads the same.
    const stored = compressedTextFrame([storedPart(head), deflatePart(body)]);
    const storedPayload = stored.subarray(stored.length - (stored[1] === 126 ? stored.readUInt16BE(2) : Number(stored.readBigUInt64BE(2))));
    expect(inflateRawSync(Buffer.concat([storedPayload, Buffer.from([0, 0, 0xff, 0xff])]), { finishFlush: constants.Z_SYNC_FLUSH }).toString()).toBe(head + body);
  });

  it('is used only when the client took no context takeover from the server and a window wide enough', () => {
    expect(takesSharedDeflate({ server_no_context_takeover: true, client_no_context_takeover: true, server_max_window_bits: 12 })).toBe(true);
    expect(takesSharedDeflate({ server_no_context_takeover: true })).toBe(true);
    expect(takesSharedDeflate({ server_max_window_bits: 12 })).toBe(false);
    expect(takesSharedDeflate({ server_no_context_takeover: true, server_max_window_bits: 9 })).toBe(false);
    expect(takesSharedDeflate(undefined)).toBe(false);
  });
});

describe('the feed compresses a snapshot once for every client that asks', () => {
  let server: RunningServer | null = null;
  const clients: TestClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await server?.close();
    server = null;
  });

  it('twenty clients subscribing to the tournament: one compression of the body, each client reads the same snapshot', async () => {
    const hall = new Hall({ tables: 60 });
    hall.connectAll();
    for (const t of hall.tables) hall.play(t.id, 'e4');
    server = await startServer({ source: hall.source, viewer: false });
    const url = `${server.url.replace('http', 'ws')}/ws`;
    for (let i = 0; i < 20; i++) clients.push(await TestClient.open(url));
    const before = { ...server.hub.stats };
    for (const c of clients) c.send({ v: 1, type: 'subscribe', scope: { kind: 'tournament' } });
    const snapshots = await Promise.all(clients.map((c) => c.next(isType('snapshot'), 10_000)));
    const bodies = snapshots.map((s) => JSON.stringify((s as Extract<ServerMessage, { type: 'snapshot' }>).body));
    expect(new Set(bodies).size).toBe(1);
    expect(bodies[0]!.length).toBeGreaterThan(20_000);
    expect(server.hub.stats.framesCompressed - before.framesCompressed).toBe(20);
    expect(server.hub.stats.deflates - before.deflates).toBe(1);

    // A move: one delta, compressed at most once for all (small deltas go as they are).
    const deflates = server.hub.stats.deflates;
    hall.play('r1-t1', 'e5');
    await Promise.all(clients.map((c) => c.next(isType('delta'), 10_000)));
    expect(server.hub.stats.deflates - deflates).toBeLessThanOrEqual(1);
  });

  it('a client that did not negotiate compression gets the same messages uncompressed', async () => {
    const hall = new Hall({ tables: 30 });
    hall.connectAll();
    server = await startServer({ source: hall.source, viewer: false });
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/ws`, { perMessageDeflate: false });
    const got: string[] = [];
    ws.on('message', (d) => got.push((d as Buffer).toString()));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    expect(ws.extensions).toBe('');
    ws.send(JSON.stringify({ v: 1, type: 'subscribe', scope: { kind: 'tournament' } }));
    const until = Date.now() + 10_000;
    while (!got.some((m) => m.includes('"type":"snapshot"')) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const snapshot = JSON.parse(got.find((m) => m.includes('"type":"snapshot"'))!) as { body: { games: unknown[] } };
    expect(snapshot.body.games.length).toBe(30);
    ws.close();
  });
});
