import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceGame } from '../simulation/games/game.ts';
import { loadPgn } from '../simulation/games/pgn.ts';
import { randomGame } from '../simulation/games/random.ts';
import { NOISE_MODELS, playNoisy, type NoiseModel } from '../simulation/noisy-player/player.ts';
import type { TimeControl } from '../tournament/time-control.ts';
import type { TableGame } from './emulated-table.ts';
import { GameEngine } from '../reconstruction/engine.ts';
import { observe } from '../simulation/emulator/tabletop.ts';
import type { PhysicalAction } from '../simulation/emulator/physical.ts';
import type { EmulatorAction } from '../simulation/emulator/board-emulator.ts';
import { PIECE, squareToField, type PieceCode } from '../../protocols/dgt/squares.ts';
import { positionFromFen } from '../simulation/games/pgn.ts';
import { parseSquare } from 'chessops/util';
import type { PairingLookup } from './hall-router.ts';
import { SHARED_GAMES_DIR } from '../install/paths.ts';
import { roundGames } from './demo-rounds.ts';

/** The shared corpus of real games, next to the repository (../shared/data/games). */
export { SHARED_GAMES_DIR };

export type GameSource = { kind: 'files'; dir: string; games: SourceGame[] } | { kind: 'random'; seed: number };

/** Loads the games an emulated hall replays: a PGN file or directory, or null when none could be read. */
export function loadSourceGames(path: string): SourceGame[] | string {
  let files: string[];
  try {
    files = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((f) => f.endsWith('.pgn'))
          .sort()
          .map((f) => join(path, f))
      : [path];
  } catch (e) {
    return `cannot read games from ${path}: ${(e as Error).message}`;
  }
  const games: SourceGame[] = [];
  for (const f of files) games.push(...loadPgn(readFileSync(f, 'utf8'), f).games.filter((g) => !g.chess960 && g.moves.length >= 2));
  return games.length > 0 ? games : `no playable games in ${path}`;
}

/** "random" means the shared real games when they are on this machine, else seeded random games. */
export function resolveGameSource(games: string, seed: number): GameSource | string {
  if (games === 'random') {
    if (existsSync(SHARED_GAMES_DIR)) {
      const loaded = loadSourceGames(SHARED_GAMES_DIR);
      if (typeof loaded !== 'string') return { kind: 'files', dir: SHARED_GAMES_DIR, games: loaded };
    }
    return { kind: 'random', seed };
  }
  const loaded = loadSourceGames(games);
  return typeof loaded === 'string' ? loaded : { kind: 'files', dir: games, games: loaded };
}

export function isNoiseModel(s: string): s is NoiseModel {
  return (NOISE_MODELS as readonly string[]).includes(s);
}

/**
 * Game `index` (0-based) at table `table` (1-based) of a hall of `tables`: the score demoSourceGame
 * seats there, played with noise seeded per table and game. Deterministic in its inputs.
 */
export function demoGame(source: GameSource, tables: number, table: number, index: number, model: NoiseModel, seed: number, tc: TimeControl): { game: SourceGame; script: TableGame } {
  const k = index * tables + (table - 1);
  const game = demoSourceGame(source, tables, table, index);
  const clock = { baseMs: tc.baseSeconds * 1000, incrementMs: tc.incrementSeconds * 1000 };
  const s = playNoisy(game, { model, seed: seed + k, clock, reversed: false });
  return { game, script: { board: s.board, clock: s.clock, actions: [...s.actions, ...resultPieceActions(game, lastAt(s.actions))] } };
}

/**
 * The score played as game `index` at `table`: for a corpus, round `index + 1` of a hall where no
 * player sits at two tables (demo-rounds.ts). Emulated tables are numbered after the real ones, so
 * `tables` consecutive table numbers, whatever the first, take the round's games in turn.
 */
export function demoSourceGame(source: GameSource, tables: number, table: number, index: number): SourceGame {
  if (source.kind === 'files') return source.games[roundGames(source.games, tables, index)[(table - 1) % tables]!]!;
  return randomGame(source.seed * 100_003 + index * tables + (table - 1));
}

/**
 * The demo hall's pairings: round r at an emulated table is the r-th game that table plays (the
 * runtime numbers a table's games as rounds), and its players are the ones the score names.
 * Tables outside [firstTable, firstTable + tables) and generated games without players are unpaired.
 */
export function demoPairings(source: GameSource, tables: number, firstTable: number): PairingLookup {
  return (round, table) => {
    if (round < 1 || table < firstTable || table >= firstTable + tables) return undefined;
    const players = demoSourceGame(source, tables, table, round - 1).players;
    return players ? { white: { ...players.white }, black: { ...players.black } } : undefined;
  };
}

function lastAt(actions: readonly EmulatorAction[]): number {
  return actions.reduce((m, a) => Math.max(m, a.at), 0);
}

/** Where the result piece goes: the centre first, as arbiters and players put it where it is seen. */
const RESULT_SQUARES = ['e4', 'd5', 'd4', 'e5', 'c4', 'f5', 'c5', 'f4'];

const RESULT_PIECE: Record<'1-0' | '0-1' | '1/2-1/2', PieceCode> = {
  '1-0': PIECE.WHITE_WINS,
  '0-1': PIECE.BLACK_WINS,
  '1/2-1/2': PIECE.DRAW,
};

/**
 * A game that ended without mate on the board (resignation, agreed draw, flag, adjudication) is
 * signalled the DGT way: a result "magic piece" stood on an empty square for a few seconds, then
 * taken off (the reconstruction engine ends the game with termination 'result-pieces'). Games
 * ending in mate or stalemate, or without a result, need nothing. The demo plays the board the
 * right way round (reversed: false), so board fields follow the squares directly.
 */
export function resultPieceActions(game: SourceGame, after: number): PhysicalAction[] {
  const result = game.result ?? '*';
  if (result === '*') return [];
  const pos = positionFromFen(game.startFen);
  for (const m of game.moves) pos.play(m);
  if (pos.isCheckmate() || pos.isStalemate()) return [];
  const sq = [...RESULT_SQUARES.map((n) => parseSquare(n)!), ...Array.from({ length: 64 }, (_, i) => i)].find((s) => !pos.board.has(s));
  if (sq === undefined) return [];
  const field = squareToField(sq);
  return [
    { kind: 'place', at: after + 4000, field, piece: RESULT_PIECE[result] },
    { kind: 'lift', at: after + 7000, field },
  ];
}

/**
 * Where in a table's script the game stood after `plies` moves: the emulated time of the action
 * that completed that move, found by running the script's observations through an engine. A
 * restarted daemon resumes its in-process boards there, whatever pace either run used.
 */
export function resumePoint(script: TableGame, plies: number): number {
  if (plies <= 0) return 0;
  const engine = new GameEngine({ rules: { edition: '2018', category: 'standard' } });
  const events = [
    { type: 'dump' as const, at: 0, board: script.board.slice() },
    ...observe(
      script.actions.filter((a): a is PhysicalAction => a.kind !== 'button'),
      { board: script.board, clock: script.clock },
    ),
  ];
  let at = 0;
  for (const ev of events) {
    for (const ge of engine.push(ev)) {
      if (ge.type === 'move-made' && ge.ply === plies) at = ev.at;
    }
  }
  return at;
}
