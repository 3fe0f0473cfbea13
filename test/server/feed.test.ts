import { afterEach, describe, expect, it } from 'vitest';
import type { GameState } from '../../protocols/feed/model.ts';
import { startServer, type RunningServer } from '../../daemon/server/server.ts';
import type { FeedLimits } from '../../daemon/server/feed-hub.ts';
import { applyToGame, applyToSummary } from '../../protocols/feed/apply.ts';
import type { ServerMessage } from '../../protocols/feed/messages.ts';
import { Hall, LINES } from './hall.ts';
import { isType, TestClient } from './ws-client.ts';

const TOKEN = 'arbiter-token-feed-tests';
let server: RunningServer | null = null;
const clients: TestClient[] = [];

async function setup(tables: number, feed: Partial<FeedLimits> = {}): Promise<{ hall: Hall; wsUrl: string }> {
  const hall = new Hall({ tables });
  hall.connectAll();
  server = await startServer({ source: hall.source, arbiterToken: TOKEN, viewer: false, feed });
  return { hall, wsUrl: `${server.url.replace('http', 'ws')}/ws` };
}

async function client(url: string, opts: { token?: string } = {}): Promise<TestClient> {
  const c = await TestClient.open(url, opts);
  clients.push(c);
  return c;
}

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await server?.close();
  server = null;
});

type Delta = Extract<ServerMessage, { type: 'delta' }>;
type Snapshot = Extract<ServerMessage, { type: 'snapshot' }>;

function gameOf(s: Snapshot): GameState {
  if (s.body.kind !== 'game') throw new Error(`expected a game snapshot, got ${s.body.kind}`);
  return s.body.game;
}

async function waitFor(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('websocket feed', () => {
  it('sends a snapshot, then numbered deltas in order, per scope', async () => {
    const { hall, wsUrl } = await setup(3);
    hall.play('r1-t1', 'e4');
    const c = await client(wsUrl);
    c.send({ v: 1, type: 'subscribe', scope: { kind: 'game', gameId: 'r1-t1' } });
    c.send({ v: 1, type: 'subscribe', scope: { kind: 'round', round: 1 } });
    const snap = await c.next(isType('snapshot', 'game:r1-t1'));
    const roundSnap = await c.next(isType('snapshot', 'round:1'));
    expect(snap.reason).toBe('subscribe');
    expect(gameOf(snap).moves.map((m) => m.san)).toEqual(['e4']);
    expect(roundSnap.body.kind === 'round' && roundSnap.body.games.length).toBe(3);

    for (const san of LINES[0]!.slice(1, 8)) hall.play('r1-t1', san);
    for (const san of LINES[1]!.slice(0, 2)) hall.play('r1-t2', san);
    await waitFor(() => c.deltas('game:r1-t1').filter((d) => d.change.kind === 'move').length === 7 && c.deltas('round:1').filter((d) => d.change.kind === 'move').length === 9, 'moves');

    for (const [scope, s] of [
      ['game:r1-t1', snap],
      ['round:1', roundSnap],
    ] as const) {
      const seqs = c.deltas(scope).map((d) => d.seq);
      expect(seqs).toEqual(seqs.map((_, i) => s.seq + 1 + i));
    }
    const sans = c.deltas('game:r1-t1').flatMap((d) => (d.change.kind === 'move' ? [d.change.move.san] : []));
    expect(sans).toEqual(LINES[0]!.slice(1, 8));
    // Snapshot + deltas give exactly the state a fresh snapshot gives.
    const g = gameOf(snap);
    for (const d of c.deltas('game:r1-t1')) applyToGame(g, d.change);
    // A client joining now may get a snapshot a moment old followed by the deltas since: together
    // they are the present.
    const fresh = await client(wsUrl);
    fresh.send({ v: 1, type: 'subscribe', scope: { kind: 'game', gameId: 'r1-t1' } });
    const freshSnap = await fresh.next(isType('snapshot'));
    const now = gameOf(freshSnap);
    const last = c.deltas('game:r1-t1').at(-1)!.seq;
    await waitFor(() => freshSnap.seq + fresh.deltas('game:r1-t1').length === last, 'the deltas after the joining snapshot');
    expect(fresh.deltas('game:r1-t1').map((d) => d.seq)).toEqual(Array.from({ length: last - freshSnap.seq }, (_, i) => freshSnap.seq + 1 + i));
    for (const d of fresh.deltas('game:r1-t1')) applyToGame(now, d.change);
    expect(g.moves).toEqual(now.moves);
    expect(g.fen).toBe(hall.fen('r1-t1'));
    expect(g.clock).toEqual(now.clock);
  });

  it('carries takebacks so summaries and games follow without a move list', async () => {
    const { hall, wsUrl } = await setup(2);
    const c = await client(wsUrl);
    c.send({ v: 1, type: 'subscribe', scope: { kind: 'round', round: 1 } });
    c.send({ v: 1, type: 'subscribe', scope: { kind: 'game', gameId: 'r1-t2' } });
    const round = await c.next(isType('snapshot', 'round:1'));
    const game = await c.next(isType('snapshot', 'game:r1-t2'));
    for (const san of ['e4', 'e5', 'Nf3']) hall.play('r1-t2', san);
    const changes = hall.takeBack('r1-t2');
    expect(changes.some((ch) => ch.kind === 'takeback')).toBe(true);
    hall.play('r1-t2', 'Bc4');
    await waitFor(() => c.deltas('game:r1-t2').some((d) => d.change.kind === 'move' && d.change.move.san === 'Bc4'), 'Bc4');
    await waitFor(() => c.deltas('round:1').some((d) => d.change.kind === 'move' && d.change.move.san === 'Bc4'), 'Bc4 in round');
    if (round.body.kind !== 'round') throw new Error('round snapshot expected');
    const summary = round.body.games.find((g) => g.id === 'r1-t2')!;
    for (const d of c.deltas('round:1')) applyToSummary(summary, d.change);
    const g = gameOf(game);
    for (const d of c.deltas('game:r1-t2')) applyToGame(g, d.change);
    expect(g.moves.map((m) => m.san)).toEqual(['e4', 'e5', 'Bc4']);
    expect(summary.fen).toBe(hall.fen('r1-t2'));
    expect(summary.lastMove?.san).toBe('Bc4');
    expect(summary.ply).toBe(3);
  });

  it('announces games published during the event to tournament subscribers', async () => {
    const { hall, wsUrl } = await setup(2);
    const c = await client(wsUrl);
    c.send({ v: 1, type: 'subscribe', scope: { kind: 'tournament' } });
    const snap = await c.next(isType('snapshot', 'tournament'));
    if (snap.body.kind !== 'tournament') throw new Error('tournament snapshot expected');
    expect(snap.body.games.filter((g) => g.round === 2)).toEqual([]);
    hall.source.addGame({ id: 'r2-t1', round: 2, table: 1, white: hall.source.game('r1-t2')!.black, black: hall.source.game('r1-t1')!.white });
    const d = (await c.next((m) => m.type === 'delta' && m.change.kind === 'game')) as Delta;
    expect(d.seq).toBe(snap.seq + 1);
    if (d.change.kind !== 'game') throw new Error('unreachable');
    expect(d.change.summary).toMatchObject({ id: 'r2-t1', round: 2, table: 1, status: 'pending', ply: 0, result: '*' });
    expect(d.change.summary.white.name).toBe('Horvat, Luka');
    const r2 = await client(wsUrl);
    r2.send({ v: 1, type: 'subscribe', scope: { kind: 'round', round: 2 } });
    const s2 = await r2.next(isType('snapshot', 'round:2'));
    expect(s2.body.kind === 'round' && s2.body.games.map((g) => g.id)).toEqual(['r2-t1']);
    expect(s2.body.kind === 'round' && s2.body.round.gameCount).toBe(1);
  });

  it('resumes from a sequence number with no gap and no duplicate', async () => {
    const { hall, wsUrl } = await setup(2);
    const a = await client(wsUrl);
    a.send({ v: 1, type: 'subscribe', scope: { kind: 'tournament' } });
    const snap = await a.next(isType('snapshot', 'tournament'));
    hall.play('r1-t1', 'd4');
    hall.play('r1-t2', 'e4');
    await waitFor(() => a.deltas('tournament').filter((d) => d.change.kind === 'move').length === 2, 'two moves');
    const seen = a.deltas('tournament');
    const last = seen[seen.length - 1]!.seq;
    await a.close();

    for (const san of ['Nf6', 'c4', 'e6']) hall.play('r1-t1', san);
    hall.play('r1-t2', 'c5');

    const b = await client(wsUrl);
    b.send({ v: 1, type: 'subscribe', scope: { kind: 'tournament' }, since: { epoch: snap.epoch, seq: last } });
    const resumed = await b.next(isType('resumed', 'tournament'));
    expect(resumed.seq).toBe(last);
    await waitFor(() => b.deltas('tournament').filter((d) => d.change.kind === 'move').length === 4, 'four missed moves');
    const missed = b.deltas('tournament');
    expect(missed.map((d) => d.seq)).toEqual(missed.map((_, i) => last + 1 + i));
    expect(missed.flatMap((d) => (d.change.kind === 'move' ? [d.change.move.san] : []))).toEqual(['Nf6', 'c4', 'e6', 'c5']);
    expect(b.messages.some((m) => m.type === 'snapshot')).toBe(false);

    // Live deltas continue the same numbering.
    hall.play('r1-t1', 'Nc3');
    const next = (await b.next((m) => m.type === 'delta' && m.change.kind === 'move' && m.change.move.san === 'Nc3')) as Delta;
    expect(next.seq).toBeGreaterThan(missed[missed.length - 1]!.seq);
    const all = b.deltas('tournament').map((d) => d.seq);
    expect(new Set(all).size).toBe(all.length);
  });

  it('sends a fresh snapshot when the missed deltas are no longer kept or the server restarted', async () => {
    const { hall, wsUrl } = await setup(1, { historyPerScope: 3 });
    const a = await client(wsUrl);
    a.send({ v: 1, type: 'subscribe', scope: { kind: 'game', gameId: 'r1-t1' } });
    const snap = await a.next(isType('snapshot'));
    await a.close();
    for (const san of LINES[2]!.slice(0, 6)) hall.play('r1-t1', san);
    const b = await client(wsUrl);
    b.send({ v: 1, type: 'subscribe', scope: { kind: 'game', gameId: 'r1-t1' }, since: { epoch: snap.epoch, seq: snap.seq } });
    const s2 = await b.next(isType('snapshot'));
    expect(s2.reason).toBe('resume-too-old');
    expect(gameOf(s2).moves.map((m) => m.san)).toEqual(LINES[2]!.slice(0, 6));
    b.send({ v: 1, type: 'subscribe', scope: { kind: 'game', gameId: 'r1-t1' }, since: { epoch: 'another-server', seq: s2.seq } });
    expect((await b.next(isType('snapshot'))).reason).toBe('resume-other-epoch');
  });

  it('sends incidents to arbiter clients only, without gaps in the public numbering', async () => {
    const { hall, wsUrl } = await setup(1);
    const pub = await client(wsUrl);
    const arb = await client(wsUrl, { token: TOKEN });
    const late = await client(wsUrl);
    late.send({ v: 1, type: 'auth', token: TOKEN });
    await late.next(isType('authed'));
    const wrong = await client(wsUrl);
    wrong.send({ v: 1, type: 'auth', token: 'guess' });
    expect((await wrong.next(isType('error'))).code).toBe('bad-token');
    for (const c of [pub, arb, late, wrong]) c.send({ v: 1, type: 'subscribe', scope: { kind: 'game', gameId: 'r1-t1' } });
    const snaps = await Promise.all([pub, arb, late, wrong].map((c) => c.next(isType('snapshot'))));

    hall.play('r1-t1', 'e4');
    const changes = [...hall.replug('r1-t1'), ...hall.illegal('r1-t1', 'a7', 'a4')];
    hall.play('r1-t1', 'e5');
    const incidents = changes.filter((c) => c.kind === 'incident');
    expect(incidents.length, 'the engine reports the replug/illegal move as incidents').toBeGreaterThan(0);

    await waitFor(() => arb.deltas('game:r1-t1').filter((d) => d.change.kind === 'incident').length === incidents.length, 'arbiter incidents');
    await waitFor(() => late.deltas('game:r1-t1').filter((d) => d.change.kind === 'incident').length === incidents.length, 'late-auth arbiter incidents');
    await waitFor(() => pub.deltas('game:r1-t1').filter((d) => d.change.kind === 'move').length >= 2, 'public moves');
    await waitFor(() => wrong.deltas('game:r1-t1').filter((d) => d.change.kind === 'move').length >= 2, 'public moves (bad token)');
    for (const [i, c] of [pub, wrong].entries()) {
      const ds = c.deltas('game:r1-t1');
      expect(ds.some((d) => d.change.kind === 'incident')).toBe(false);
      expect(ds.map((d) => d.seq)).toEqual(ds.map((_, k) => snaps[i === 0 ? 0 : 3]!.seq + 1 + k));
    }
    const arbInc = arb.deltas('game:r1-t1').flatMap((d) => (d.change.kind === 'incident' ? [d.change.incident] : []));
    expect(arbInc[0]!.message.length).toBeGreaterThan(0);
  });

  it('sends a game derived again (an amendment undone) whole to its game scope, without incidents for the public, and as a summary to the round', async () => {
    const { hall, wsUrl } = await setup(1);
    const pub = await client(wsUrl);
    const arb = await client(wsUrl, { token: TOKEN });
    for (const c of [pub, arb]) {
      c.send({ v: 1, type: 'subscribe', scope: { kind: 'game', gameId: 'r1-t1' } });
      c.send({ v: 1, type: 'subscribe', scope: { kind: 'round', round: 1 } });
    }
    const held = await Promise.all([pub, arb].map(async (c) => gameOf(await c.next(isType('snapshot', 'game:r1-t1')))));
    hall.play('r1-t1', 'e4');
    hall.illegal('r1-t1', 'a7', 'a4');
    hall.source.arbiter('r1-t1', { type: 'set-result', at: Date.now(), result: '0-1' });
    // The same game derived again without the result (another hall that played the same move).
    const other = new Hall({ tables: 1 });
    other.connectAll();
    other.play('r1-t1', 'e4');
    other.illegal('r1-t1', 'a7', 'a4');
    hall.source.adopt(other.source, 'r1-t1');
    expect(hall.source.game('r1-t1')!.incidents.length).toBeGreaterThan(0);

    for (const [i, c] of [pub, arb].entries()) {
      await waitFor(() => c.deltas('game:r1-t1').some((d) => d.change.kind === 'game' && d.change.state !== undefined), 'the whole game');
      const game = held[i]!;
      for (const d of c.deltas('game:r1-t1')) applyToGame(game, d.change);
      const server = hall.source.game('r1-t1')!;
      expect(game).toEqual(i === 0 ? { ...server, incidents: [] } : server);
      await waitFor(() => c.deltas('round:1').some((d) => d.change.kind === 'game'), 'the summary');
      const summary = c.deltas('round:1').find((d) => d.change.kind === 'game')!.change;
      expect(summary.kind === 'game' && summary.state).toBeUndefined();
      expect(summary.kind === 'game' && summary.summary.result).toBe('*');
    }
  });

  it('does not let a client that stops reading stall a fast one', async () => {
    const { hall, wsUrl } = await setup(1, { highWaterBytes: 64 * 1024, lowWaterBytes: 8 * 1024 });
    const fast = await client(wsUrl);
    const slow = await client(wsUrl);
    for (const c of [fast, slow]) c.send({ v: 1, type: 'subscribe', scope: { kind: 'game', gameId: 'r1-t1' } });
    const fastSnap = await fast.next(isType('snapshot'));
    await slow.next(isType('snapshot'));
    slow.ws.pause(); // stop reading: the server's socket to it fills up

    // Clock readings that disagree with the extrapolation are real changes; pump them until the
    // server has had to stop feeding the slow client (its queue above the high-water mark).
    hall.play('r1-t1', 'e4');
    let sent = 0;
    let whiteMs = 80 * 60_000;
    const lagging = (): boolean => server!.hub.laggingClients() > 0;
    while (!lagging() && sent < 400_000) {
      for (let i = 0; i < 500; i++) {
        whiteMs -= 2000;
        hall.push('r1-t1', { type: 'clock', at: 0, whiteMs: 80 * 60_000 + (sent % 2) * 5000, blackMs: whiteMs, running: 'black', whiteFlag: false, blackFlag: false });
        sent++;
      }
      await new Promise((r) => setImmediate(r));
    }
    expect(lagging(), `slow client marked lagging after ${sent} changes`).toBe(true);

    // The fast client keeps receiving everything, in order, while the slow one is stuck.
    hall.play('r1-t1', 'e5');
    await waitFor(() => fast.deltas('game:r1-t1').some((d) => d.change.kind === 'move' && d.change.move.san === 'e5'), 'fast client gets e5', 20_000);
    const seqs = fast.deltas('game:r1-t1').map((d) => d.seq);
    expect(seqs.length).toBeGreaterThan(sent);
    expect(seqs[seqs.length - 1]! - fastSnap.seq).toBe(seqs.length);

    // Once the slow client reads again it gets a resync snapshot with the present state, then deltas.
    slow.ws.resume();
    const resync = await slow.next((m) => m.type === 'snapshot' && m.reason === 'resync', 20_000);
    if (resync.type !== 'snapshot') throw new Error('unreachable');
    expect(gameOf(resync).moves.map((m) => m.san)).toEqual(['e4', 'e5']);
    hall.play('r1-t1', 'Nf3');
    const after = (await slow.next((m) => m.type === 'delta' && m.change.kind === 'move' && m.change.move.san === 'Nf3', 10_000)) as Delta;
    expect(after.seq).toBeGreaterThan(resync.seq);
    const afterResync = slow.messages.slice(slow.messages.indexOf(resync) + 1).filter((m): m is Delta => m.type === 'delta');
    expect(afterResync.map((d) => d.seq)).toEqual(afterResync.map((_, k) => resync.seq + 1 + k));
  });

  it('drops connections that stop answering heartbeat pings', async () => {
    const { wsUrl } = await setup(1, { heartbeatMs: 150 });
    const healthy = await client(wsUrl);
    const dead = await client(wsUrl);
    // A paused client reads nothing, so it never sees the ping and never answers.
    dead.ws.pause();
    await waitFor(() => server!.hub.stats.connections === 1, 'the silent client to be dropped', 5000);
    dead.ws.resume();
    await waitFor(() => dead.closed !== null, 'the dropped client to see its socket closed');
    healthy.send({ v: 1, type: 'ping', t: 7 });
    expect((await healthy.next(isType('pong'))).t).toBe(7);
  });

  it('answers garbage with error messages and closes oversized frames, and keeps serving', async () => {
    const { wsUrl } = await setup(1, { maxPayload: 4096, rateBurst: 10, ratePerSecond: 5 });
    const c = await client(wsUrl);
    c.sendRaw('{"v":1, this is not json');
    expect((await c.next(isType('error'))).code).toBe('bad-json');
    c.sendRaw(Buffer.from([1, 2, 3]));
    expect((await c.next(isType('error'))).code).toBe('bad-message');
    c.sendRaw('{"v":9,"type":"ping"}');
    expect((await c.next(isType('error'))).code).toBe('unsupported-version');
    c.send({ v: 1, type: 'subscribe', scope: { kind: 'game', gameId: 'no-such-game' } });
    expect((await c.next(isType('error'))).code).toBe('unknown-scope');
    c.send({ v: 1, type: 'ping', t: 1 });
    expect((await c.next(isType('pong'))).t).toBe(1);

    // A flood beyond the rate limit is refused with one error, not served.
    for (let i = 0; i < 30; i++) c.send({ v: 1, type: 'ping', t: 100 + i });
    expect((await c.next(isType('error'))).code).toBe('rate-limited');
    // Every ping of the flood is either answered or counted as refused: wait for all 30, not a while.
    const floodPongs = () => c.messages.filter((m) => m.type === 'pong' && (m.t ?? 0) >= 100).length;
    await waitFor(() => floodPongs() + server!.hub.stats.rateLimited >= 30, 'every ping of the flood answered or refused');
    expect(floodPongs()).toBeLessThan(20);

    const big = await client(wsUrl);
    big.sendRaw('x'.repeat(10_000));
    await waitFor(() => big.closed !== null, 'oversized frame closes the connection');
    expect(big.closed!.code).toBe(1009);

    const ok = await client(wsUrl);
    ok.send({ v: 1, type: 'subscribe', scope: { kind: 'tournament' } });
    expect((await ok.next(isType('snapshot'))).body.kind).toBe('tournament');
  });
});
