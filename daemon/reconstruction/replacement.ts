import type { NormalMove } from 'chessops';
import { Chess } from 'chessops/chess';
import { makeFen, parseFen } from 'chessops/fen';
import { makeSan, parseSan } from 'chessops/san';
import { err, ok, type Result } from '../../protocols/result.ts';
import { placementAndTurn } from './fen.ts';

/**
 * The moves of a game once the `replaces` plies after `fromPly` are replaced by `sans` and the
 * game's later moves follow as they were: what an arbiter's re-ordering of an inferred span (or
 * moves taken from the score sheets) makes of the record, or a break (a ply with no move, null
 * here) filled with the moves it hid. `fens[i]` is the position after ply i (fens[0] the start),
 * `moves[i]` the move of ply i+1. Every move must be legal where it now stands; the answer says
 * which one is not.
 */
export function planReplacement(fens: readonly string[], moves: readonly (NormalMove | null)[], fromPly: number, sans: readonly string[], replaces = sans.length): Result<NormalMove[], string> {
  if (!Number.isInteger(fromPly) || fromPly < 0 || fromPly >= fens.length) return err(`ply ${fromPly} is not in the game (it has ${fens.length - 1} plies)`);
  if (sans.length === 0) return err('no moves given');
  if (!Number.isInteger(replaces) || replaces < 1) return err('replaces must be a positive number of plies');
  if (fromPly + replaces > moves.length) return err(`${replaces} plies from ply ${fromPly} run past the game's ${moves.length} plies`);
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
  const later = moves.slice(fromPly + replaces);
  // A break filled: the moves given must reach the board the game went on from. That board may
  // have been read with a piece in a hand, its square of departure taken from where it stood
  // before: moves that put it elsewhere still close the break when the move after the break (by
  // its SAN) reaches the same position from where they leave it.
  if (moves.slice(fromPly, fromPly + replaces).includes(null)) {
    const want = placementAndTurn(fens[fromPly + replaces] ?? '');
    if (placementAndTurn(makeFen(chess.toSetup())) !== want) {
      const next = sameAfterNextMove(fens, later[0] ?? null, fromPly + replaces, chess);
      if (!next) return err(`the moves given do not reach the position the game went on from (${want})`);
      later[0] = next;
    }
  }
  for (const [i, recorded] of later.entries()) {
    const ply = fromPly + replaces + i + 1;
    if (recorded === null) return err(`the record breaks again at ply ${ply}: close that break on its own`);
    const m = chess.isLegal(recorded) ? recorded : sameLanding(chess, recorded, fens[ply]);
    if (!m) return err(`the game's later move at ply ${ply} is not legal after the moves given`);
    chess.play(m);
    out.push(m);
  }
  return ok(out);
}

/**
 * A later move the moves given make illegal, where another piece of the same kind makes it: the
 * move to the same square that reaches the position the recorded one did (`after`). Of a jump's
 * readings through a hand, one may have the c7 pawn taken and the e7 pawn held, another the other
 * way round: the pawn put down on d6 was read as exd6 under the first and is cxd6 under the
 * second, the board after it the same. Without this the arbiter could not pick the second.
 */
function sameLanding(chess: Chess, recorded: NormalMove, after: string | undefined): NormalMove | undefined {
  if (after === undefined) return undefined;
  for (const [from, dests] of chess.allDests()) {
    if (!dests.has(recorded.to)) continue;
    const m: NormalMove = { from, to: recorded.to, ...(recorded.promotion ? { promotion: recorded.promotion } : {}) };
    if (chess.isLegal(m) && reaches(chess, m, after)) return m;
  }
  return undefined;
}

/** `move`, played from `pos`, gives the placement and side to move of the FEN `after`. */
function reaches(pos: Chess, move: NormalMove, after: string): boolean {
  const probe = pos.clone();
  probe.play(move);
  return placementAndTurn(makeFen(probe.toSetup())) === placementAndTurn(after);
}

/**
 * The move after a break (ply `at` + 1), by its SAN, played from `filled` (where the moves given
 * leave the game): that move, when it reaches the same position as the recorded one did.
 */
function sameAfterNextMove(fens: readonly string[], next: NormalMove | null, at: number, filled: Chess): NormalMove | undefined {
  const before = parseFen(fens[at] ?? '');
  const after = fens[at + 1];
  if (!next || !before.isOk || after === undefined) return undefined;
  const recorded = Chess.fromSetup(before.value);
  if (!recorded.isOk) return undefined;
  const m = parseSan(filled, makeSan(recorded.value, next));
  if (!m || !('from' in m)) return undefined;
  return reaches(filled, m, after) ? m : undefined;
}
