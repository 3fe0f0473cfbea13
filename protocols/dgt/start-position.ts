import { startFromBackRank, type RecognisedStart } from '../rules/start-position.ts';
import { PIECE } from './squares.ts';

export type { RecognisedStart };

const BACK_RANK_CODES: Record<number, string> = {
  [PIECE.WROOK]: 'R',
  [PIECE.WKNIGHT]: 'N',
  [PIECE.WBISHOP]: 'B',
  [PIECE.WQUEEN]: 'Q',
  [PIECE.WKING]: 'K',
};

/**
 * The Chess960 start (standard included) a DGT board shows, or undefined. `at(s)` reads the
 * board's piece code on chessops square s (0 = a1), already oriented. Runs on every board event
 * (the router's check), so it reads the pawn ranks first and bails out early.
 */
export function recogniseStart(at: (s: number) => number): RecognisedStart | undefined {
  for (let f = 0; f < 8; f++) {
    if (at(8 + f) !== PIECE.WPAWN || at(48 + f) !== PIECE.BPAWN) return undefined;
    if (at(f + 56) !== at(f) + 6) return undefined; // Black mirrors White
  }
  for (let s = 16; s < 48; s++) if (at(s) !== PIECE.EMPTY) return undefined;
  let back = '';
  for (let f = 0; f < 8; f++) {
    const ch = BACK_RANK_CODES[at(f)];
    if (!ch) return undefined;
    back += ch;
  }
  return startFromBackRank(back);
}
