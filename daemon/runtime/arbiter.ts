import { Type, type Static } from '@sinclair/typebox';
import { parseFen } from 'chessops/fen';
import { chess960BackRank, startFromBackRank } from '../../protocols/rules/start-position.ts';
import { validator } from '../../protocols/validation.ts';
import type { ArbiterCommand } from '../reconstruction/game-events.ts';
import type { GameState } from '../../protocols/feed/model.ts';
import { err, ok, type Result } from '../store/result.ts';
import type { AmendmentRow } from '../store/types.ts';
import type { GameSettings, HallCommand } from './hall-router.ts';

/** The arbiter actions the HTTP API accepts (POST /api/arbiter/games/:id/<kind>). */
export type ArbiterActionKind = 'result' | 'reinstate' | 'position' | 'moves' | 'accept-board' | 'swap-colours' | 'clock' | 'chess960' | 'undo';
export const ARBITER_ACTIONS: readonly ArbiterActionKind[] = ['result', 'reinstate', 'position', 'moves', 'accept-board', 'swap-colours', 'clock', 'chess960', 'undo'];

export type ArbiterAction =
  | { kind: 'result'; result: '1-0' | '0-1' | '1/2-1/2'; reason: string; arbiter: string }
  | { kind: 'reinstate'; ply: number; reason: string; arbiter: string }
  | { kind: 'position'; fen: string; reason: string; arbiter: string }
  /**
   * The moves after `fromPly` are `sans`, the later ones kept (another order of an inferred span);
   * `replaces` recorded plies give way to them (1 fills a break in the record with its moves).
   */
  | { kind: 'moves'; fromPly: number; sans: string[]; replaces?: number; reason: string; arbiter: string }
  /** The board's position accepted: a break at `ply` marked so, or the record out of step broken now. */
  | { kind: 'accept-board'; ply?: number; reason: string; arbiter: string }
  /** The players were entered the wrong way round: White's name goes to Black and back. */
  | { kind: 'swap-colours'; reason: string; arbiter: string }
  /** A clock reading corrected: as of ply `ply` (its %clk) or, without, the clock now. */
  | { kind: 'clock'; ply?: number; whiteMs?: number; blackMs?: number; reason: string; arbiter: string }
  /** The game is Chess960 from `fen` (given, or made from a Chess960 position number). */
  | { kind: 'chess960'; fen: string; reason: string; arbiter: string }
  /** Amendment `amendment` is taken back (undoing an undo applies its amendment again). */
  | { kind: 'undo'; amendment: number; reason: string; arbiter: string };

export interface ArbiterFailure {
  status: 400 | 404 | 409 | 500;
  code: string;
  message: string;
}

/** Applies one validated action to a game; the daemon records it before it applies it. */
export type ArbiterHandler = (gameId: string, action: ArbiterAction) => Result<GameState, ArbiterFailure>;

const MAX_TEXT = 500;
/** Who acted and why (both optional): free text, bounded. */
const Text = Type.Optional(Type.Union([Type.String({ maxLength: MAX_TEXT }), Type.Null()], { 'x-message': `must be a string of at most ${MAX_TEXT} characters` }));
/** Why (required by the amendments added with the audit trail: swap, clock, Chess960, undo). */
const Reason = Type.String({ minLength: 1, maxLength: MAX_TEXT, pattern: '\\S', 'x-message': `must say why, in at most ${MAX_TEXT} characters` });
/** Remaining time on one side of the clock: up to 24 hours. */
const ClockMs = Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400_000, 'x-message': 'must be the milliseconds left, a whole number from 0 to 86400000' }));

/** The request bodies, one schema each: what is accepted and, through `Static`, its type. */
const ARBITER_BODIES = {
  result: Type.Object({
    result: Type.Unsafe<'1-0' | '0-1' | '1/2-1/2'>({ type: 'string', enum: ['1-0', '0-1', '1/2-1/2'], 'x-message': 'must be one of 1-0, 0-1, 1/2-1/2' }),
    reason: Text,
    arbiter: Text,
  }),
  // A ply beyond any game's length is refused here, not stored: no game has 10,000 plies.
  reinstate: Type.Object({ ply: Type.Integer({ minimum: 0, maximum: 10_000, 'x-message': 'must be a whole number of plies from 0 to 10000' }), reason: Text, arbiter: Text }),
  position: Type.Object({ fen: Type.String({ maxLength: 200, 'x-message': 'must be a FEN string' }), reason: Text, arbiter: Text }),
  moves: Type.Object({
    fromPly: Type.Integer({ minimum: 0, maximum: 10_000, 'x-message': 'must be a whole number of plies from 0 to 10000' }),
    sans: Type.Array(Type.String({ minLength: 2, maxLength: 10, pattern: '^[A-Za-z0-9=+#-]+$' }), { minItems: 1, maxItems: 64, 'x-message': 'must be a list of 1 to 64 moves in SAN' }),
    replaces: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, 'x-message': 'must be a whole number of plies from 1 to 64' })),
    reason: Text,
    arbiter: Text,
  }),
  'accept-board': Type.Object({
    ply: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, 'x-message': 'must be the ply of a break in the record (1 to 10000)' })),
    reason: Text,
    arbiter: Text,
  }),
  'swap-colours': Type.Object({ reason: Reason, arbiter: Text }),
  clock: Type.Object({
    ply: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, 'x-message': 'must be the ply whose clock reading is corrected (1 to 10000)' })),
    whiteMs: ClockMs,
    blackMs: ClockMs,
    reason: Reason,
    arbiter: Text,
  }),
  chess960: Type.Object({
    fen: Type.Optional(Type.String({ maxLength: 200, 'x-message': 'must be a FEN string' })),
    position: Type.Optional(Type.Integer({ minimum: 0, maximum: 959, 'x-message': 'must be a Chess960 position number from 0 to 959' })),
    reason: Reason,
    arbiter: Text,
  }),
  undo: Type.Object({ amendment: Type.Integer({ minimum: 1, 'x-message': 'must be the id of an amendment of this game' }), reason: Reason, arbiter: Text }),
};
const checkBody = {
  result: validator(ARBITER_BODIES.result, 'the body'),
  reinstate: validator(ARBITER_BODIES.reinstate, 'the body'),
  position: validator(ARBITER_BODIES.position, 'the body'),
  moves: validator(ARBITER_BODIES.moves, 'the body'),
  'accept-board': validator(ARBITER_BODIES['accept-board'], 'the body'),
  'swap-colours': validator(ARBITER_BODIES['swap-colours'], 'the body'),
  clock: validator(ARBITER_BODIES.clock, 'the body'),
  chess960: validator(ARBITER_BODIES.chess960, 'the body'),
  undo: validator(ARBITER_BODIES.undo, 'the body'),
};

const bad = (message: string): Result<never, ArbiterFailure> => err({ status: 400, code: 'bad-request', message });
const textOr = (v: string | null | undefined, fallback: string): string => (typeof v === 'string' && v.trim() ? v.trim() : fallback);

/** Validates a request body against its schema; bad input is a 400 value naming what is wrong, never an exception. */
export function parseArbiterAction(kind: string, body: unknown): Result<ArbiterAction, ArbiterFailure> {
  if (!(ARBITER_ACTIONS as readonly string[]).includes(kind)) return err({ status: 404, code: 'no-such-endpoint', message: `no arbiter action ${JSON.stringify(kind)}` });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return bad('the body must be a JSON object');
  const k = kind as ArbiterActionKind;
  const checked = checkBody[k](body);
  if (!checked.ok) return bad(checked.error);
  const b = checked.value;
  const common = { reason: textOr(b.reason, 'arbiter decision'), arbiter: textOr(b.arbiter, 'arbiter') };
  switch (k) {
    case 'result':
      return ok({ kind: 'result', result: (b as Static<typeof ARBITER_BODIES.result>).result, ...common });
    case 'reinstate':
      return ok({ kind: 'reinstate', ply: (b as Static<typeof ARBITER_BODIES.reinstate>).ply, ...common });
    case 'moves': {
      const m = b as Static<typeof ARBITER_BODIES.moves>;
      return ok({ kind: 'moves', fromPly: m.fromPly, sans: m.sans, ...(m.replaces !== undefined ? { replaces: m.replaces } : {}), ...common });
    }
    case 'accept-board': {
      const a = b as Static<(typeof ARBITER_BODIES)['accept-board']>;
      return ok({ kind: 'accept-board', ...(a.ply !== undefined ? { ply: a.ply } : {}), ...common });
    }
    case 'position': {
      const fen = (b as Static<typeof ARBITER_BODIES.position>).fen.trim();
      if (parseFen(fen).isErr) return bad(`fen is not a valid FEN: ${JSON.stringify(fen)}`);
      return ok({ kind: 'position', fen, ...common });
    }
    case 'swap-colours':
      return ok({ kind: 'swap-colours', ...common });
    case 'clock': {
      const c = b as Static<typeof ARBITER_BODIES.clock>;
      if (c.whiteMs === undefined && c.blackMs === undefined) return bad('give whiteMs, blackMs or both: the time left that the clock should show');
      return ok({
        kind: 'clock',
        ...(c.ply !== undefined ? { ply: c.ply } : {}),
        ...(c.whiteMs !== undefined ? { whiteMs: c.whiteMs } : {}),
        ...(c.blackMs !== undefined ? { blackMs: c.blackMs } : {}),
        ...common,
      });
    }
    case 'chess960': {
      const c = b as Static<typeof ARBITER_BODIES.chess960>;
      if ((c.fen === undefined) === (c.position === undefined)) return bad('give the start position as fen or as position (a Chess960 number 0-959), one of them');
      const fen = c.fen !== undefined ? c.fen.trim() : startFromBackRank(chess960BackRank(c.position!))!.fen;
      const setup = parseFen(fen);
      if (setup.isErr) return bad(`fen is not a valid FEN: ${JSON.stringify(fen)}`);
      return ok({ kind: 'chess960', fen, ...common });
    }
    case 'undo':
      return ok({ kind: 'undo', amendment: (b as Static<typeof ARBITER_BODIES.undo>).amendment, ...common });
  }
}

/** The actions replayed as a command at their place in the table's event stream. */
export type TimedAction = Exclude<ArbiterAction, { kind: 'swap-colours' | 'chess960' | 'undo' }>;

/** The engine command for an action taken at `at` (wall ms, the clock board events carry). */
export function arbiterCommand(a: TimedAction, at: number): ArbiterCommand {
  switch (a.kind) {
    case 'clock':
      return {
        type: 'set-clock',
        at,
        ...(a.ply !== undefined ? { ply: a.ply } : {}),
        ...(a.whiteMs !== undefined ? { whiteMs: a.whiteMs } : {}),
        ...(a.blackMs !== undefined ? { blackMs: a.blackMs } : {}),
      };
    case 'result':
      return { type: 'set-result', at, result: a.result };
    case 'reinstate':
      return { type: 'reinstate', at, ply: a.ply };
    case 'position':
      return { type: 'set-position', at, fen: a.fen };
    case 'moves':
      return { type: 'replace-moves', at, fromPly: a.fromPly, sans: a.sans, ...(a.replaces !== undefined ? { replaces: a.replaces } : {}) };
    case 'accept-board':
      return { type: 'accept-board', at, ...(a.ply !== undefined ? { ply: a.ply } : {}) };
  }
}

/**
 * What an amendment row stores so a restart re-applies it: the live game, its table, and the id of
 * the table's last raw event routed to the engines when the arbiter acted (the replay applies the
 * command after that event and before the next one, so the rebuilt game equals the live one).
 */
export interface AmendmentDetail {
  gameId: string;
  table: number;
  afterRawEventId: number;
  command: ArbiterCommand;
}

/** A round start or close as its amendment row stores it (`afterRawEventId`: the store's last raw event then). */
export type RoundAmendmentDetail =
  { kind: 'start-round'; round: number; tables: number[]; at: number; afterRawEventId: number } | { kind: 'close-round'; round: number; at: number; force: boolean; afterRawEventId: number };

/** A hall command read back from the audit trail, with the place in the event stream it goes. */
export interface StoredHallCommand {
  /** The audit trail row it came from. */
  amendmentId: number;
  afterRawEventId: number;
  command: HallCommand;
}

const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0;

/** The replayable part of an amendment row; null for rows written by other tools (not replayed). */
export function hallCommandOf(row: AmendmentRow): StoredHallCommand | null {
  const d = row.detail as Record<string, unknown> | null;
  if (typeof d !== 'object' || d === null || !isCount(d.afterRawEventId)) return null;
  const after = d.afterRawEventId;
  if (d.kind === 'start-round' || d.kind === 'close-round') {
    if (!isCount(d.round) || d.round < 1 || typeof d.at !== 'number') return null;
    if (d.kind === 'close-round') return { amendmentId: row.id, afterRawEventId: after, command: { kind: 'close-round', round: d.round, at: d.at } };
    if (!Array.isArray(d.tables) || !d.tables.every(isCount)) return null;
    return { amendmentId: row.id, afterRawEventId: after, command: { kind: 'start-round', round: d.round, tables: d.tables as number[], at: d.at } };
  }
  if (typeof d.gameId !== 'string' || typeof d.table !== 'number') return null;
  const c = d.command as ArbiterCommand | undefined;
  if (typeof c !== 'object' || c === null || typeof c.at !== 'number') return null;
  if (c.type !== 'set-result' && c.type !== 'reinstate' && c.type !== 'set-position' && c.type !== 'replace-moves' && c.type !== 'accept-board' && c.type !== 'set-clock') return null;
  return { amendmentId: row.id, afterRawEventId: after, command: { kind: 'game', gameId: d.gameId, table: d.table, command: c } };
}

/**
 * What an amendment that is not a timed command stores: a setting of the whole game (players
 * swapped, a Chess960 start: they hold from the game's first event, so the game is derived again
 * with them), or an undo naming the amendment it takes back.
 */
export type GameSettingDetail =
  | { kind: 'swap-colours'; gameId: string; table: number; afterRawEventId: number }
  | { kind: 'chess960'; gameId: string; table: number; fen: string; afterRawEventId: number }
  | { kind: 'undo'; gameId: string; table: number; undoes: number; afterRawEventId: number };

/** The live game id and table an amendment row concerns; null for round starts, closes and other tools' rows. */
export function amendmentGame(row: AmendmentRow): { gameId: string; table: number } | null {
  const d = row.detail as Record<string, unknown> | null;
  if (typeof d !== 'object' || d === null || typeof d.gameId !== 'string' || typeof d.table !== 'number') return null;
  return { gameId: d.gameId, table: d.table };
}

function undoTarget(row: AmendmentRow): number | null {
  const d = row.detail as Record<string, unknown> | null;
  return typeof d === 'object' && d !== null && d.kind === 'undo' && isCount(d.undoes) ? d.undoes : null;
}

/**
 * The ids of the amendments an undo in force takes back. An undo comes after what it undoes, so
 * reading the trail from its end decides each undo before the one it could undo: an undone undo
 * undoes nothing, and its amendment is in force again.
 */
export function undoneAmendments(rows: readonly AmendmentRow[]): Set<number> {
  const undone = new Set<number>();
  const sorted = [...rows].sort((a, b) => b.id - a.id);
  for (const row of sorted) {
    const target = undoTarget(row);
    if (target !== null && !undone.has(row.id)) undone.add(target);
  }
  return undone;
}

/** The amendments in force, in the order they were taken: neither undone nor undos themselves. */
export function amendmentsInForce(rows: readonly AmendmentRow[]): AmendmentRow[] {
  const undone = undoneAmendments(rows);
  return rows.filter((r) => !undone.has(r.id) && undoTarget(r) === null);
}

/** A game's settings from the amendments in force (swaps toggle; the last Chess960 start holds). */
export function gameSettingsOf(rows: readonly AmendmentRow[]): Map<string, GameSettings> {
  const out = new Map<string, GameSettings>();
  for (const row of amendmentsInForce(rows)) {
    const d = row.detail as Partial<GameSettingDetail> | null;
    if (typeof d !== 'object' || d === null || typeof d.gameId !== 'string') continue;
    const s = out.get(d.gameId) ?? {};
    if (d.kind === 'swap-colours') s.swapColours = !s.swapColours;
    else if (d.kind === 'chess960' && typeof d.fen === 'string') s.chess960Start = d.fen;
    else continue;
    out.set(d.gameId, s);
  }
  return out;
}
