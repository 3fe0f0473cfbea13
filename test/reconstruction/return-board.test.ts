import { Chess } from 'chessops/chess';
import { parseSquare, type NormalMove } from 'chessops';
import { parseSan } from 'chessops/san';
import { describe, expect, it } from 'vitest';
import { passesThrough } from '../../daemon/reconstruction/return-board.ts';
import { positionCodes } from '../../daemon/reconstruction/successors.ts';
import { PIECE } from '../../protocols/dgt/squares.ts';

function line(pos: Chess, sans: string[]): { moves: NormalMove[]; end: Chess } {
  const end = pos.clone();
  const moves = sans.map((san) => {
    const move = parseSan(end, san) as NormalMove;
    end.play(move);
    return move;
  });
  return { moves, end };
}

function boardAfter(pos: Chess, sans: string[], edit: (codes: Uint8Array) => void = () => {}): Uint8Array {
  const codes = positionCodes(line(pos, sans).end);
  edit(codes);
  return codes;
}

const sq = (name: string): number => parseSquare(name)!;

describe('a sequence passes through the board read at the return', () => {
  const start = Chess.default();

  it('when the board is one of its positions, the first and the last included', () => {
    const { moves } = line(start, ['e4', 'e5', 'Nf3', 'Nc6']);
    expect(passesThrough(start, moves, boardAfter(start, ['e4', 'e5']))).toBe(true);
    expect(passesThrough(start, moves, boardAfter(start, []))).toBe(true);
    expect(passesThrough(start, moves, boardAfter(start, ['e4', 'e5', 'Nf3', 'Nc6']))).toBe(true);
  });

  it('when a piece rests on its way to take a piece lifted first, and not any piece resting on a path', () => {
    const before = ['e4', 'e5', 'Qh5', 'Nc6'];
    const { moves } = line(start, [...before, 'Qxf7+']);
    // The f7 pawn lifted to be taken, the queen put down on g6 on her way h5-f7.
    const resting = boardAfter(start, before, (c) => ((c[sq('f7')] = PIECE.EMPTY), (c[sq('h5')] = PIECE.EMPTY), (c[sq('g6')] = PIECE.WQUEEN)));
    expect(passesThrough(start, moves, resting)).toBe(true);
    // The pawn still on f7: the queen on g6 is no capture under way.
    const notLifted = boardAfter(start, before, (c) => ((c[sq('h5')] = PIECE.EMPTY), (c[sq('g6')] = PIECE.WQUEEN)));
    expect(passesThrough(start, moves, notLifted)).toBe(false);
    // A quiet move's path: the queen on f3 is no queen going h5-e2.
    const quiet = line(start, [...before, 'Qe2']);
    const onQuietPath = boardAfter(start, before, (c) => ((c[sq('h5')] = PIECE.EMPTY), (c[sq('f3')] = PIECE.WQUEEN)));
    expect(passesThrough(start, quiet.moves, onQuietPath)).toBe(false);
  });

  it('when the board was read with a piece in a hand, or mid-move', () => {
    const { moves } = line(start, ['e4', 'e5', 'Nf3', 'Nc6']);
    // A pawn nobody is moving held in a hand.
    expect(
      passesThrough(
        start,
        moves,
        boardAfter(start, ['e4', 'e5'], (c) => (c[sq('a2')] = PIECE.EMPTY)),
      ),
    ).toBe(true);
    // The knight lifted from g1, not yet on f3; and with a pawn in a hand as well.
    const lifted = boardAfter(start, ['e4', 'e5'], (c) => (c[sq('g1')] = PIECE.EMPTY));
    expect(passesThrough(start, moves, lifted)).toBe(true);
    lifted[sq('a2')] = PIECE.EMPTY;
    expect(passesThrough(start, moves, lifted)).toBe(true);
    // Two pieces the moves do not touch, missing: no hand holds both.
    expect(
      passesThrough(
        start,
        moves,
        boardAfter(start, ['e4', 'e5'], (c) => ((c[sq('a2')] = PIECE.EMPTY), (c[sq('h7')] = PIECE.EMPTY))),
      ),
    ).toBe(false);
  });

  it('when castling is half made, or a pawn not yet swapped for its queen', () => {
    const opening = line(start, ['e4', 'e5', 'Nf3', 'Nc6', 'Bc4', 'Bc5']).end;
    const castles = line(opening, ['O-O']).moves;
    // The king on g1, the rook still on h1.
    const halfway = boardAfter(opening, [], (c) => ((c[sq('e1')] = PIECE.EMPTY), (c[sq('g1')] = PIECE.WKING)));
    expect(passesThrough(opening, castles, halfway)).toBe(true);
    const setup = line(start, ['b4', 'a5', 'bxa5', 'b6', 'axb6', 'Ra7', 'bxa7', 'Nc6']).end;
    const promotion = line(setup, ['a8=Q']).moves;
    expect(
      passesThrough(
        setup,
        promotion,
        boardAfter(setup, ['a8=Q'], (c) => (c[sq('a8')] = PIECE.WPAWN)),
      ),
    ).toBe(true);
    // A pawn on the last rank where no promotion is made is no such board.
    expect(
      passesThrough(
        setup,
        line(setup, ['Nf3']).moves,
        boardAfter(setup, ['Nf3'], (c) => ((c[sq('a7')] = PIECE.EMPTY), (c[sq('a8')] = PIECE.WPAWN))),
      ),
    ).toBe(false);
  });

  it('not when the same pawn tells another story (b6xc7 where the board showed it on c6 after taking en passant)', () => {
    const shown = boardAfter(start, ['b4', 'h6', 'b5', 'c5', 'bxc6']);
    const played = line(start, ['b4', 'h6', 'b5', 'c5', 'bxc6', 'h5', 'c7']).moves;
    const story = line(start, ['b4', 'h6', 'b5', 'h5', 'b6', 'a6', 'bxc7']).moves;
    expect(passesThrough(start, played, shown)).toBe(true);
    expect(passesThrough(start, story, shown)).toBe(false);
  });
});
