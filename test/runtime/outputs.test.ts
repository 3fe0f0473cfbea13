import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startDaemon } from '../../daemon/app/daemon.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { parseConfig } from '../../daemon/tournament/config.ts';
import { eventually, getJson } from './daemon-child.ts';

/**
 * Issue 10, item 1: the daemon starts the outputs its config turns on (the LiveChess eBoard API on
 * its own port, the lichess push client), reports them in /health, and stops them with itself.
 */

const root = mkdtempSync(join(tmpdir(), 'boardcast-outputs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as AddressInfo).port;
}

function config(name: string, outputs: unknown) {
  const c = parseConfig({ event: { name }, rounds: { count: 1 }, timeControl: '90+30', dataDir: join(root, name), emulate: { count: 2 }, outputs }, null, root);
  if (!c.ok) throw new Error(c.error.messages.join('\n'));
  return c.value;
}

const quiet = createLogger({ write: () => {} });

type Health = {
  tables: { serial: string | null }[];
  outputs: { liveChessApi: { url: string; connections: number } | null; lichessPush: { roundId: string; state: string; pushes: number; lastPushAt: number | null }[] | null };
};

describe('outputs started by the daemon', () => {
  it('serves the LiveChess API and pushes to lichess while running, reports both in /health, and stops both', async () => {
    const pushes: { url: string; auth: string | undefined }[] = [];
    const platform = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        pushes.push({ url: req.url ?? '', auth: req.headers.authorization });
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"games":[]}');
      });
    });
    const platformPort = await listen(platform);
    const lines: string[] = [];
    const log = createLogger({ write: (_level, line) => lines.push(line) });
    const started = await startDaemon({
      config: config('running', { liveChessApi: { port: 0 }, lichessPush: { rounds: [{ round: 1, roundId: 'aBcD1234' }], token: 'lip_unit', baseUrl: `http://127.0.0.1:${platformPort}` } }),
      log,
      port: 0,
      host: '127.0.0.1',
      pace: 20,
      viewer: false,
    });
    if (!started.ok) throw new Error(started.error);
    const d = started.value;
    try {
      const h = await eventually(
        async () => {
          const x = await getJson<Health>(`${d.url}/health`);
          return x.outputs.lichessPush?.[0]?.pushes ? x : undefined;
        },
        15_000,
        'a push accepted',
      );
      expect(h.outputs.liveChessApi!.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/api\/v1\.0$/);
      expect(h.outputs.lichessPush).toEqual([expect.objectContaining({ roundId: 'aBcD1234', state: 'ok' })]);
      expect(pushes[0]).toEqual({ url: '/api/broadcast/round/aBcD1234/push', auth: 'Bearer lip_unit' });
      const ws = new WebSocket(h.outputs.liveChessApi!.url);
      const answer = new Promise<{ id: number; param: { serialnr: string }[] }>((resolve) =>
        ws.once('message', (m) => resolve(JSON.parse((m as Buffer).toString('utf8')) as { id: number; param: { serialnr: string }[] })),
      );
      await new Promise<void>((resolve) => ws.once('open', () => resolve()));
      ws.send(JSON.stringify({ id: 1, call: 'eboards' }));
      // Each table's board under the serial number it reported (emulated boards 10001, 10002).
      expect((await answer).param.map((b) => b.serialnr)).toEqual(h.tables.map((t) => t.serial));
      expect(h.tables.map((t) => Number(t.serial))).toEqual([10001, 10002]);
      const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
      await d.stop();
      await closed;
      // The port is free again: nothing listens there any more.
      const refused = new WebSocket(h.outputs.liveChessApi!.url);
      await expect(new Promise((resolve, reject) => (refused.once('open', resolve), refused.once('error', reject)))).rejects.toThrow(/ECONNREFUSED/);
      expect(lines.some((l) => l.includes('first push accepted'))).toBe(true);
    } finally {
      await d.stop();
      await new Promise<void>((resolve) => platform.close(() => resolve()));
    }
  });

  it('refuses to serve when the LiveChess port is taken, and leaves the data directory free', async () => {
    const taken = createServer();
    const port = await listen(taken);
    try {
      const cfg = config('taken', { liveChessApi: { port } });
      const first = await startDaemon({ config: cfg, log: quiet, port: 0, host: '127.0.0.1', viewer: false, pace: 20 });
      expect(first.ok).toBe(false);
      if (!first.ok) expect(first.error).toMatch(new RegExp(`outputs\\.liveChessApi: .*${port}.*EADDRINUSE`));
      const again = await startDaemon({ config: { ...cfg, outputs: { liveChessApi: null, lichessPush: null, pgnFolder: null } }, log: quiet, port: 0, host: '127.0.0.1', viewer: false, pace: 20 });
      if (!again.ok) throw new Error(again.error);
      await again.value.stop();
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('refuses to serve when the PGN folder cannot be made (a file is in the way), naming the key', async () => {
    const blocker = join(root, 'not-a-folder');
    writeFileSync(blocker, 'x');
    const r = await startDaemon({ config: config('pgn-blocked', { pgnFolder: { path: join(blocker, 'pgn') } }), log: quiet, port: 0, host: '127.0.0.1', viewer: false, pace: 20 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^outputs\.pgnFolder: cannot write into .*not-a-folder\/pgn/);
  });

  it('refuses to start a push without a token before opening the store', async () => {
    const prev = process.env.BOARDCAST_LICHESS_TOKEN;
    delete process.env.BOARDCAST_LICHESS_TOKEN;
    try {
      const r = await startDaemon({ config: config('no-token', { lichessPush: { rounds: [{ round: 1, roundId: 'aBcD1234' }] } }), log: quiet, port: 0, viewer: false });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toContain('BOARDCAST_LICHESS_TOKEN');
    } finally {
      if (prev !== undefined) process.env.BOARDCAST_LICHESS_TOKEN = prev;
    }
  });
});
