import type { NormalMove } from 'chessops';
import { between as squaresBetween } from 'chessops/attacks';
import type { Chess } from 'chessops/chess';
import { PIECE } from '../../protocols/dgt/squares.ts';
import { positionCodes } from './successors.ts';

/**
 * The board read whole when a board came back (its power-up listing, the reconnect dump) is a
 * board the game passed through, a hand at work on it or not. When nothing explained it, a
 * sequence found later to a board further on must still pass through it: one that never does tells
 * another story of the same pieces (a pawn b6xc7 where the board showed it on c6 and the c-pawn
 * gone), and recording it would publish moves nobody made.
 *
 * `board` is passed through when, between two positions one move apart on the way (or at the
 * start or the end), every square shows what one of the two had there or is empty, and at most one
 * piece the move does not touch is missing (a piece in a hand). A dump taken mid-move (a piece
 * lifted, a king already on g1 with the rook still on h1, a pawn not yet swapped for its queen, a
 * piece put down on its way to take one lifted first) is such a board.
 */
export function passesThrough(pos: Chess, moves: readonly NormalMove[], board: ArrayLike<number>): boolean {
  const probe = pos.clone();
  let before = positionCodes(probe);
  if (moves.length === 0) return between(board, before, before);
  for (const move of moves) {
    probe.play(move);
    const after = positionCodes(probe);
    if (between(board, before, after, move)) return true;
    before = after;
  }
  return false;
}

/**
 * `moves` tell the story of the board a jump of `reading.plies` plies was read at: they pass
 * through it, or are shorter than that jump (a reading shorter than the jump's reaches a board
 * from before it, moves taken back, which it need not show).
 */
export function showsReading(pos: Chess, moves: readonly NormalMove[], reading: { codes: ArrayLike<number>; plies: number }): boolean {
  return moves.length < reading.plies || passesThrough(pos, moves, reading.codes);
}

function between(board: ArrayLike<number>, before: Uint8Array, after: Uint8Array, move?: NormalMove): boolean {
  let held = 0;
  const path = move ? squaresBetween(move.from, move.to) : undefined;
  for (let sq = 0; sq < 64; sq++) {
    const shown = board[sq];
    if (shown === before[sq] || shown === after[sq]) continue;
    if (shown !== PIECE.EMPTY) {
      if (pawnBeforePromotion(shown!, before, after, sq)) continue;
      // A piece put down on its way to take a piece lifted first: gone from where it stood, on its
      // path, the square it takes on empty (seed 10033: a queen resting on g4 on her way c8-h3).
      // Not any piece on its path: a rook on a7 is no rook sliding a8-a6 (seed 6301).
      if (move && path!.has(sq) && shown === before[move.from] && board[move.from] === PIECE.EMPTY && before[move.to] !== PIECE.EMPTY && board[move.to] === PIECE.EMPTY) continue;
      return false;
    }
    if (before[sq] === after[sq] && ++held > 1) return false;
  }
  return true;
}

/** A pawn put down on its last rank, not yet swapped for the piece it promotes to. */
function pawnBeforePromotion(shown: number, before: Uint8Array, after: Uint8Array, sq: number): boolean {
  const rank = sq >> 3;
  if (shown === PIECE.WPAWN) return rank === 7 && after[sq]! >= PIECE.WROOK && after[sq]! <= PIECE.WQUEEN && before[sq] !== after[sq];
  if (shown === PIECE.BPAWN) return rank === 0 && after[sq]! >= PIECE.BROOK && after[sq]! <= PIECE.BQUEEN && before[sq] !== after[sq];
  return false;
}
