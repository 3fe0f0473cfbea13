import { Chess } from 'chessops/chess';
import { makeFen, parseFen } from 'chessops/fen';
import { describe, expect, it } from 'vitest';
import { fenOf } from '../../../daemon/reconstruction/fen.ts';
import { positionCodes } from '../../../daemon/reconstruction/successors.ts';
import { randomGame } from '../../../daemon/simulation/games/random.ts';

describe('fenOf', () => {
  it('writes what chessops makeFen writes, over whole random games (standard and Chess960)', () => {
    for (let seed = 0; seed < 20; seed++) {
      const g = randomGame(seed, { chess960: seed % 2 === 1 });
      const pos = Chess.fromSetup(parseFen(g.startFen).unwrap()).unwrap();
      for (const m of g.moves) {
        pos.play(m);
        expect(fenOf(pos, positionCodes(pos))).toBe(makeFen(pos.toSetup()));
      }
    }
  });
});
