import { describe, expect, it } from 'vitest';
import { PIECE } from '../../protocols/dgt/squares.ts';
import { placementHash } from '../../daemon/reconstruction/observed-board.ts';
import { SeenBoards } from '../../daemon/reconstruction/seen-boards.ts';

const board = (pieces: Record<number, number>): Uint8Array => {
  const codes = new Uint8Array(64).fill(PIECE.EMPTY);
  for (const [sq, code] of Object.entries(pieces)) codes[Number(sq)] = code;
  return codes;
};

describe('whether a board was among those seen (SeenBoards.hasSeen)', () => {
  const kings = { 4: PIECE.WKING, 60: PIECE.BKING };
  const withQueen = board({ ...kings, 26: PIECE.WQUEEN });
  const without = board(kings);

  it('is a board noted, compared square by square', () => {
    const seen = new SeenBoards(4);
    seen.note(placementHash(withQueen), withQueen);
    expect(seen.hasSeen(withQueen.slice())).toBe(true);
    expect(seen.hasSeen(without)).toBe(false);
  });

  it('forgets the oldest beyond its limit', () => {
    const seen = new SeenBoards(1);
    seen.note(placementHash(withQueen), withQueen);
    seen.note(placementHash(without), without);
    expect(seen.hasSeen(withQueen)).toBe(false);
    expect(seen.hasSeen(without)).toBe(true);
  });
});
