import { describe, expect, it } from 'vitest';
import { PIECE } from '../../protocols/dgt/squares.ts';
import { boardAtPress } from '../../daemon/reconstruction/press-board.ts';

// Squares by chessops index: a1 = 0, h8 = 63.
const C2 = 10;
const E1 = 4;
const G3 = 22;
const D6 = 43;

function board(pieces: Record<number, number>): Uint8Array {
  const codes = new Uint8Array(64);
  for (const [sq, code] of Object.entries(pieces)) codes[Number(sq)] = code;
  return codes;
}

describe('the board as the press saw it', () => {
  const record = board({ [E1]: PIECE.WKING, [C2]: PIECE.WPAWN, [G3]: PIECE.WQUEEN, 60: PIECE.BKING });

  it("takes back the opponent's lift logged in the instant of the press", () => {
    const seen = board({ [E1]: PIECE.WKING, 60: PIECE.BKING, [G3]: PIECE.WQUEEN, [D6]: PIECE.BBISHOP });
    const pressed = boardAtPress({ sq: C2, was: PIECE.WPAWN, at: 1000 }, seen, record, 'black', 1000);
    expect(pressed?.[C2]).toBe(PIECE.WPAWN);
    expect(pressed?.[D6]).toBe(PIECE.BBISHOP);
  });

  it("takes back the opponent's piece put down while its square of departure is still full (two queens)", () => {
    const seen = board({ [E1]: PIECE.WQUEEN, 60: PIECE.BKING, [C2]: PIECE.WPAWN, [G3]: PIECE.WQUEEN });
    const pressed = boardAtPress({ sq: E1, was: PIECE.EMPTY, at: 990 }, seen, board({ [C2]: PIECE.WPAWN, [G3]: PIECE.WQUEEN, 60: PIECE.BKING }), 'black', 1000);
    expect(pressed?.[E1]).toBe(PIECE.EMPTY);
  });

  it("leaves the board as it is: the presser's own change, a change long before the press, a piece put down that may end a move", () => {
    const seen = board({ [E1]: PIECE.WKING, 60: PIECE.BKING, [G3]: PIECE.WQUEEN });
    expect(boardAtPress({ sq: D6, was: PIECE.BBISHOP, at: 1000 }, seen, record, 'black', 1000)).toBeUndefined();
    expect(boardAtPress({ sq: C2, was: PIECE.WPAWN, at: 500 }, seen, record, 'black', 1000)).toBeUndefined();
    const moved = board({ [E1]: PIECE.WKING, 60: PIECE.BKING, [G3]: PIECE.WQUEEN, 18: PIECE.WPAWN });
    expect(boardAtPress({ sq: 18, was: PIECE.EMPTY, at: 1000 }, moved, record, 'black', 1000)).toBeUndefined();
    expect(boardAtPress({ sq: -1, was: 0, at: 0 }, seen, record, 'black', 1000)).toBeUndefined();
  });
});
