import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountBridges } from '../../bridge/index.ts';
import type { LccGame, LccRoundIndex, LccTournament } from '../../bridge/lcc/format.ts';
import { MemoryLiveSource } from '../../daemon/runtime/memory-live-source.ts';
import { player } from '../server/hall.ts';

/**
 * Issue 10, items 3 and 4: `game-M.json` is the game at board (table) M and stays so when other
 * tables join the round later (pollers cache finished games by number), and the polled bridges
 * answer browsers on other sites (CORS) as /api/* does.
 */

let source: MemoryLiveSource;
let http: Server;
let base: string;

const tournament = { id: 't', name: 'Board Numbers Open', site: 'Maribor SLO', startDate: null, endDate: null, timeControl: '5400+30', variant: 'standard' as const, roundCount: 2 };

beforeAll(async () => {
  // Tables 1 and 3 start the round; table 2 joins later.
  source = new MemoryLiveSource({
    tournament,
    rounds: [{ round: 1, date: '2026-11-21', startsAt: null, status: 'live', gameCount: 0 }],
    games: [
      { id: 'g-t3', round: 1, table: 3, white: player(4), black: player(5) },
      { id: 'g-t1', round: 1, table: 1, white: player(0), black: player(1) },
    ],
  });
  const app = express();
  mountBridges(app, source);
  http = createServer(app);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => http?.close(() => resolve()));
});

const json = async <T>(path: string): Promise<T> => (await (await fetch(`${base}${path}`)).json()) as T;

describe('LCC game numbers are board numbers', () => {
  it('numbers games by their table, with a hole where no game is played', async () => {
    const idx = await json<LccRoundIndex>('/lcc/round-1/index.json');
    expect(idx.pairings).toHaveLength(3);
    expect(idx.pairings.map((p) => p.white?.lname ?? null)).toEqual(['Lenart', null, 'Novak']);
    expect(idx.pairings[1]).toEqual({ white: null, black: null, result: null, live: false });
    expect((await fetch(`${base}/lcc/round-1/game-2.json`)).status).toBe(404);
    const t = await json<LccTournament>('/lcc/tournament.json');
    expect(t.rounds[0]!.count).toBe(3);
  });

  it('keeps game-3.json on table 3 when table 2 joins the round', async () => {
    const before = await (await fetch(`${base}/lcc/round-1/game-3.json`)).text();
    source.addGame({ id: 'g-t2', round: 1, table: 2, white: player(2), black: player(3) });
    expect(await (await fetch(`${base}/lcc/round-1/game-3.json`)).text()).toBe(before);
    const idx = await json<LccRoundIndex>('/lcc/round-1/index.json');
    expect(idx.pairings.map((p) => p.white?.lname ?? null)).toEqual(['Lenart', 'Kováč', 'Novak']);
    const g2 = await fetch(`${base}/lcc/round-1/game-2.json`);
    expect(g2.status).toBe(200);
    expect(((await g2.json()) as LccGame).moves).toEqual([]);
  });
});

describe('CORS on the polled bridges', () => {
  it.each(['/lcc/tournament.json', '/lcc/round-1/index.json', '/lcc/round-1/game-1.json', '/relay/round-1.pgn', '/lcc/round-9/index.json'])('%s may be read from any origin', async (path) => {
    const r = await fetch(`${base}${path}`, { headers: { Origin: 'https://club.example' } });
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
