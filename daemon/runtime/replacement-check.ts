import type { NormalMove } from 'chessops';
import { Chess, normalizeMove } from 'chessops/chess';
import { parseFen } from 'chessops/fen';
import { parseUci } from 'chessops/util';
import type { GameState } from '../../protocols/feed/model.ts';
import { err, type Result } from '../../protocols/result.ts';
import { planReplacement } from '../reconstruction/replacement.ts';

/**
 * The arbiter's replacement of moves checked against the game as the read model holds it (the
 * same check the engine makes when it applies the command), so a refusal is answered before the
 * decision is recorded.
 */
export function replacementOf(g: Pick<GameState, 'startFen' | 'moves'>, fromPly: number, sans: readonly string[], replaces = sans.length): Result<NormalMove[], string> {
  const fens = [g.startFen, ...g.moves.map((m) => m.fenAfter)];
  const moves: (NormalMove | null)[] = [];
  for (const [i, m] of g.moves.entries()) {
    // A break in the record: a ply with no move.
    if (m.gap) {
      moves.push(null);
      continue;
    }
    const move = parseUci(m.uci);
    const setup = parseFen(fens[i]!);
    const pos = setup.isOk ? Chess.fromSetup(setup.value) : undefined;
    if (!move || !('from' in move) || !pos?.isOk) return err(`ply ${m.ply} of the game cannot be read`);
    // Standard castling is stored king to its square (e1g1); chessops plays it king onto rook.
    const normal = normalizeMove(pos.value, move);
    if (!('from' in normal)) return err(`ply ${m.ply} of the game cannot be read`);
    moves.push(normal);
  }
  return planReplacement(fens, moves, fromPly, sans, replaces);
}
