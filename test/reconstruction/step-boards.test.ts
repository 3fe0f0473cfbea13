import { Chess } from 'chessops/chess';
import { makeFen, parseFen } from 'chessops/fen';
import { parseSan } from 'chessops/san';
import { describe, expect, it } from 'vitest';
import { PIECE } from '../../protocols/dgt/squares.ts';
import { StepBoards, breakPosition, type RecordEnd } from '../../daemon/reconstruction/step-boards.ts';
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

/** The record's end after `record`, and the board after `outage` played on from it, as squares. */
function outage(record: string[], played: string[]): { end: RecordEnd; board: Uint8Array } {
  const { pos, end } = recordAfter(record);
  for (const san of played) pos.play(parseSan(pos, san)!);
  return { end, board: positionCodes(pos) };
}

// More squares by chessops index.
const C3 = 18;
const C4 = 26;
const D5 = 35;
const E4 = 28;
const B5 = 33;

describe('the board before a capture read with the taken piece already off (StepBoards.capturedFirst)', () => {
  // The board went away after 2...Nf6 and came back after 3.a3 Bg4 4.h3 with Black lifting the
  // e4 pawn to take it: dxe4 is then seen.
  const { end, board } = outage(['e4', 'd5', 'Nc3', 'Nf6'], ['a3', 'Bg4', 'h3']);
  const read = board.slice();
  read[E4] = PIECE.EMPTY;
  const taken = read.slice();
  taken[D5] = PIECE.EMPTY;
  taken[E4] = PIECE.BPAWN;

  it("puts the record's piece back on the square the capture landed on, and gives the capture", () => {
    const found = new StepBoards().capturedFirst(end, read, taken, 'black');
    expect(found?.codes[E4]).toBe(PIECE.WPAWN);
    expect(found && [found.move.move.from, found.move.move.to]).toEqual([D5, E4]);
    expect(found?.note).toContain('white pawn of e4');
  });

  it('gives nothing for the other side, or when the landing square held nothing of the opponent in the record', () => {
    expect(new StepBoards().capturedFirst(end, read, taken, 'white')).toBeUndefined();
    const quiet = board.slice();
    quiet[D5] = PIECE.EMPTY;
    quiet[D5 - 8] = PIECE.BPAWN;
    expect(new StepBoards().capturedFirst(end, board, quiet, 'black')).toBeUndefined();
  });
});

describe('the board before a move whose piece was in a hand and had moved while the board was away (StepBoards.beforeHand)', () => {
  it('takes the one square the landing is legal from when the record never had the piece there', () => {
    // 3.a3 c4 4.h3 while away; read with the c4 pawn in a hand, then c3 is seen.
    const { end, board } = outage(['e4', 'c5', 'Nf3', 'Nc6'], ['a3', 'c4', 'h3']);
    const read = board.slice();
    read[C4] = PIECE.EMPTY;
    const landed = read.slice();
    landed[C3] = PIECE.BPAWN;
    const found = new StepBoards().beforeHand(end, read, landed, 'black');
    expect(found?.codes[C4]).toBe(PIECE.BPAWN);
    expect(found && [found.move.move.from, found.move.move.to]).toEqual([C4, C3]);
    expect(found?.note).toContain('the only square it can have come from');
  });

  it('takes the square the board saw the piece lifted from, and invents none when that square cannot reach the landing', () => {
    const { end, board } = outage(['e4', 'c5', 'Nf3', 'Nc6'], ['a3', 'c4', 'h3']);
    const H7 = 55;
    // The board came back whole and the c4 pawn was then seen lifted: c4 is where it came from.
    const lifted = board.slice();
    lifted[C4] = PIECE.EMPTY;
    const landed = lifted.slice();
    landed[C3] = PIECE.BPAWN;
    const watched = new StepBoards();
    watched.note(board);
    watched.note(lifted);
    expect(watched.beforeHand(end, watched.list[1]!, landed, 'black')?.move.move.from).toBe(C4);
    // Read with the c4 pawn in a hand, and then the h7 pawn seen lifted: the pawn put on c3 may be
    // either, and the h7 pawn cannot reach c3 (an illegal move, or the other pawn): nothing is told.
    const read = board.slice();
    read[C4] = PIECE.EMPTY;
    const h7Lifted = read.slice();
    h7Lifted[H7] = PIECE.EMPTY;
    const put = h7Lifted.slice();
    put[C3] = PIECE.BPAWN;
    const both = new StepBoards();
    both.note(read);
    both.note(h7Lifted);
    expect(both.beforeHand(end, both.list[1]!, put, 'black')).toBeUndefined();
  });

  it('gives the move when several squares fit and its SAN is the same from each, the squares named (a knight landing on b5)', () => {
    // 3.a3 Nd4 4.h3 while away; read with the knight in a hand, then put on b5: c3, d4 and d6 all
    // reach it, and from each the move is Nb5.
    const { end, board } = outage(['e4', 'e5', 'Nf3', 'Nc6'], ['a3', 'Nd4', 'h3']);
    const read = board.slice();
    read[D4] = PIECE.EMPTY;
    const landed = read.slice();
    landed[B5] = PIECE.BKNIGHT;
    const found = new StepBoards().beforeHand(end, read, landed, 'black');
    expect(found && [found.move.move.from, found.move.move.to]).toEqual([C3, B5]);
    expect(found?.codes[C3]).toBe(PIECE.BKNIGHT);
    expect(found?.note).toContain('one of c3, d4, d6, which the board cannot tell, and Nb5 is the same move from each');
    // With c3 and d6 taken by pawns, d4 is the only square left.
    const D6 = 43;
    const narrowed = (codes: Uint8Array) => {
      const c = codes.slice();
      c[C3] = PIECE.WPAWN;
      c[D6] = PIECE.BPAWN;
      return c;
    };
    expect(new StepBoards().beforeHand(end, narrowed(read), narrowed(landed), 'black')?.note).toContain('the only square it can have come from');
  });

  it('tells nothing when the squares that fit give different moves (a pawn taking on d5 from c4 or e4)', () => {
    // 2.Nf3 d5 3.a3 h6 while away, and the c- and e-pawns gone on (the board read with both
    // squares empty, one of them in a hand); a white pawn then takes on d5. From c4 it is cxd5,
    // from e4 exd5: the board cannot tell which, and nothing is told.
    const E2 = 12;
    const C2 = 10;
    const { end, board } = outage(['d4', 'e6'], ['Nf3', 'd5', 'a3', 'h6']);
    const read = board.slice();
    read[E2] = PIECE.EMPTY;
    read[C2] = PIECE.EMPTY;
    read[E4] = PIECE.EMPTY;
    read[C4] = PIECE.EMPTY;
    const landed = read.slice();
    landed[D5] = PIECE.WPAWN;
    expect(new StepBoards().beforeHand(end, read, landed, 'white')).toBeUndefined();
  });
  it('tells nothing for a piece put down on the last rank that a pawn held in the hand may have promoted to', () => {
    // 1.c7 Kg7 while away; read with the c7 pawn in a hand, then a white queen is put on d8 taking
    // the rook. A queen from d5, b6 or f6 would be Qxd8 from each; the pawn's promotion is cxd8=Q.
    const pos = Chess.fromSetup(parseFen('3r2k1/8/2P5/8/8/8/8/4K3 w - - 0 1').unwrap()).unwrap();
    const end: RecordEnd = { codes: positionCodes(pos), fen: makeFen(pos.toSetup()), turn: 'white', plies: 0, doubted: false };
    for (const san of ['c7', 'Kg7']) pos.play(parseSan(pos, san)!);
    const C7 = 50;
    const D8 = 59;
    const read = positionCodes(pos);
    read[C7] = PIECE.EMPTY;
    const landed = read.slice();
    landed[D8] = PIECE.WQUEEN;
    expect(new StepBoards().beforeHand(end, read, landed, 'white')).toBeUndefined();
  });
});

describe('an en passant capture right after a break (StepBoards.moveBetween)', () => {
  // The board went away after 2.e5 and came back after 2...d5, Black's double step: the break's
  // board knows no move before it, so exd6 is legal from it only with d6 as its en passant square.
  const { end, board } = outage(['e4', 'a6', 'e5'], ['d5']);
  const E5 = 36;
  const D6 = 43;
  const D7 = 51;
  const captured = board.slice();
  captured[E5] = PIECE.EMPTY;
  captured[D5] = PIECE.EMPTY;
  captured[D6] = PIECE.WPAWN;

  it('gives the capture, with the square behind the pawn that went two squares', () => {
    const found = new StepBoards().moveBetween(end, board, captured, 'white');
    expect(found && [found.move.from, found.move.to, found.ep]).toEqual([E5, D6, D6]);
  });

  it('gives nothing when the pawn taken cannot have just gone two squares (its start square full)', () => {
    const blocked = (codes: Uint8Array) => {
      const c = codes.slice();
      c[D7] = PIECE.BKNIGHT;
      return c;
    };
    expect(new StepBoards().moveBetween(end, blocked(board), blocked(captured), 'white')).toBeUndefined();
  });
});

describe("a break's castling rights (breakPosition)", () => {
  // Every right stands in the record (both sides developed, nobody castled); during the outage
  // White's king went to d1 and Black's a-rook to b8.
  const { end } = recordAfter(['e4', 'e5', 'Nf3', 'Nc6', 'Bc4', 'Bc5', 'd3', 'd6', 'Be3', 'Be6', 'Nc3', 'Nf6', 'Qd2', 'Qd7']);
  const moved = Chess.fromSetup(parseFen('1r2k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R2K3R w KQkq - 0 8').unwrap()).unwrap();
  const pos = breakPosition(end, positionCodes(moved), 'white')!;

  it('keeps a right only while its king and its rook stand where they did', () => {
    expect(end.fen.split(' ')[2]).toBe('KQkq');
    expect(makeFen(pos.toSetup()).split(' ')[2]).toBe('k');
  });

  it('lets no king castle from where it went, nor with a rook that moved', () => {
    const castlings = [...pos.allDests()].flatMap(([from, to]) =>
      [...to].filter((sq) => pos.board.rook.has(sq) && pos.board.get(sq)?.color === pos.board.get(from)?.color).map((sq) => `${from}-${sq}`),
    );
    expect(castlings).toEqual([]);
    pos.turn = 'black';
    const black = [...pos.allDests()].flatMap(([from, to]) => [...to].filter((sq) => pos.board.rook.has(sq) && pos.board.get(sq)?.color === 'black').map((sq) => `${from}-${sq}`));
    // e8 castles short with h8 (chessops writes castling king-onto-rook), never long with b8.
    expect(black).toEqual(['60-63']);
  });
});

describe('a piece moved in full where no legal move takes it (StepBoards.displaced)', () => {
  // White to move after 1 e4 e5. Squares by chessops index: b1 = 1, b3 = 17, d2 = 11, d4 = 27, d7 = 51, d6 = 43.
  const { end } = recordAfter(['e4', 'e5']);
  const moved = (from: number, to: number): Uint8Array => {
    const codes = end.codes.slice();
    codes[to] = codes[from]!;
    codes[from] = PIECE.EMPTY;
    return codes;
  };

  it("names the squares of the side to move's piece put where it cannot go", () => {
    expect(new StepBoards().displaced(end, moved(1, 17))).toEqual({ from: 1, to: 17 });
  });

  it("is not the other side's piece, nor a piece put on its own side's, nor a board three squares off", () => {
    expect(new StepBoards().displaced(end, moved(51, 43))).toBeUndefined();
    const onOwn = end.codes.slice();
    onOwn[11] = PIECE.WKNIGHT;
    onOwn[1] = PIECE.EMPTY;
    expect(new StepBoards().displaced(end, onOwn)).toBeUndefined();
    const three = moved(1, 17);
    three[27] = PIECE.WPAWN;
    expect(new StepBoards().displaced(end, three)).toBeUndefined();
  });
});

describe('the boards kept while out of step (StepBoards.note)', () => {
  // Boards alternate between two readings of a square being adjusted, after a first board the
  // record went out of step at (a board read whole at a return).
  const first = new Uint8Array(64).fill(PIECE.EMPTY);
  first[0] = PIECE.WROOK;
  const adjusted = (n: number): Uint8Array => {
    const b = first.slice();
    b[8 + (n % 2)] = PIECE.WPAWN;
    return b;
  };

  it('keeps the first board however many come after it, and the latest ones', () => {
    const boards = new StepBoards();
    boards.note(first);
    for (let n = 0; n < 40; n++) boards.note(adjusted(n));
    const list = boards.list;
    expect(list[0]).toEqual(first);
    expect(list[list.length - 1]).toEqual(adjusted(39));
    expect(list.length).toBeLessThan(40);
  });

  it('keeps no repeat of the last board', () => {
    const boards = new StepBoards();
    boards.note(first);
    boards.note(first.slice());
    expect(boards.list.length).toBe(1);
  });
});
