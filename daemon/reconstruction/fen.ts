import type { Chess } from 'chessops/chess';
import { makeCastlingFen, makeFen } from 'chessops/fen';

const LETTERS = ' PRNBKQprnbkq';

/**
 * The FEN of a position whose board codes are already at hand. chessops' makeFen rebuilds the
 * board part piece by piece, which was the engine's largest per-move cost; the board part is
 * written here from the codes, everything else still comes from chessops.
 */
export function fenOf(pos: Chess, codes: Uint8Array): string {
  // A legal en-passant square needs chessops' own judgement (toSetup keeps only legal ones).
  if (pos.epSquare !== undefined) return makeFen(pos.toSetup());
  const castling = makeCastlingFen(pos.board, pos.castles.castlingRights);
  return `${placementOf(codes)} ${pos.turn[0]} ${castling} - ${Math.min(pos.halfmoves, 9999)} ${Math.max(1, Math.min(pos.fullmoves, 9999))}`;
}

/** The board part of a FEN from board codes (index: chessops square), whatever they show. */
export function placementOf(codes: ArrayLike<number>): string {
  let board = '';
  for (let rank = 7; rank >= 0; rank--) {
    let empty = 0;
    for (let file = 0; file < 8; file++) {
      const code = codes[rank * 8 + file]!;
      if (code === 0) empty++;
      else {
        if (empty > 0) board += empty;
        empty = 0;
        board += LETTERS[code] ?? '';
      }
    }
    if (empty > 0) board += empty;
    if (rank > 0) board += '/';
  }
  return board;
}

/** The placement and side to move of a FEN: the position a break goes on from (move counters and rights aside). */
export function placementAndTurn(fen: string): string {
  return fen.split(' ').slice(0, 2).join(' ');
}
