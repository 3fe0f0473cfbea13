import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parsePgn } from 'chessops/pgn';
import { afterEach, describe, expect, it } from 'vitest';
import { retryAfterMs, startRelayPush, type PushReport, type RelayPush } from '../../bridge/relay/push-client.ts';
import { Hall, LINES } from '../server/hall.ts';

interface Received {
  method: string;
  url: string;
  auth: string | undefined;
  contentType: string | undefined;
  body: string;
}

/** Stands in for the platform's push endpoint: answers each request with the next scripted reply. */
type Reply = { status: number; body: unknown; headers?: Record<string, string> };

async function fakePlatform(replies: ((r: Received) => Reply)[]): Promise<{ server: Server; base: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const r: Received = { method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, contentType: req.headers['content-type'], body };
      received.push(r);
      const reply = (replies[received.length - 1] ?? replies.at(-1)!)(r);
      res.writeHead(reply.status, { 'Content-Type': 'application/json', ...reply.headers }).end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** lichess's answer: one entry per game, tags and the number of moves imported. */
const accept = (r: Received) => ({
  status: 200,
  body: { games: parsePgn(r.body).map((g) => ({ tags: Object.fromEntries(g.headers), moves: [...g.moves.mainline()].length })) },
});

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup) await c();
  cleanup = [];
});

function start(hall: Hall, base: string, extra: { backoffMs?: number; authRetryMs?: number; now?: () => number } = {}) {
  const reports: PushReport[] = [];
  const waiters: { pred: (r: PushReport) => boolean; resolve: (r: PushReport) => void }[] = [];
  const push: RelayPush = startRelayPush({
    source: hall.source,
    rounds: [{ round: 1, roundId: 'aBcD1234' }],
    token: 'lip_test_token',
    baseUrl: base,
    debounceMs: 5,
    backoff: { initialMs: extra.backoffMs ?? 10, maxMs: 40 },
    ...(extra.authRetryMs !== undefined ? { authRetryMs: extra.authRetryMs } : {}),
    ...(extra.now ? { now: extra.now } : {}),
    onReport: (r) => {
      reports.push(r);
      for (const w of waiters.splice(0)) {
        if (w.pred(r)) w.resolve(r);
        else waiters.push(w);
      }
    },
  });
  cleanup.push(async () => push.stop());
  const next = (pred: (r: PushReport) => boolean) =>
    new Promise<PushReport>((resolve) => {
      const seen = reports.find(pred);
      if (seen) resolve(seen);
      else waiters.push({ pred, resolve });
    });
  return { push, reports, next };
}

async function platform(replies: Parameters<typeof fakePlatform>[0]) {
  const p = await fakePlatform(replies);
  cleanup.push(() => new Promise<void>((resolve) => p.server.close(() => resolve())));
  return p;
}

describe('relay push client', () => {
  it('POSTs the round PGN with the bearer token to /api/broadcast/round/{id}/push at start and after moves', async () => {
    const hall = new Hall({ tables: 2 });
    hall.connectAll();
    const p = await platform([accept]);
    const { next, reports } = start(hall, p.base);
    const first = await next((r) => r.kind === 'pushed');
    expect(p.received[0]).toMatchObject({ method: 'POST', url: '/api/broadcast/round/aBcD1234/push', auth: 'Bearer lip_test_token' });
    expect(p.received[0]!.contentType).toContain('text/plain');
    expect(parsePgn(p.received[0]!.body)).toHaveLength(2);
    expect(first.kind === 'pushed' && first.games.length).toBe(2);

    // Four moves played in one go reach the platform in one coalesced push.
    for (const san of LINES[0]!.slice(0, 4)) hall.play('r1-t1', san);
    const second = await next((r) => r.kind === 'pushed' && r !== first);
    expect(p.received).toHaveLength(2);
    const games = parsePgn(p.received[1]!.body);
    expect([...games[0]!.moves.mainline()].map((n) => n.san)).toEqual(LINES[0]!.slice(0, 4));
    expect(second.kind === 'pushed' && second.gameErrors).toBe(0);
    expect(reports.every((r) => r.kind === 'pushed')).toBe(true);
  });

  it('retries on 5xx with doubling back-off, then delivers', async () => {
    const hall = new Hall({ tables: 1 });
    hall.connectAll();
    hall.play('r1-t1', 'e4');
    const p = await platform([() => ({ status: 503, body: { error: 'busy' } }), () => ({ status: 502, body: 'bad gateway' }), accept]);
    const { next, reports } = start(hall, p.base);
    await next((r) => r.kind === 'pushed');
    expect(reports.map((r) => r.kind)).toEqual(['retrying', 'retrying', 'pushed']);
    const [a, b] = reports as Extract<PushReport, { kind: 'retrying' }>[];
    expect([a!.status, a!.attempt, a!.inMs, a!.message]).toEqual([503, 1, 10, 'busy']);
    expect([b!.status, b!.attempt, b!.inMs]).toEqual([502, 2, 20]);
    expect(p.received).toHaveLength(3);
    expect(p.received[2]!.body).toBe(p.received[0]!.body);
  });

  it('reports another 4xx as rejected without retrying, and pushes again on the next change', async () => {
    const hall = new Hall({ tables: 1 });
    hall.connectAll();
    const p = await platform([() => ({ status: 404, body: { error: 'No such broadcast round' } }), accept]);
    const { next, reports, push } = start(hall, p.base, { backoffMs: 60_000 });
    const rejected = await next((r) => r.kind === 'rejected');
    expect(rejected).toMatchObject({ status: 404, message: 'No such broadcast round', roundId: 'aBcD1234' });
    expect(push.state()[0]).toMatchObject({ state: 'rejected', lastError: { status: 404 }, nextRetryAt: null });
    hall.play('r1-t1', 'e4');
    await next((r) => r.kind === 'pushed');
    expect(reports.map((r) => r.kind)).toEqual(['rejected', 'pushed']);
    expect(push.state()[0]).toMatchObject({ state: 'ok', pushes: 1 });
  });

  it('after a 429 waits what Retry-After asks, sending nothing meanwhile', async () => {
    const hall = new Hall({ tables: 1 });
    hall.connectAll();
    const wall = Date.UTC(2026, 10, 21, 15);
    const p = await platform([() => ({ status: 429, body: { error: 'Too many requests' }, headers: { 'Retry-After': '7' } })]);
    const { next, push } = start(hall, p.base, { now: () => wall });
    const r = await next((x) => x.kind === 'retrying');
    expect(r).toMatchObject({ status: 429, inMs: 7000, message: 'Too many requests' });
    expect(push.state()[0]).toMatchObject({ state: 'retrying', nextRetryAt: wall + 7000, lastError: { at: wall, status: 429 } });
    hall.play('r1-t1', 'e4');
    hall.play('r1-t1', 'e5');
    await push.flush();
    expect(p.received).toHaveLength(1);
  });

  it('after a 429 without Retry-After waits a full minute, as lichess asks', async () => {
    const hall = new Hall({ tables: 1 });
    hall.connectAll();
    const p = await platform([() => ({ status: 429, body: 'slow down' })]);
    const { next } = start(hall, p.base);
    expect(await next((x) => x.kind === 'retrying')).toMatchObject({ status: 429, inMs: 60_000 });
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.UTC(2026, 10, 21, 15);
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(new Date(now + 30_000).toUTCString(), now)).toBe(30_000);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
  });

  it('retries a 429 when Retry-After allows and delivers the changes made meanwhile', async () => {
    const hall = new Hall({ tables: 1 });
    hall.connectAll();
    const p = await platform([() => ({ status: 429, body: {}, headers: { 'Retry-After': '0' } }), accept]);
    const { next } = start(hall, p.base);
    await next((x) => x.kind === 'retrying');
    hall.play('r1-t1', 'c4');
    await next((x) => x.kind === 'pushed');
    expect(p.received.at(-1)!.body).toContain('1. c4');
  });

  it('stops sending after a 401, says so once, and tries the token again only after the long back-off', async () => {
    const hall = new Hall({ tables: 1 });
    hall.connectAll();
    const wall = Date.UTC(2026, 10, 21, 15);
    const p = await platform([() => ({ status: 401, body: { error: 'No such token' } })]);
    const { next, reports, push } = start(hall, p.base, { now: () => wall });
    const r = await next((x) => x.kind === 'unauthorized');
    expect(r).toMatchObject({ status: 401, message: 'No such token', inMs: 30 * 60_000 });
    expect(push.state()[0]).toMatchObject({ state: 'unauthorized', nextRetryAt: wall + 30 * 60_000, lastError: { status: 401, message: 'No such token' }, lastPushAt: null });
    for (const san of ['e4', 'e5', 'Nf3', 'Nc6']) {
      hall.play('r1-t1', san);
      await push.flush();
    }
    expect(p.received).toHaveLength(1);
    expect(reports).toHaveLength(1);
  });

  it('a 403 holds the same way; once the back-off has passed the pushes resume', async () => {
    const hall = new Hall({ tables: 1 });
    hall.connectAll();
    const p = await platform([() => ({ status: 403, body: { error: 'Missing scope study:write' } }), accept]);
    const { next, reports } = start(hall, p.base, { authRetryMs: 20 });
    await next((x) => x.kind === 'pushed');
    expect(reports.map((x) => x.kind)).toEqual(['unauthorized', 'pushed']);
    expect(p.received).toHaveLength(2);
  });

  it('flush pushes pending changes at once and skips an unchanged round', async () => {
    const hall = new Hall({ tables: 1 });
    hall.connectAll();
    const p = await platform([accept]);
    const { push, next } = start(hall, p.base);
    await next((r) => r.kind === 'pushed');
    await push.flush();
    expect(p.received).toHaveLength(1);
    hall.play('r1-t1', 'd4');
    await push.flush();
    expect(p.received).toHaveLength(2);
    expect(p.received[1]!.body).toContain('1. d4');
  });

  it('treats an unreachable platform as a retry, not a crash', async () => {
    const hall = new Hall({ tables: 1 });
    hall.connectAll();
    const p = await fakePlatform([accept]);
    await new Promise<void>((resolve) => p.server.close(() => resolve()));
    const { next } = start(hall, p.base);
    const r = await next((x) => x.kind === 'retrying');
    expect(r).toMatchObject({ status: null, attempt: 1 });
  });
});
