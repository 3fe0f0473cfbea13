import type { NormalMove } from 'chessops';
import type { Chess } from 'chessops/chess';

/**
 * A game score to be played out at a table: where it starts and the moves, in chessops form
 * (castling is king-onto-own-rook, as chessops normalises it, which also covers Chess960).
 */
export interface SourceGame {
  /** Stable name for reports and corpus files, e.g. "London1851.pgn#12" or "random#42". */
  id: string;
  chess960: boolean;
  startFen: string;
  moves: NormalMove[];
  /** SAN of each move, from the start position. */
  sans: string[];
}

/** The start position of a game, fresh each call. */
export type PositionFactory = () => Chess;
