import { Chess } from 'chessops/chess';
import { parseFen } from 'chessops/fen';
import { parseSquare } from 'chessops';
import { parseSan } from 'chessops/san';
import { describe, expect, it } from 'vitest';
import { searchJump } from '../../daemon/reconstruction/jump-search.ts';
import { bySequenceLength, seenDetourFirst, takenFromHand, throughHand, withExcursion } from '../../daemon/reconstruction/jump-variants.ts';
import { positionCodes } from '../../daemon/reconstruction/successors.ts';
import { sanLine } from './harness.ts';

const BUDGET = 200_000;

function after(pos: Chess, sans: string[]): Chess {
  const p = pos.clone();
  for (const san of sans) p.play(parseSan(p, san)!);
  return p;
}

describe('the jump search asked as the evidence calls for', () => {
  const start = after(Chess.default(), ['e4', 'e5']);
  // Black's two knight moves show; White's tempo left no trace but the f1 square seen empty.
  const target = positionCodes(after(start, ['Bc4', 'Nc6', 'Bf1', 'Nf6']));
  const options = { minDepth: 4, maxDepth: 4, budget: BUDGET, keep: 64, turnAfter: 'white' as const };
  const F1 = 5;

  it('lets the piece seen lifted make the detour, and any piece when none was', () => {
    const seen = withExcursion(start.clone(), target, options, new Set([F1]));
    expect(seen.sequences.length).toBeGreaterThan(0);
    expect(seen.sequences.every((moves) => moves.some((m) => m.from === F1))).toBe(true);
    const any = withExcursion(start.clone(), target, options, new Set());
    expect(any.sequences.some((moves) => moves.every((m) => m.from !== F1))).toBe(true);
  });

  it('orders boards by the shortest sequence reaching them, leaving out those beyond the plies allowed', () => {
    const near = positionCodes(after(start, ['Nf3', 'Nc6']));
    const far = positionCodes(after(start, ['Nf3', 'Nc6', 'Nc3', 'Nf6']));
    const unreachable = positionCodes(Chess.default());
    const ordered = bySequenceLength(start, [far, unreachable, near], 'white', 4, BUDGET);
    expect(ordered).toEqual([near, far]);
    expect(bySequenceLength(start, [far, near], 'white', 2, BUDGET)).toEqual([near]);
  });
});

/** `codes` with `square` emptied: the board read while that square's piece was in a hand. */
function without(codes: Uint8Array, square: string): Uint8Array {
  const out = codes.slice();
  out[parseSquare(square)!] = 0;
  return out;
}

/** `codes` with the piece of `from` moved to `to` (nothing else changed). */
function moved(codes: Uint8Array, from: string, to: string): Uint8Array {
  const out = codes.slice();
  out[parseSquare(to)!] = out[parseSquare(from)!]!;
  out[parseSquare(from)!] = 0;
  return out;
}

describe('a jump read through a hand, and the move seen after it', () => {
  const options = { budget: BUDGET, keep: 64, maxDepth: 8 };

  it("takes the piece put down for the hand's, wherever the reading took the hand to be: every sequence brings that piece within a move of its square", () => {
    const start = Chess.default();
    // White's bishop lifted on its way to b5 when the board was read after Nf3 Nc6 Bc4 Nf6.
    const seen = without(positionCodes(after(start, ['e4', 'e5', 'Nf3', 'Nc6', 'Bc4', 'Nf6'])), 'c4');
    const target = seen.slice();
    target[parseSquare('b5')!] = positionCodes(start)[parseSquare('f1')!]!;
    const found = throughHand(start, seen, parseSquare('g1')!, target, 6, options)!;
    const read = found.sequences.map((moves) => sanLine(start, moves));
    expect(read).toContain('e4 e5 Nf3 Nc6 Bc4 Nf6 Bb5');
    expect(found.sequences.every((moves) => moves.at(-1)!.to === parseSquare('b5'))).toBe(true);
    expect(read.every((line) => line.endsWith('Bb5'))).toBe(true);
  });

  it('takes a piece moved onto the square the hand emptied for the capture of the piece the hand held, en passant too', () => {
    const start = Chess.default();
    // Black's d-pawn, taken en passant, lifted first. A single step then exd6 leaves the same boards.
    const seen = without(positionCodes(after(start, ['e4', 'Nf6', 'e5', 'd5'])), 'd5');
    const found = throughHand(start, seen, parseSquare('f6')!, moved(seen, 'e5', 'd6'), 4, options)!;
    const read = found.sequences.map((moves) => sanLine(start, moves));
    expect(read).toContain('e4 Nf6 e5 d5 exd6');
    expect(read).toContain('e4 Nf6 e5 d6 exd6');
    expect(read.every((line) => line.endsWith('exd6'))).toBe(true);
  });

  it('takes a pawn put down on the square behind the pawn it takes en passant, before that pawn is lifted, for the hand', () => {
    const start = Chess.default();
    const seen = without(positionCodes(after(start, ['e4', 'Nf6', 'e5', 'd5'])), 'e5');
    const target = seen.slice();
    target[parseSquare('d6')!] = positionCodes(start)[parseSquare('e2')!]!;
    const found = throughHand(start, seen, parseSquare('f6')!, target, 4, options)!;
    expect(found.sequences.map((moves) => sanLine(start, moves))).toEqual(['e4 Nf6 e5 d5 exd6']);
  });

  it('reads a board read exactly as one a piece was held over when that piece lands taking, and a move onto an empty square from it as no hand', () => {
    const start = Chess.default();
    // After e4 d5 c4 Nf6, White's c-pawn lifted to take on d5: a reading of four plies with no hand.
    const read = without(positionCodes(after(start, ['e4', 'd5', 'c4', 'Nf6'])), 'c4');
    const target = read.slice();
    target[parseSquare('d5')!] = positionCodes(start)[parseSquare('c2')!]!;
    const found = throughHand(start, read, undefined, target, 4, options)!;
    expect(found.sequences.map((moves) => sanLine(start, moves))).toContain('e4 d5 c4 Nf6 cxd5');
    expect(found.sequences.every((moves) => moves.at(-1)!.to === parseSquare('d5'))).toBe(true);
    expect(throughHand(start, read, undefined, moved(read, 'f1', 'b5'), 4, options)).toBeUndefined();
  });

  it('reads a piece put down where play went on from two plies longer than the reading, and a try only a ply longer', () => {
    const start = Chess.default();
    // Read as e4 d6 Qf3 with Black's bishop lifted from c8; it lands taking on e4, which no move
    // from c8 gives. It had gone to f5 while White's queen went to f3 in two moves.
    const seen = without(positionCodes(after(start, ['e4', 'd6', 'Qf3'])), 'c8');
    const target = seen.slice();
    target[parseSquare('e4')!] = positionCodes(start)[parseSquare('c8')!]!;
    expect(throughHand(start, seen, parseSquare('c8')!, target, 3, options)!.sequences).toEqual([]);
    const playedOn = throughHand(start, seen, parseSquare('c8')!, target, 3, options, true)!;
    const read = playedOn.sequences.map((moves) => sanLine(start, moves));
    expect(read).toContain('e4 d6 Qg4 Bf5 Qf3 Bxe4');
    expect(read.every((line) => line.split(' ').length === 6 && line.endsWith('Bxe4'))).toBe(true);
  });

  it('is no reading for a piece put back where the reading held it, nor for a board more than one move on', () => {
    const start = Chess.default();
    const whole = positionCodes(after(start, ['e4', 'e5', 'Nf3', 'Nc6']));
    const seen = without(whole, 'f3');
    expect(throughHand(start, seen, parseSquare('f3')!, whole, 4, options)).toBeUndefined();
    const twoOn = moved(moved(seen, 'c6', 'd4'), 'e4', 'd5');
    expect(throughHand(start, seen, parseSquare('f3')!, twoOn, 4, options)).toBeUndefined();
  });
});

describe('a jump read exactly and a move to an empty square after it, read with the piece taken there in a hand (takenFromHand)', () => {
  const options = { budget: BUDGET, keep: 64, maxDepth: 8 };
  const start = Chess.fromSetup(parseFen('rn2k1n1/pbpp4/7r/1Qb1pPpp/3q4/RP3PP1/3N3P/2B1KBNR w Kq - 0 15').unwrap()).unwrap();
  // Read exactly: Black's queen taken on e4. Played: she went to e3 and was lifted to be taken.
  const seen = positionCodes(after(start, ['Qxc5', 'Qe4+', 'Nxe4', 'a6']));

  it("finds the readings as long as the record's that take a piece of the opponent's where the move landed", () => {
    const found = takenFromHand(start, seen, moved(seen, 'c5', 'e3'), 4, options)!;
    const read = found.sequences.map((moves) => sanLine(start, moves));
    expect(read).toContain('Qxc5 a6 Ne4 Qe3+ Qxe3');
    expect(read.every((line) => line.split(' ').length === 5 && line.endsWith('Qxe3'))).toBe(true);
  });

  it('finds none where no sequence of that length brings such a piece there, and is no reading for a capture', () => {
    expect(takenFromHand(start, seen, moved(seen, 'c5', 'c6'), 4, options)!.sequences).toEqual([]);
    expect(takenFromHand(start, seen, moved(seen, 'c5', 'c7'), 4, options)).toBeUndefined();
  });
});

describe('the sequences where the piece seen lifted went out and back, first (seenDetourFirst)', () => {
  const start = after(Chess.default(), ['e4', 'e5']);
  // White's knight reached f3 in one move or three; the board saw f1 empty once: the bishop's
  // detour (Bc4 … Bf1) is the likelier third white move. The search with a detour finds the plain
  // knight routes too.
  const target = positionCodes(after(start, ['Nf3', 'Nc6', 'Bc4', 'Nf6', 'Bf1']));
  const options = { minDepth: 5, maxDepth: 5, budget: BUDGET, keep: 64 };
  const F1 = 5;
  const plain = searchJump(start.clone(), target, options);
  const found = seenDetourFirst(start.clone(), target, options, plain, new Set([F1]));
  const keyOf = (moves: { from: number; to: number }[]): string => moves.map((m) => `${m.from}-${m.to}`).join(' ');

  it('puts the detours first and offers every sequence once', () => {
    expect(plain.sequences.length).toBeGreaterThan(0);
    expect(plain.sequences.some((moves) => moves.some((m) => m.from === F1))).toBe(false);
    expect(found.sequences[0]!.some((m) => m.from === F1)).toBe(true);
    const keys = found.sequences.map(keyOf);
    expect(new Set(keys).size).toBe(keys.length);
    for (const moves of plain.sequences) expect(keys).toContain(keyOf(moves));
  });

  it('says more only when more sequences fit than are kept', () => {
    expect(found.sequences.length).toBeLessThan(options.keep);
    expect(found.more).toBe(false);
    // Kept exactly as many as fit: the plain ones, found twice, are no more.
    const exactly = { ...options, keep: new Set(found.sequences.map(keyOf)).size };
    const again = seenDetourFirst(start.clone(), target, exactly, searchJump(start.clone(), target, exactly), new Set([F1]));
    expect(again.sequences.map(keyOf)).toEqual(found.sequences.map(keyOf));
    expect(again.more).toBe(false);
  });
});
