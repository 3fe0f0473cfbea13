import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { parsePgn, startingPosition } from 'chessops/pgn';
import { parseSan } from 'chessops/san';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountBridges } from '../../bridge/index.ts';
import { pgnExtract, skipWithoutPgnExtract } from './pgn-extract.ts';
import { Hall, LINES } from '../server/hall.ts';

/**
 * The PGN as it leaves the daemon over HTTP (/relay/round-N.pgn, what lichess polls and the push
 * and the PGN folder carry): pgn-extract replays every game of it, chessops reads it move for move.
 */
let hall: Hall;
let http: Server;
let base: string;

beforeAll(async () => {
  let wall = Date.UTC(2026, 10, 21, 15, 0, 0);
  hall = new Hall({ tables: 3, now: () => wall });
  hall.connectAll();
  for (const san of LINES[0]!.slice(0, 12)) {
    wall += 41_000;
    hall.play('r1-t1', san, 41_000);
  }
  for (const san of LINES[1]!.slice(0, 7)) hall.play('r1-t2', san);
  for (const san of ['f3', 'e5', 'g4', 'Qh4#']) hall.play('r1-t3', san);
  const app = express();
  mountBridges(app, hall.source);
  http = createServer(app);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => http?.close(() => resolve()));
});

describe('served round PGN', () => {
  it.skipIf(skipWithoutPgnExtract)('passes pgn-extract and reads back in chessops, with the platform tags', async () => {
    const text = await (await fetch(`${base}/relay/round-1.pgn`)).text();
    expect(pgnExtract(text)).toEqual({ diagnostics: '', games: 3 });
    const games = parsePgn(text);
    expect(games.map((g) => [g.headers.get('Board'), g.headers.get('GameId'), g.headers.get('Result'), g.headers.get('Termination') ?? null])).toEqual([
      ['1', 'ljubljana-open-2026/r1-t1', '*', null],
      ['2', 'ljubljana-open-2026/r1-t2', '*', null],
      ['3', 'ljubljana-open-2026/r1-t3', '0-1', 'normal'],
    ]);
    expect(games[0]!.headers.get('Date')).toBe('2026.11.21');
    expect(games[0]!.headers.get('WhiteClock')).toMatch(/^\d\d:\d\d:\d\d$/);
    const emts = [...games[0]!.moves.mainline()].flatMap((n) => (n.comments ?? []).flatMap((c) => [...c.matchAll(/\[%emt (\d:\d\d:\d\d)\]/g)].map((m) => m[1])));
    expect(emts).toEqual(Array(11).fill('0:00:41'));
    for (const [i, g] of games.entries()) {
      const pos = startingPosition(g.headers).unwrap();
      const sans = [...g.moves.mainline()].map((n) => n.san);
      for (const san of sans) pos.play(parseSan(pos, san)!);
      expect(sans).toEqual([LINES[0]!.slice(0, 12), LINES[1]!.slice(0, 7), ['f3', 'e5', 'g4', 'Qh4#']][i]);
    }
  });
});
