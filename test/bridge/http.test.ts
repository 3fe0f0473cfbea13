import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { parsePgn, startingPosition } from 'chessops/pgn';
import { parseSan } from 'chessops/san';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountBridges } from '../../bridge/index.ts';
import { chess960Number, type LccGame, type LccRoundIndex, type LccTournament } from '../../bridge/lcc/format.ts';
import { Hall, LINES } from '../server/hall.ts';

let hall: Hall;
let http: Server;
let base: string;

beforeAll(async () => {
  // The source's wall clock follows the players: 65 s per move on table 1.
  let wall = Date.UTC(2026, 10, 21, 15, 0, 0);
  hall = new Hall({ tables: 3, now: () => wall });
  hall.connectAll();
  for (const san of LINES[0]!.slice(0, 6)) {
    wall += 65_000;
    hall.play('r1-t1', san, 65_000);
  }
  for (const san of ['f3', 'e5', 'g4', 'Qh4#']) hall.play('r1-t3', san);
  const app = express();
  mountBridges(app, hall.source, { lcc: { serialOf: (t) => `2461${t}` } });
  http = createServer(app);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => http?.close(() => resolve()));
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });

describe('LiveChess Cloud JSON', () => {
  it('serves tournament.json with rounds and e-boards', async () => {
    const r = await get('/lcc/tournament.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    const t = (await r.json()) as LccTournament;
    expect(t.name).toBe('Ljubljana Open 2026');
    expect(t.timecontrol).toBe('5400+30');
    expect(t.rounds).toHaveLength(9);
    expect(t.rounds[0]).toEqual({ count: 3, live: 1 });
    expect(t.rounds[1]).toEqual({ count: 0, live: 0 });
    expect(t.rules).toBe('STANDARD');
    expect(t.eboards).toEqual(['24611', '24612', '24613']);
  });

  it('serves round-N/index.json pairings with LCC players', async () => {
    const idx = (await (await get('/lcc/round-1/index.json')).json()) as LccRoundIndex;
    expect(idx.date).toBe('2026-11-21');
    expect(idx.pairings).toHaveLength(3);
    expect(idx.pairings[0]!.white).toEqual({ fname: 'Ana', mname: null, lname: 'Lenart', title: 'WGM', federation: 'SLO', gender: null, fideid: 14600001 });
    expect(idx.pairings[0]!.black!.lname).toBe('Petrović');
    expect(idx.pairings.map((p) => [p.result, p.live])).toEqual([
      ['*', true],
      ['*', true],
      ['0-1', false],
    ]);
    expect((await get('/lcc/round-7/index.json')).status).toBe(404);
  });

  it("serves round-N/game-M.json with SAN, the mover's remaining seconds and the move's time", async () => {
    const r = await get('/lcc/round-1/game-1.json?poll');
    expect(r.status).toBe(200);
    const g = (await r.json()) as LccGame;
    expect(g.live).toBe(true);
    expect(g.serialNr).toBe('24611');
    expect(g.chess960).toBe(518);
    expect(g.result).toBeNull();
    expect(g.firstMove).toBe(Date.UTC(2026, 10, 21, 15, 1, 5));
    expect(g.moves).toHaveLength(6);
    const state = hall.source.game('r1-t1')!;
    g.moves.forEach((m, i) => {
      expect(m).toMatch(i === 0 ? /^\S+ \d+$/ : /^\S+ \d+\+65$/);
      const [san, secs] = m.split(' ');
      expect(san).toBe(LINES[0]![i]);
      expect(Number.parseInt(secs!, 10)).toBe(Math.floor(state.moves[i]!.clockMs! / 1000));
    });
    // 90+30, nobody's clock runs before White's first move; Black then thinks 65.6 s and gains 30 s.
    expect(g.moves.slice(0, 3)).toEqual(['e4 5400', 'e5 5364+65', 'Nf3 5364+65']);
    expect(g.clock).not.toBeNull();
    const finished = (await (await get('/lcc/round-1/game-3.json')).json()) as LccGame;
    expect(finished.result).toBe('BLACKWIN');
    expect(finished.live).toBe(false);
    expect(finished.moves.map((m) => m.split(' ')[0])).toEqual(['f3', 'e5', 'g4', 'Qh4#']);
    expect((await get('/lcc/round-1/game-4.json')).status).toBe(404);
  });

  it('revalidates with ETag and changes it when a move is played', async () => {
    const r1 = await get('/lcc/round-1/game-2.json');
    const etag = r1.headers.get('etag')!;
    expect(etag).toMatch(/^"/);
    expect(r1.headers.get('cache-control')).toContain('max-age=1');
    expect((await get('/lcc/round-1/game-2.json', { 'If-None-Match': etag })).status).toBe(304);
    hall.play('r1-t2', 'd4');
    const r2 = await get('/lcc/round-1/game-2.json', { 'If-None-Match': etag });
    expect(r2.status).toBe(200);
    expect(((await r2.json()) as LccGame).moves[0]).toMatch(/^d4 \d+$/);
    expect(r2.headers.get('etag')).not.toBe(etag);
  });

  it('numbers Chess960 start arrays the Scharnagl way', () => {
    expect(chess960Number('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1')).toBe(518);
    expect(chess960Number('bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1')).toBe(0);
    expect(chess960Number('rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w CAca - 0 1')).toBe(959);
    expect(chess960Number('8/8/8/8/8/8/8/4K3 w - - 0 1')).toBeNull();
  });
});

describe('relay PGN', () => {
  it('serves every game of the round, Seven Tag Roster first, %clk on each move, results set', async () => {
    const r = await get('/relay/round-1.pgn');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/x-chess-pgn');
    const text = await r.text();
    const games = parsePgn(text);
    expect(games).toHaveLength(3);
    for (const g of games) {
      expect([...g.headers.keys()].slice(0, 7)).toEqual(['Event', 'Site', 'Date', 'Round', 'White', 'Black', 'Result']);
    }
    expect(games.map((g) => g.headers.get('Result'))).toEqual(['*', '*', '0-1']);
    expect(games[0]!.headers.get('WhiteTitle')).toBe('WGM');
    expect(games[0]!.headers.get('Board')).toBe('1');

    const first = games[0]!;
    const pos = startingPosition(first.headers).unwrap();
    const sans: string[] = [];
    const clocks: string[] = [];
    for (const node of first.moves.mainline()) {
      const move = parseSan(pos, node.san);
      expect(move, node.san).toBeDefined();
      pos.play(move!);
      sans.push(node.san);
      const clk = /\[%clk (\d+:\d\d:\d\d)\]/.exec((node.comments ?? []).join(' '));
      expect(clk, `%clk after ${node.san}`).not.toBeNull();
      clocks.push(clk![1]!);
    }
    expect(sans).toEqual(LINES[0]!.slice(0, 6));
    expect(clocks[0]).toMatch(/^1:(2|3)\d:\d\d$/);
    expect(pos.isEnd()).toBe(false);
    const mated = games[2]!;
    expect([...mated.moves.mainline()].map((n) => n.san)).toEqual(['f3', 'e5', 'g4', 'Qh4#']);
  });

  it('answers 304 to an unchanged poll and 404 for an unknown round', async () => {
    const r = await get('/relay/round-1.pgn');
    const etag = r.headers.get('etag')!;
    expect((await get('/relay/round-1.pgn', { 'If-None-Match': etag })).status).toBe(304);
    expect((await get('/relay/round-5.pgn')).status).toBe(404);
    expect((await get('/relay/round-x.pgn')).status).toBe(404);
  });
});
