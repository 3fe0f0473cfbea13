import type { NormalMove } from 'chessops';

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
  /** The players as the score names them; absent for generated games. */
  players?: { white: SourcePlayer; black: SourcePlayer };
  /** The score's Result tag; '*' when absent or unknown. */
  result?: SourceResult;
  /** Every PGN header of the score as written (Event, Date, Site, Round, ...). */
  tags?: Record<string, string>;
}

export type SourceResult = '1-0' | '0-1' | '1/2-1/2' | '*';

/** A player as a PGN score's headers describe them (White/WhiteTitle/WhiteElo/WhiteFideId/WhiteFed). */
export interface SourcePlayer {
  name: string;
  title: string | null;
  rating: number | null;
  federation: string | null;
  fideId: number | null;
}
