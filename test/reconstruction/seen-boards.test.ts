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

  it('puts first, at one depth, the one passing through more of the boards seen, a capture’s two pieces up counting', () => {
    // Seed 18238 in small: Ra7 d5 e5 dxe6 (en passant) and e5 dxe5 Ra7 e6 leave one board. Read
    // as the capture was made, d5 up, then e5 up too: the second board is the other order's
    // position before e6 with its mover up, the first only the en passant's (its mover up), the
    // second the en passant's too with both its pieces up.
    const pos = fromFen('r3k3/4p3/8/8/3P4/8/8/4K3 b - - 0 1');
    const enPassant = moves('a8a7', 'd4d5', 'e7e5', 'd5e6');
    const straight = moves('e7e5', 'd4e5', 'a8a7', 'e5e6');
    const seen = seenOnly(after(pos, ['a8a7', 'd4d5', 'e7e5'], ['d5']));
    const both = after(pos, ['a8a7', 'd4d5', 'e7e5'], ['d5', 'e5']);
    seen.note(placementHash(both), both);
    expect(seen.bySeen(pos, [straight, enPassant], new Set())).toEqual([enPassant, straight]);
  });

  it('counts a board seen with the mover up for more than one with a capture’s two pieces up', () => {
    // Seed 16215 in small: Bxa6 Kf8 Bd3 Kg8 Ba6 and Be2 Kf8 Bd3 Kg8 Bxa6 leave one board. Read
    // with the d3 bishop up and a6 empty, it is the first's board before Ba6 with the mover up,
    // and the second's before Bxa6 with the bishop and the a6 pawn both up.
    const pos = fromFen('4k3/8/p7/8/8/3B4/8/4K3 w - - 0 1');
    const outAndBack = moves('d3a6', 'e8f8', 'a6d3', 'f8g8', 'd3a6');
    const takenLast = moves('d3e2', 'e8f8', 'e2d3', 'f8g8', 'd3a6');
    const seen = seenOnly(after(pos, ['d3a6', 'e8f8', 'a6d3', 'f8g8'], ['d3']));
    expect(seen.bySeen(pos, [takenLast, outAndBack], new Set())).toEqual([outAndBack, takenLast]);
  });

  it('counts a board seen once, however many positions of an order stand on it', () => {
    // Seed 20126 in small: c4 d3 h4 fxe4 Bxd3 and c4 fxe4 h4 d3 Bxd3 leave one board. Read with
    // the pawn taken on d3 lifted first, then the bishop up too: the first stands on each once.
    // The second stands on the first listing twice (before d3 with the mover up, after it with
    // the pawn up to be taken), which is no more seen than once: the search's order stays.
    const pos = fromFen('4k3/8/8/5p2/3pP3/8/2P4P/4KB2 w - - 0 1');
    const played = moves('c2c4', 'd4d3', 'h2h4', 'f5e4', 'f1d3');
    const pawnLate = moves('c2c4', 'f5e4', 'h2h4', 'd4d3', 'f1d3');
    const seen = seenOnly(after(pos, ['c2c4', 'd4d3', 'h2h4', 'f5e4'], ['d3']));
    const both = after(pos, ['c2c4', 'd4d3', 'h2h4', 'f5e4'], ['d3', 'f1']);
    seen.note(placementHash(both), both);
    expect(seen.bySeen(pos, [played, pawnLate], new Set())).toEqual([played, pawnLate]);
  });

  it('counts a capture’s two pieces up only where one of them was seen up alone', () => {
    // Seed 217 in small: Kd2 h6 exd5 read with the e4 pawn and the d5 pawn both up is a capture
    // nobody saw begin (neither seen up alone): it says nothing, and the search's order stays.
    const pos = fromFen('4k3/7p/8/3p4/4P3/8/8/4K3 w - - 0 1');
    const pawnFirst = moves('e4d5', 'h7h6', 'e1d2');
    const kingFirst = moves('e1d2', 'h7h6', 'e4d5');
    const seen = seenOnly(after(pos, ['e1d2', 'h7h6'], ['e4', 'd5']));
    expect(seen.bySeen(pos, [pawnFirst, kingFirst], new Set())).toEqual([pawnFirst, kingFirst]);
  });

  it('keeps the search’s order when the piece missing is not the next move’s', () => {
    // The same board with White's b1 knight off: no order lifts it for its next move.
    const seen = seenOnly(after(start, ['e2e4', 'e7e5'], ['b1']));
    expect(seen.bySeen(start, [knightFirst, knightLast], new Set())).toEqual([knightFirst, knightLast]);
  });
});
