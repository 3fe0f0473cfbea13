import type { NormalMove } from 'chessops';
import { Chess } from 'chessops/chess';
import { parseFen } from 'chessops/fen';
import { parseSan } from 'chessops/san';
import { err, ok, type Result } from '../../protocols/result.ts';

/**
 * The moves of a game once the plies after `fromPly` are replaced by `sans` and the game's later
 * moves follow as they were: what an arbiter's re-ordering of an inferred span (or moves taken
 * from the score sheets) makes of the record. `fens[i]` is the position after ply i (fens[0] the
 * start), `moves[i]` the move of ply i+1. Every move must be legal where it now stands; the
 * answer says which one is not.
 */
export function planReplacement(fens: readonly string[], moves: readonly NormalMove[], fromPly: number, sans: readonly string[]): Result<NormalMove[], string> {
  if (!Number.isInteger(fromPly) || fromPly < 0 || fromPly >= fens.length) return err(`ply ${fromPly} is not in the game (it has ${fens.length - 1} plies)`);
  if (sans.length === 0) return err('no moves given');
  if (fromPly + sans.length > moves.length) return err(`${sans.length} moves from ply ${fromPly} run past the game's ${moves.length} plies`);
  const setup = parseFen(fens[fromPly]!);
  if (!setup.isOk) return err('the game position cannot be read');
  const pos = Chess.fromSetup(setup.value);
  if (!pos.isOk) return err('the game position is not legal');
  const chess = pos.value;
  const out: NormalMove[] = [];
  for (const [i, san] of sans.entries()) {
    const m = parseSan(chess, san);
    if (!m || !('from' in m)) return err(`${san} is not a legal move at ply ${fromPly + i + 1}`);
    chess.play(m);
    out.push(m);
  }
  for (const [i, m] of moves.slice(fromPly + sans.length).entries()) {
    if (!chess.isLegal(m)) return err(`the game's later move at ply ${fromPly + sans.length + i + 1} is not legal after the moves given`);
    chess.play(m);
    out.push(m);
  }
  return ok(out);
}
