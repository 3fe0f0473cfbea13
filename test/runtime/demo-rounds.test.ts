import { describe, expect, it } from 'vitest';
import { sharedDataPresent } from '../shared-data.ts';
import { demoPairings, demoSourceGame, loadSourceGames, SHARED_GAMES_DIR, type GameSource } from '../../daemon/runtime/demo-games.ts';
import type { SourceGame } from '../../daemon/simulation/games/game.ts';
import { playerFromTags } from '../../daemon/simulation/games/pgn.ts';

const shared = sharedDataPresent(SHARED_GAMES_DIR, 'demo hall seating on the shared corpus');

function corpus(): GameSource {
  const games = loadSourceGames(SHARED_GAMES_DIR);
  if (typeof games === 'string') throw new Error(games);
  return { kind: 'files', dir: SHARED_GAMES_DIR, games };
}

/** A score that is only its players: seating never plays the moves. */
function score(id: string, white: string, black: string): SourceGame {
  const startFen = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
  return { id, chess960: false, startFen, moves: [], sans: [], players: { white: playerFromTags({ White: white }, 'White'), black: playerFromTags({ Black: black }, 'Black') } };
}

/** The ids of the games at tables first..first+tables-1 in round `round` (1-based). */
function round(source: GameSource, tables: number, r: number, first = 1): string[] {
  return Array.from({ length: tables }, (_, i) => demoSourceGame(source, tables, first + i, r - 1).id);
}

/** Names seated more than once in a round, by the pairings the hall shows. */
function twice(source: GameSource, tables: number, r: number, first = 1): string[] {
  const lookup = demoPairings(source, tables, first);
  const names = Array.from({ length: tables }, (_, i) => lookup(r, first + i)!).flatMap((p) => [p.white.name, p.black.name]);
  return names.filter((n, i) => names.indexOf(n) !== i);
}

describe.skipIf(!shared)('the demo hall seating the shared corpus on 8 tables', () => {
  const source = shared ? corpus() : ({ kind: 'random', seed: 1 } as GameSource);
  const games = source.kind === 'files' ? source.games : [];

  it('seats no player at two tables of a round, with the emulated tables numbered from 1 or after real ones', () => {
    // The files hold matches in order: cut into slices of 8, round 1 had Anderssen at 5 tables.
    for (let r = 1; r <= 100; r++) {
      expect(twice(source, 8, r), `round ${r}`).toEqual([]);
      expect(twice(source, 8, r, 3), `round ${r}, tables 3-10`).toEqual([]);
    }
  });

  it('names as pairings the players of the game each table plays', () => {
    const lookup = demoPairings(source, 8, 1);
    for (let r = 1; r <= 20; r++) {
      for (let t = 1; t <= 8; t++) expect(lookup(r, t)).toEqual(demoSourceGame(source, 8, t, r - 1).players);
    }
  });

  it('shows every game by the round its busiest player needs, first in corpus order', () => {
    // One seat a round, so Anderssen's 68 London 1851 games take 68 rounds, more than the 45 the
    // 356 games fill on 8 tables: no seating without a player twice in a round does better.
    const perPlayer = new Map<string, number>();
    for (const g of games) for (const n of [g.players!.white.name, g.players!.black.name]) perPlayer.set(n, (perPlayer.get(n) ?? 0) + 1);
    const needed = Math.max(Math.ceil(games.length / 8), ...perPlayer.values());
    expect(needed).toBeGreaterThan(Math.ceil(games.length / 8));
    const seen = new Set<string>();
    for (let r = 1; r <= needed + 2; r++) for (const id of round(source, 8, r)) seen.add(id);
    expect(games.filter((g) => !seen.has(g.id)).map((g) => g.id)).toEqual([]);
    expect(round(source, 8, 1)[0]).toBe(games[0]!.id);
  });

  it('seats the same games on every call, on a corpus read again, whichever round is asked first', () => {
    const again = corpus();
    const late = round(again, 8, 60);
    const inOrder = Array.from({ length: 60 }, (_, r) => round(source, 8, r + 1));
    expect(Array.from({ length: 60 }, (_, r) => round(again, 8, r + 1))).toEqual(inOrder);
    expect(late).toEqual(inOrder[59]);
    expect(round(source, 8, 7)).toEqual(inOrder[6]);
  });
});

describe('the demo hall seating a small corpus', () => {
  it('plays matches held one after another side by side, each in its order', () => {
    const pairs = [
      ['A', 'B'],
      ['C', 'D'],
      ['E', 'F'],
      ['G', 'H'],
    ];
    const games = pairs.flatMap(([w, b]) => [1, 2, 3].map((k) => score(`${w}${b}${k}`, w!, b!)));
    const source: GameSource = { kind: 'files', dir: '', games };
    expect([1, 2, 3].map((r) => round(source, 4, r))).toEqual([
      ['AB1', 'CD1', 'EF1', 'GH1'],
      ['AB2', 'CD2', 'EF2', 'GH2'],
      ['AB3', 'CD3', 'EF3', 'GH3'],
    ]);
    expect(round(source, 4, 4)).toEqual(round(source, 4, 1));
  });

  it('fills every table from a one-match corpus, walking the match in order', () => {
    const games = Array.from({ length: 20 }, (_, k) => score(`m${k}`, k % 2 ? 'Steinitz' : 'Zukertort', k % 2 ? 'Zukertort' : 'Steinitz'));
    const source: GameSource = { kind: 'files', dir: '', games };
    for (let r = 1; r <= 10; r++) expect(round(source, 8, r)).toEqual(Array.from({ length: 8 }, (_, t) => `m${((r - 1) * 8 + t) % 20}`));
  });

  it('fills every table when the corpus has fewer games than the hall has tables', () => {
    const source: GameSource = { kind: 'files', dir: '', games: [score('x', 'A', 'B'), score('y', 'C', 'D'), score('z', 'E', 'F')] };
    expect(round(source, 8, 1)).toEqual(['x', 'y', 'z', 'x', 'y', 'z', 'x', 'y']);
    expect(round(source, 8, 2)).toHaveLength(8);
  });

  it('keeps generated games where they were: game k of the hall from seed * 100003 + k', () => {
    const source: GameSource = { kind: 'random', seed: 7 };
    expect(demoSourceGame(source, 4, 3, 2).id).toBe(`random#${7 * 100_003 + 2 * 4 + 2}`);
    expect(demoPairings(source, 4, 1)(1, 1)).toBeUndefined();
  });
});
