import { Chess } from 'chessops/chess';
import { makeFen } from 'chessops/fen';
import { parseSan } from 'chessops/san';
import { describe, expect, it } from 'vitest';
import { PIECE } from '../../protocols/dgt/squares.ts';
import { StepBoards, type RecordEnd } from '../../daemon/reconstruction/step-boards.ts';
import { positionCodes } from '../../daemon/reconstruction/successors.ts';

// Squares by chessops index: a1 = 0, h8 = 63.
const C6 = 42;
const D4 = 27;
const E6 = 44;

function recordAfter(sans: string[]): { pos: Chess; end: RecordEnd } {
  const pos = Chess.default();
  for (const san of sans) pos.play(parseSan(pos, san)!);
  return { pos, end: { codes: positionCodes(pos), fen: makeFen(pos.toSetup()), turn: pos.turn, plies: sans.length, doubted: false } };
}

describe('where a piece read in a hand came from (StepBoards.handOrigins)', () => {
  // Black to move; the board is read with the c6 knight in a hand, then the knight lands on d4
  // taking the pawn there.
  const { pos, end } = recordAfter(['e4', 'e5', 'Nf3', 'Nc6', 'd4', 'a6']);
  const start = positionCodes(pos);
  const afterWhite = pos.clone();
  afterWhite.play(parseSan(afterWhite, 'Bc4')!);
  const read = positionCodes(afterWhite);
  read[C6] = PIECE.EMPTY;
  const landed = read.slice();
  landed[D4] = PIECE.BKNIGHT;

  it('puts the piece where it stood before the jump first, and only on squares it can reach the landing from', () => {
    const boards = new StepBoards().handOrigins({ ...end, turn: 'black' }, read, landed, 'black', start, 3);
    expect(boards.length).toBeGreaterThan(0);
    expect(boards[0]![C6]).toBe(PIECE.BKNIGHT);
    // Every board offered is the read board plus one black knight on an empty square a knight's move from d4.
    for (const b of boards) {
      const added = [...b.keys()].filter((sq) => b[sq] !== read[sq]);
      expect(added).toHaveLength(1);
      expect(b[added[0]!]).toBe(PIECE.BKNIGHT);
      expect([C6, E6, 10, 12, 17, 21, 33, 37, 42, 44]).toContain(added[0]);
    }
  });

  it('offers nothing for a landing of the other side, or when more than the landing changed', () => {
    expect(new StepBoards().handOrigins({ ...end, turn: 'white' }, read, landed, 'white', start, 3)).toEqual([]);
    const more = landed.slice();
    more[0] = PIECE.EMPTY;
    expect(new StepBoards().handOrigins({ ...end, turn: 'black' }, read, more, 'black', start, 3)).toEqual([]);
  });
});
