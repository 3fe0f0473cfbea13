import type { NormalMove } from 'chessops';
import { Chess } from 'chessops/chess';
import { parseFen } from 'chessops/fen';
import { parseSquare, parseUci } from 'chessops/util';
import { describe, expect, it } from 'vitest';
import { PIECE } from '../../protocols/dgt/squares.ts';
import { placementHash } from '../../daemon/reconstruction/observed-board.ts';
import { SeenBoards } from '../../daemon/reconstruction/seen-boards.ts';
import { positionCodes } from '../../daemon/reconstruction/successors.ts';

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

describe('the sequences of a jump ordered by the boards seen (SeenBoards.bySeen)', () => {
  const start = Chess.default();
  const fromFen = (fen: string): Chess => Chess.fromSetup(parseFen(fen).unwrap()).unwrap();
  const moves = (...ucis: string[]): NormalMove[] => ucis.map((u) => parseUci(u) as NormalMove);
  /** The board after `ucis` from `pos`, with the pieces on `lifted` off. */
  const after = (pos: Chess, ucis: string[], lifted: string[] = []): Uint8Array => {
    const probe = pos.clone();
    for (const m of moves(...ucis)) probe.play(m);
    const codes = positionCodes(probe);
    for (const sq of lifted) codes[parseSquare(sq)!] = PIECE.EMPTY;
    return codes;
  };
  /** Boards holding only `codes` as seen. */
  const seenOnly = (codes: Uint8Array): SeenBoards => {
    const seen = new SeenBoards(4);
    seen.note(placementHash(codes), codes);
    return seen;
  };
  // Two orders to one board: 1. e4 e5 2. Nf3, and 1. Nf3 e5 2. e4.
  const knightLast = moves('e2e4', 'e7e5', 'g1f3');
  const knightFirst = moves('g1f3', 'e7e5', 'e2e4');

  it('puts first the one passing through a board seen whole', () => {
    const seen = seenOnly(after(start, ['e2e4', 'e7e5']));
    expect(seen.bySeen(start, [knightFirst, knightLast], new Set())).toEqual([knightLast, knightFirst]);
  });

  it('puts first the one passing through a board seen with the next move’s piece in a hand', () => {
    // 1. e4 e5 read with the g1 knight lifted for Nf3: only the knight-last order stands there.
    const seen = seenOnly(after(start, ['e2e4', 'e7e5'], ['g1']));
    expect(seen.bySeen(start, [knightFirst, knightLast], new Set())).toEqual([knightLast, knightFirst]);
  });

  it('puts first the one passing through a board seen with the piece the next move takes lifted first', () => {
    // Kd2 h6 then exd5, read with the d5 pawn already off: the king-first order stands there.
    const pos = fromFen('4k3/7p/8/3p4/4P3/8/8/4K3 w - - 0 1');
    const pawnFirst = moves('e4d5', 'h7h6', 'e1d2');
    const kingFirst = moves('e1d2', 'h7h6', 'e4d5');
    const seen = seenOnly(after(pos, ['e1d2', 'h7h6'], ['d5']));
    expect(seen.bySeen(pos, [pawnFirst, kingFirst], new Set())).toEqual([kingFirst, pawnFirst]);
  });

  it('counts the pawn an en passant capture takes, lifted first, like any piece taken', () => {
    // e5 fxe6 and e6 fxe6 leave one board; read with Black's pawn off, each stands on it, e5 with
    // the pawn beside the landing lifted: neither goes before the other.
    const pos = fromFen('4k3/4p3/8/5P2/8/8/8/4K3 b - - 0 1');
    const doubleStep = moves('e7e5', 'f5e6');
    const singleStep = moves('e7e6', 'f5e6');
    const seen = seenOnly(after(pos, [], ['e7']));
    expect(seen.bySeen(pos, [doubleStep, singleStep], new Set())).toEqual([doubleStep, singleStep]);
  });

  it('keeps the search’s order when the piece missing is not the next move’s', () => {
    // The same board with White's b1 knight off: no order lifts it for its next move.
    const seen = seenOnly(after(start, ['e2e4', 'e7e5'], ['b1']));
    expect(seen.bySeen(start, [knightFirst, knightLast], new Set())).toEqual([knightFirst, knightLast]);
  });
});
