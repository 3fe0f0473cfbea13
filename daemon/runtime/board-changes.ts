import { Type } from '@sinclair/typebox';
import { err, ok, type Result } from '../../protocols/result.ts';
import { validator } from '../../protocols/validation.ts';
import type { AmendmentRow } from '../store/types.ts';
import { BOARD_MESSAGE, BOARD_PATTERN } from '../tournament/config-schema.ts';
import type { BoardcastConfig } from '../tournament/config.ts';
import type { ArbiterFailure } from './arbiter.ts';

/**
 * Changing a table's board during the event (docs/hall.md, *Changing a table's board*): a spare
 * put in for a broken board, or two boards swapped between tables. The table keeps its game; the
 * new board is read from its next dump on. Recorded in the audit trail (the `amendments` table,
 * with no game: it concerns a table), so a restart reads the boards the organiser chose.
 */
export interface BoardChangeRequest {
  table: number;
  /** The board from now on: a device path, COMn, or a 5-digit serial number. */
  board: string;
  reason: string;
  /** Who changed it: the logged-in account's name (or the `arbiter` the token's request names). */
  by: string;
}

/** What a change did: one table, or two when the board was another table's (a swap). */
export interface BoardChangeDone {
  changes: { table: number; board: string; previous: string }[];
}

export type BoardChangeHandler = (request: BoardChangeRequest) => Promise<Result<BoardChangeDone, ArbiterFailure>>;

/** The audit trail row's detail of one table's change. */
export interface BoardChangeDetail {
  kind: 'board';
  table: number;
  board: string;
  previous: string;
  /** The board the config file named for the table when the change was made. */
  configBoard: string;
  /** The other table of a swap, else null. */
  swappedWith: number | null;
}

export const BOARD_CHANGE_ACTION = 'board';

export function isBoardChangeDetail(d: unknown): d is BoardChangeDetail {
  if (typeof d !== 'object' || d === null) return false;
  const x = d as Record<string, unknown>;
  return x.kind === 'board' && typeof x.table === 'number' && typeof x.board === 'string' && typeof x.previous === 'string' && typeof x.configBoard === 'string';
}

const checkBody = validator(
  Type.Object({
    board: Type.String({ pattern: BOARD_PATTERN, 'x-message': BOARD_MESSAGE }),
    reason: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S', 'x-message': 'must say why, in at most 500 characters' }),
    arbiter: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()], { 'x-message': 'must be a string of at most 500 characters' })),
  }),
  'the body',
);

/** A `POST /api/arbiter/tables/:n/board` body as a request, or a 400 saying what is wrong. */
export function parseBoardChange(table: number, body: unknown): Result<BoardChangeRequest, ArbiterFailure> {
  const checked = checkBody(body ?? {});
  if (!checked.ok) return err({ status: 400, code: 'bad-request', message: checked.error });
  const b = checked.value;
  return ok({ table, board: b.board, reason: b.reason.trim(), by: b.arbiter?.trim() || 'arbiter' });
}

/**
 * The boards tables hold now by the organiser's changes in the audit trail (tables not listed
 * keep the config's). A change made while the config named another board for its table than it
 * does now is void: the organiser edited the file since, and the file wins. If the result would
 * give one board to two tables (the file edited for one table of a swap), every change is set
 * aside and the config's boards are used.
 */
export function boardsInForce(rows: readonly AmendmentRow[], config: BoardcastConfig): Map<number, string> {
  const configured = new Map(config.tables.filter((t) => t.bus === undefined).map((t) => [t.number, t.board]));
  const out = new Map<number, string>();
  for (const r of rows) {
    if (r.action !== BOARD_CHANGE_ACTION || r.gameId !== null || !isBoardChangeDetail(r.detail)) continue;
    const d = r.detail;
    if (configured.get(d.table) !== d.configBoard) continue;
    out.set(d.table, d.board);
  }
  for (const [table, board] of out) if (configured.get(table) === board) out.delete(table);
  const effective = new Map([...configured, ...out]);
  if (new Set(effective.values()).size !== effective.size) return new Map();
  return out;
}

/** The config with the boards the organiser chose since in place of the file's. */
export function withBoards(config: BoardcastConfig, boards: ReadonlyMap<number, string>): BoardcastConfig {
  if (boards.size === 0) return config;
  return { ...config, tables: config.tables.map((t) => (boards.has(t.number) ? { ...t, board: boards.get(t.number)! } : t)) };
}
