import type { Color } from 'chessops';
import type { Chess } from 'chessops/chess';
import { searchJump, type JumpSearch, type JumpSearchOptions, type NodeMeter } from './jump-search.ts';

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
