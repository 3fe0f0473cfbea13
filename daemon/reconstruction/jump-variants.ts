import type { Color, NormalMove } from 'chessops';
import type { Chess } from 'chessops/chess';
import { PIECE } from '../../protocols/dgt/squares.ts';
import { searchJump, type HandMove, type JumpSearch, type JumpSearchOptions, type NodeMeter } from './jump-search.ts';
import { positionCodes } from './successors.ts';

/**
 * The jump search asked in the ways the board's evidence calls for: with one piece out and back
 * (the piece the board was seen lifted first), and which of several boards a jump reaches soonest.
 * `lifted`: squares a board seen since the return showed empty whose piece is back on them
 * (SeenBoards.emptied).
 */

/**
 * The search with one piece allowed out and back: first only a piece the board was seen lifted
 * from a square it is back on (the board saw which piece made the detour, where any piece's
 * detour would explain the same board), then any.
 */
export function withExcursion(pos: Chess, target: ArrayLike<number>, options: JumpSearchOptions, lifted: ReadonlySet<number>): JumpSearch {
  if (lifted.size > 0) {
    const found = searchJump(pos, target, { ...options, excursions: 1, excursionFrom: lifted });
    if (found.sequences.length > 0) return found;
  }
  return searchJump(pos, target, { ...options, excursions: 1 });
}

/**
 * `found` when one of its sequences moves a piece the board was seen lifted; else the sequences of
 * the same length where that piece went out and back (instead of another piece's tempo, a king's
 * step and back) come first, and those found after them.
 */
export function seenDetourFirst(pos: Chess, target: ArrayLike<number>, options: JumpSearchOptions, found: JumpSearch, lifted: ReadonlySet<number>): JumpSearch {
  const plies = found.sequences[0]?.length;
  if (plies === undefined || plies < 3 || lifted.size === 0) return found;
  if (found.sequences.some((moves) => moves.some((m) => lifted.has(m.from)))) return found;
  const detours = searchJump(pos, target, { ...options, minDepth: plies, maxDepth: plies, excursions: 1, excursionFrom: lifted });
  if (detours.sequences.length === 0) return found;
  const keep = options.keep ?? 1;
  const sequences = [...detours.sequences, ...found.sequences].slice(0, keep);
  return { ...found, sequences, more: found.more || detours.more || detours.sequences.length + found.sequences.length > keep };
}

/**
 * `boards`, the one the shortest sequence from `pos` reaches (with `turn` to move after it) first;
 * those no sequence of at most `maxPlies` reaches are left out.
 */
export function bySequenceLength(pos: Chess, boards: readonly Uint8Array[], turn: Color, maxPlies: number, budget: number, meter?: NodeMeter): Uint8Array[] {
  const options = { minDepth: 1, maxDepth: Math.max(1, maxPlies), budget, keep: 1, turnAfter: turn, ...(meter ? { meter } : {}) };
  return boards
    .map((codes) => ({ codes, plies: searchJump(pos.clone(), codes, options).sequences[0]?.length }))
    .filter((b): b is { codes: Uint8Array; plies: number } => b.plies !== undefined)
    .sort((a, b) => a.plies - b.plies)
    .map((b) => b.codes);
}

/**
 * The board a jump was read at, with a piece in a hand (`seen`; the reading took the piece of
 * `held` to be in the hand), and the board now (`target`), one move on: a piece put down on a
 * square `seen` showed empty (it was the piece in the hand), or a piece moved onto such a square
 * (the hand held the piece it took there). The sequences to `seen` that leave that hand, each with
 * that move, explain both boards in the order they were seen, whichever piece the reading took to
 * be in the hand. `plies`: the length the jump was read at.
 * - A piece put down is the reading's length, or a ply either way (the hand was the other side's).
 *   Longer would explain away a try: a piece put where no move of that length takes it (an illegal
 *   move about to be corrected, a piece misplaced) "came" there by two invented plies.
 * - A piece taken from the hand's square may have come there while the board was away, a trip
 *   (and its reply) the reading, holding another piece, did not need: up to two plies more.
 * Undefined when `target` is not such a board, when the piece put down is the reading's own put
 * back, or when the press that completed it (`options.turnAfter`) was not the moving piece's side.
 */
export function throughHand(pos: Chess, seen: ArrayLike<number>, held: number, target: ArrayLike<number>, plies: number, options: JumpSearchOptions): JumpSearch | undefined {
  const hand = handMoveBetween(seen, target);
  if (!hand || (hand.from === undefined && hand.to === held)) return undefined;
  const turnAfter: Color = hand.code <= PIECE.WQUEEN ? 'white' : 'black';
  if (options.turnAfter !== undefined && options.turnAfter === turnAfter) return undefined;
  const longest = plies + (hand.from === undefined ? 1 : 2);
  const found = searchJump(pos, seen, { ...options, minDepth: Math.max(1, plies - 1), maxDepth: longest, turnAfter, pieceInHand: true, handMove: hand });
  if (found.inHand === undefined) return { ...found, sequences: [] };
  const sequences = found.sequences.map((moves) => [...moves, { from: hand.from ?? missingAfter(pos, moves, seen), to: hand.to }]);
  return { ...found, sequences };
}

/** The move from `seen` to `target`: one piece put down on an empty square, or one piece moved to an empty square. */
function handMoveBetween(seen: ArrayLike<number>, target: ArrayLike<number>): HandMove | undefined {
  let to = -1;
  let from = -1;
  for (let sq = 0; sq < 64; sq++) {
    if (seen[sq] === target[sq]) continue;
    if (seen[sq] === PIECE.EMPTY && to < 0) to = sq;
    else if (target[sq] === PIECE.EMPTY && from < 0) from = sq;
    else return undefined;
  }
  if (to < 0) return undefined;
  const code = target[to]!;
  if (from < 0) return { to, code };
  return seen[from] === code ? { to, code, from } : undefined;
}

/** The square where the position after `moves` has a piece `seen` shows empty (the hand's). */
function missingAfter(pos: Chess, moves: readonly NormalMove[], seen: ArrayLike<number>): number {
  const after = pos.clone();
  for (const m of moves) after.play(m);
  const codes = positionCodes(after);
  for (let sq = 0; sq < 64; sq++) if (codes[sq] !== seen[sq]) return sq;
  return -1;
}
