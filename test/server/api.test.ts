import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GameState, GameSummary, RoundInfo, TournamentInfo } from '../../protocols/feed/model.ts';
import { startServer, type RunningServer } from '../../daemon/server/server.ts';
import { Hall, LINES } from './hall.ts';

const TOKEN = 'arbiter-secret-for-tests';
let hall: Hall;
let server: RunningServer;

beforeAll(async () => {
  hall = new Hall({ tables: 4 });
  hall.connectAll();
  for (const san of LINES[0]!.slice(0, 6)) hall.play('r1-t1', san);
  for (const san of LINES[1]!.slice(0, 3)) hall.play('r1-t2', san);
  hall.replug('r1-t1');
  for (const san of ['f3', 'e5', 'g4', 'Qh4#']) hall.play('r1-t4', san);
  server = await startServer({ source: hall.source, arbiterToken: TOKEN, viewer: false });
});
afterAll(async () => {
  await server?.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers });

describe('HTTP API', () => {
  it('answers /health', async () => {
    const r = await get('/health');
    expect(r.status).toBe(200);
    expect(((await r.json()) as { ok: boolean }).ok).toBe(true);
  });

  it('serves the tournament and its rounds', async () => {
    const t = (await (await get('/api/tournament')).json()) as TournamentInfo;
    expect(t.name).toBe('Ljubljana Open 2026');
    const rounds = (await (await get('/api/rounds')).json()) as RoundInfo[];
    expect(rounds.map((r) => [r.round, r.gameCount])).toEqual([
      [1, 4],
      [2, 0],
    ]);
    // Round 1 has games under way, so it is live (viewers open on it); round 2 has none yet.
    expect(rounds.map((r) => r.status)).toEqual(['live', 'upcoming']);
    expect((await get('/api/rounds')).headers.get('access-control-allow-origin')).toBe('*');
  });

  it('lists the games of a round with players, table and live position', async () => {
    const games = (await (await get('/api/rounds/1/games')).json()) as GameSummary[];
    expect(games.map((g) => g.table)).toEqual([1, 2, 3, 4]);
    const t1 = games[0]!;
    expect(t1.white.name).toBe('Lenart, Ana');
    expect(t1.black.title).toBe('GM');
    expect(t1.ply).toBe(6);
    expect(t1.fen).toBe(hall.fen('r1-t1'));
    expect(t1.lastMove?.san).toBe('a6');
    expect(games[1]!.ply).toBe(3);
  });

  it('gives one game in full, with incidents only for the arbiter', async () => {
    const pub = (await (await get('/api/games/r1-t1')).json()) as GameState;
    expect(pub.moves.map((m) => m.san)).toEqual(LINES[0]!.slice(0, 6));
    expect(pub.moves[5]!.fenAfter).toBe(hall.fen('r1-t1'));
    expect(pub.clock?.running).toBe('white');
    expect(pub.incidents).toEqual([]);
    const arb = (await (await get('/api/games/r1-t1', { authorization: `Bearer ${TOKEN}` })).json()) as GameState;
    expect(arb.incidents.length).toBeGreaterThan(0);
    const wrong = (await (await get('/api/games/r1-t1', { authorization: 'Bearer nope' })).json()) as GameState;
    expect(wrong.incidents).toEqual([]);
  });

  it('writes PGN with full tags and %clk comments', async () => {
    const r = await get('/api/games/r1-t1/pgn');
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    const pgn = await r.text();
    const game = (await (await get('/api/games/r1-t1')).json()) as GameState;
    // The day the game was played (its first move), not the configured round date.
    const played = new Date(game.moves[0]!.at).toISOString().slice(0, 10).replaceAll('-', '.');
    for (const tag of [
      '[Event "Ljubljana Open 2026"]',
      '[Site "Ljubljana SLO"]',
      `[Date "${played}"]`,
      '[Round "1.1"]',
      '[White "Lenart, Ana"]',
      '[Black "Petrović, Marko"]',
      '[Result "*"]',
      '[WhiteElo "2391"]',
      '[BlackTitle "GM"]',
      '[WhiteFideId "14600001"]',
      '[TimeControl "5400+30"]',
    ]) {
      expect(pgn).toContain(tag);
    }
    expect(pgn).toMatch(/1\. e4 \{ \[%clk 1:30:\d\d\] \} e5 \{ \[%clk 1:30:\d\d\] \[%emt 0:\d\d:\d\d\] \} 2\. Nf3/);
    expect(pgn).toContain('[GameId "ljubljana-open-2026/r1-t1"]');
    expect(pgn).toMatch(/\[WhiteClock "\d\d:\d\d:\d\d"\]\n\[BlackClock "\d\d:\d\d:\d\d"\]/);
    expect(pgn.trim().endsWith('*')).toBe(true);
  });

  it('ends a mated game with its result and termination, in JSON and PGN', async () => {
    const g = (await (await get('/api/games/r1-t4')).json()) as GameState;
    expect(g.result).toBe('0-1');
    expect(g.status).toBe('finished');
    expect(g.termination).toBe('checkmate');
    const pgn = await (await get('/api/games/r1-t4/pgn')).text();
    expect(pgn).toContain('[Result "0-1"]');
    expect(pgn).toContain('[Termination "normal"]\n[TerminationDetail "checkmate"]');
    expect(pgn).not.toContain('WhiteClock');
    expect(pgn).toMatch(/2\. g4\s+\{ \[%clk [^\]]+\] \[%emt [^\]]+\] \}\s+Qh4#\s+(\{ \[%clk [^\]]+\] \[%emt [^\]]+\] \}\s+)?0-1\n$/);
  });

  it('writes the PGN of a whole round', async () => {
    const pgn = await (await get('/api/rounds/1/pgn')).text();
    expect(pgn.match(/\[Event /g)?.length).toBe(4);
    expect(pgn).toContain('1. d4 { [%clk');
  });

  it('serves the broadcast bridges on the same port: LiveChess Cloud JSON and the relay round PGN', async () => {
    const index = (await (await get('/lcc/round-1/index.json')).json()) as { pairings: unknown[] };
    expect(index.pairings).toHaveLength(4);
    const game = (await (await get('/lcc/round-1/game-4.json')).json()) as { moves: string[]; result: string };
    expect(game.moves.map((m) => m.split(' ')[0])).toEqual(['f3', 'e5', 'g4', 'Qh4#']);
    expect(game.result).toBe('BLACKWIN');
    const relay = await (await get('/relay/round-1.pgn')).text();
    expect(relay.match(/\[Event /g)?.length).toBe(4);
  });

  it('answers unknown things with 404 and malformed ones with 400, as JSON', async () => {
    const cases: [string, number, string][] = [
      ['/api/games/nope', 404, 'unknown-game'],
      ['/api/games/nope/pgn', 404, 'unknown-game'],
      ['/api/rounds/7/games', 404, 'unknown-round'],
      ['/api/rounds/x/games', 400, 'bad-round'],
      ['/api/rounds/0/pgn', 400, 'bad-round'],
      ['/api/what', 404, 'no-such-endpoint'],
    ];
    for (const [path, status, code] of cases) {
      const r = await get(path);
      expect(r.status, path).toBe(status);
      const body = (await r.json()) as { error: { code: string; message: string } };
      expect(body.error.code, path).toBe(code);
      expect(body.error.message.length).toBeGreaterThan(0);
    }
  });
});
