import type { Color } from 'chessops';
import { PIECE, codeToPiece, type PieceCode } from '../../protocols/dgt/squares.ts';
import type { FieldChange } from './observed-board.ts';

/**
 * A change to the opponent's pieces this close before a press (or in the same instant) is the
 * opponent's hand already at work as the press lands (blitz), not part of the move pressed for.
 */
export const AT_PRESS_MS = 200;

function countOf(codes: ArrayLike<number>, code: number): number {
  let n = 0;
  for (let s = 0; s < 64; s++) if (codes[s] === code) n++;
  return n;
}

/**
 * The board as it stood when `by` pressed at `at`, when it differs from the board now (`seen`):
 * the last change was the opponent's hand already at work (one of their pieces lifted, or put down
 * while its square of departure is still full: the board has more of that piece than the record's
 * `recordCodes`), within AT_PRESS_MS before the press or in its instant, and the board logged it
 * first. The board now has a piece too many or too few: no position to break at or search to. One
 * change only: two may be a whole move the opponent made.
 */
export function boardAtPress(last: FieldChange, seen: Uint8Array, recordCodes: ArrayLike<number>, by: Color, at: number): Uint8Array | undefined {
  if (last.sq < 0 || last.at < at - AT_PRESS_MS) return undefined;
  const now = seen[last.sq]!;
  if (now !== PIECE.EMPTY && last.was !== PIECE.EMPTY) return undefined;
  const piece = codeToPiece((now === PIECE.EMPTY ? last.was : now) as PieceCode);
  if (!piece || piece.color === by) return undefined;
  if (now !== PIECE.EMPTY && countOf(seen, now) <= countOf(recordCodes, now)) return undefined;
  const board = seen.slice();
  board[last.sq] = last.was;
  return board;
}
