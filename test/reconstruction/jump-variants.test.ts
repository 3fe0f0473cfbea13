import { Chess } from 'chessops/chess';
import { parseSan } from 'chessops/san';
import { describe, expect, it } from 'vitest';
import { bySequenceLength, withExcursion } from '../../daemon/reconstruction/jump-variants.ts';
import { positionCodes } from '../../daemon/reconstruction/successors.ts';

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
