import type { BoardEvent } from '../../protocols/board-events.ts';
import type { DgtField, PieceCode } from '../../protocols/dgt/squares.ts';
import type { PhysicalAction } from '../simulation/emulator/physical.ts';
import { observe } from '../simulation/emulator/tabletop.ts';
import { resumePoint } from './demo-games.ts';
import type { TableGame } from './emulated-table.ts';

/** What the store says the host last saw of a table's board (the router's track). */
export interface HostBoard {
  board: readonly PieceCode[];
  recentFields: readonly { field: DgtField; piece: PieceCode }[];
}

/** How many of the host's last field changes must line up with the script's to place the host in it. */
const TAIL = 4;

/**
 * Where in a table's script the host left it: the emulated time after which the script's board is
 * the board the host last saw, its last field changes being the script's last ones there.
 *
 * Why not the time of the last move the store has (`resumePoint`): the host has often seen more
 * than the moves, a piece of the next move lifted, a knock, a takeback under way. A board resumed
 * at the last move stands behind the host: its handshake dump differs from the stored board, its
 * log does not hold the host's last changes, and the catch-up took the game in the log for a new
 * one, which the router opened as the table's next game (a second game replaying the running one
 * from move 1). Resumed where the host left, the board shows the host's board and plays on.
 *
 * Among the points where the script shows the host's board with its last changes, the one nearest
 * the last stored move is taken (a repeated position can occur more than once). Without one (the
 * stored stream holds changes the script never made), the last stored move's time, as before.
 */
export function resumeAt(script: TableGame, host: HostBoard, plies: number): number {
  const fallback = resumePoint(script, plies);
  const events: BoardEvent[] = observe(
    script.actions.filter((a): a is PhysicalAction => a.kind !== 'button'),
    { board: script.board, clock: script.clock },
  );
  const board = script.board.slice();
  const fields: { field: DgtField; piece: PieceCode }[] = [];
  const tail = host.recentFields.slice(-TAIL);
  let best: number | null = null;
  for (const ev of events) {
    if (ev.type === 'dump') board.splice(0, 64, ...ev.board);
    if (ev.type !== 'field') continue;
    board[ev.field] = ev.piece;
    fields.push({ field: ev.field, piece: ev.piece });
    if (!sameBoard(board, host.board) || !endsWith(fields, tail)) continue;
    if (best === null || Math.abs(ev.at - fallback) < Math.abs(best - fallback)) best = ev.at;
  }
  return best ?? fallback;
}

function sameBoard(a: readonly PieceCode[], b: readonly PieceCode[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function endsWith(fields: readonly { field: DgtField; piece: PieceCode }[], tail: readonly { field: DgtField; piece: PieceCode }[]): boolean {
  if (tail.length > fields.length) return false;
  const off = fields.length - tail.length;
  return tail.every((t, i) => fields[off + i]!.field === t.field && fields[off + i]!.piece === t.piece);
}
