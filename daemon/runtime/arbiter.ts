import { parseFen } from 'chessops/fen';
import type { ArbiterCommand } from '../reconstruction/game-events.ts';
import type { GameState } from '../../protocols/feed/model.ts';
import { err, ok, type Result } from '../store/result.ts';
import type { AmendmentRow } from '../store/types.ts';
import type { HallCommand } from './hall-router.ts';

/** The arbiter actions the HTTP API accepts (POST /api/arbiter/games/:id/<kind>). */
export type ArbiterActionKind = 'result' | 'reinstate' | 'position';
export const ARBITER_ACTIONS: readonly ArbiterActionKind[] = ['result', 'reinstate', 'position'];

export type ArbiterAction =
  | { kind: 'result'; result: '1-0' | '0-1' | '1/2-1/2'; reason: string; arbiter: string }
  | { kind: 'reinstate'; ply: number; reason: string; arbiter: string }
  | { kind: 'position'; fen: string; reason: string; arbiter: string };

export interface ArbiterFailure {
  status: 400 | 404 | 409 | 500;
  code: string;
  message: string;
}

/** Applies one validated action to a game; the daemon records it before it applies it. */
export type ArbiterHandler = (gameId: string, action: ArbiterAction) => Result<GameState, ArbiterFailure>;

const RESULTS = ['1-0', '0-1', '1/2-1/2'] as const;
const MAX_TEXT = 500;

const bad = (message: string): Result<never, ArbiterFailure> => err({ status: 400, code: 'bad-request', message });

function text(body: Record<string, unknown>, field: string, fallback: string): Result<string, ArbiterFailure> {
  const v = body[field];
  if (v === undefined || v === null) return ok(fallback);
  if (typeof v !== 'string' || v.length > MAX_TEXT) return bad(`${field} must be a string of at most ${MAX_TEXT} characters`);
  return ok(v.trim() || fallback);
}

/** Validates a request body; bad input is a 400 value naming what is wrong, never an exception. */
export function parseArbiterAction(kind: string, body: unknown): Result<ArbiterAction, ArbiterFailure> {
  if (!(ARBITER_ACTIONS as readonly string[]).includes(kind)) return err({ status: 404, code: 'no-such-endpoint', message: `no arbiter action ${JSON.stringify(kind)}` });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return bad('the body must be a JSON object');
  const b = body as Record<string, unknown>;
  const reason = text(b, 'reason', 'arbiter decision');
  if (!reason.ok) return reason;
  const arbiter = text(b, 'arbiter', 'arbiter');
  if (!arbiter.ok) return arbiter;
  const common = { reason: reason.value, arbiter: arbiter.value };
  switch (kind as ArbiterActionKind) {
    case 'result': {
      const r = b.result;
      if (typeof r !== 'string' || !(RESULTS as readonly string[]).includes(r)) return bad(`result must be one of ${RESULTS.join(', ')}, got ${JSON.stringify(r ?? null)}`);
      return ok({ kind: 'result', result: r as (typeof RESULTS)[number], ...common });
    }
    case 'reinstate': {
      const p = b.ply;
      if (typeof p !== 'number' || !Number.isInteger(p) || p < 0) return bad(`ply must be a non-negative integer, got ${JSON.stringify(p ?? null)}`);
      return ok({ kind: 'reinstate', ply: p, ...common });
    }
    case 'position': {
      const f = b.fen;
      if (typeof f !== 'string' || f.length > 200) return bad('fen must be a FEN string');
      if (parseFen(f.trim()).isErr) return bad(`fen is not a valid FEN: ${JSON.stringify(f)}`);
      return ok({ kind: 'position', fen: f.trim(), ...common });
    }
  }
}

/** The engine command for an action taken at `at` (wall ms, the clock board events carry). */
export function arbiterCommand(a: ArbiterAction, at: number): ArbiterCommand {
  switch (a.kind) {
    case 'result':
      return { type: 'set-result', at, result: a.result };
    case 'reinstate':
      return { type: 'reinstate', at, ply: a.ply };
    case 'position':
      return { type: 'set-position', at, fen: a.fen };
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
  | { kind: 'start-round'; round: number; tables: number[]; at: number; afterRawEventId: number }
  | { kind: 'close-round'; round: number; at: number; force: boolean; afterRawEventId: number };

/** A hall command read back from the audit trail, with the place in the event stream it goes. */
export interface StoredHallCommand {
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
    if (d.kind === 'close-round') return { afterRawEventId: after, command: { kind: 'close-round', round: d.round, at: d.at } };
    if (!Array.isArray(d.tables) || !d.tables.every(isCount)) return null;
    return { afterRawEventId: after, command: { kind: 'start-round', round: d.round, tables: d.tables as number[], at: d.at } };
  }
  if (typeof d.gameId !== 'string' || typeof d.table !== 'number') return null;
  const c = d.command as ArbiterCommand | undefined;
  if (typeof c !== 'object' || c === null || typeof c.at !== 'number') return null;
  if (c.type !== 'set-result' && c.type !== 'reinstate' && c.type !== 'set-position') return null;
  return { afterRawEventId: after, command: { kind: 'game', gameId: d.gameId, table: d.table, command: c } };
}
