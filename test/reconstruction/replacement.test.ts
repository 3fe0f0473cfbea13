import { Chess } from 'chessops/chess';
import { makeFen, parseFen } from 'chessops/fen';
import { makeSan, parseSan } from 'chessops/san';
import type { NormalMove } from 'chessops';
import { describe, expect, it } from 'vitest';
import { planReplacement } from '../../daemon/reconstruction/replacement.ts';

/** The FEN after each ply (the start first) and the moves of a game played by SAN from `fen`. */
function game(fen: string, sans: readonly string[]): { fens: string[]; moves: NormalMove[] } {
  const pos = Chess.fromSetup(parseFen(fen).unwrap()).unwrap();
  const fens = [makeFen(pos.toSetup())];
  const moves: NormalMove[] = [];
  for (const san of sans) {
    const m = parseSan(pos, san);
    if (!m || !('from' in m)) throw new Error(`${san} is not legal`);
    pos.play(m);
    moves.push(m);
    fens.push(makeFen(pos.toSetup()));
  }
  return { fens, moves };
}

function sansOf(fen: string, moves: readonly NormalMove[]): string[] {
  const pos = Chess.fromSetup(parseFen(fen).unwrap()).unwrap();
  return moves.map((m) => {
    const san = makeSan(pos, m);
    pos.play(m);
    return san;
  });
}

// Black's c7 and e7 pawns, White's queen: two readings of five plies, the queen taking one pawn or
// the other, then a black pawn takes her on d6. The board after that capture is the same either way.
const START = 'k7/2p1p3/8/8/8/8/8/K2Q4 w - - 0 1';
const TAKES_C = ['Qd4', 'c5', 'Qxc5', 'Kb7', 'Qd6', 'exd6'];
const TAKES_E = ['Qd4', 'e5', 'Qxe5', 'Kb7', 'Qd6'];

describe('planReplacement', () => {
  it('keeps a later move by its landing when the moves given leave another piece of its kind to make it', () => {
    const { fens, moves } = game(START, TAKES_C);
    const planned = planReplacement(fens, moves, 0, TAKES_E, 5);
    expect(planned.ok).toBe(true);
    if (!planned.ok) return;
    expect(sansOf(START, planned.value)).toEqual([...TAKES_E, 'cxd6']);
    // The board after it is the one the recorded move reached.
    const after = game(START, sansOf(START, planned.value)).fens.at(-1)!;
    expect(after.split(' ').slice(0, 2)).toEqual(fens.at(-1)!.split(' ').slice(0, 2));
  });

  it('still refuses a later move no piece of its kind can make to the same board', () => {
    const { fens, moves } = game(START, TAKES_C);
    // The queen goes on to e6 instead: nothing takes on d6, and e7xd6 is not legal either.
    const planned = planReplacement(fens, moves, 0, ['Qd4', 'e5', 'Qxe5', 'Kb7', 'Qe6'], 5);
    expect(planned.ok).toBe(false);
    if (planned.ok) return;
    expect(planned.error).toBe("the game's later move at ply 6 is not legal after the moves given");
  });
});
