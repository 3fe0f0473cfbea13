import type { Color } from 'chessops';
import type { Chess } from 'chessops/chess';
import type { Consequence, GameResult, IllegalKind, RulesConfig } from './game-events.ts';

/**
 * What the configured edition and category of the FIDE Laws make of an illegal move (7.5.1),
 * a pawn left on the last rank (7.5.2) or a clock press without a move (7.5.3). `count` is the
 * player's running count of such irregularities, this one included. The engine only advises:
 * the arbiter applies penalties (fide-laws.md, "Edition differences").
 */
export function illegalMoveRuling(
  rules: RulesConfig,
  kind: IllegalKind,
  by: Color,
  count: number,
  pos: Chess,
  fenBefore: string,
  promotionSquare = '',
): { article: string; consequences: Consequence[] } {
  const opponent: Color = by === 'white' ? 'black' : 'white';
  const loss: GameResult = by === 'white' ? '0-1' : '1-0';
  // 7.5.5: the loss becomes a draw when the opponent cannot mate by any series of legal moves.
  const lossOrDraw: Consequence = pos.hasInsufficientMaterial(opponent) ? { kind: 'game-drawn', reason: 'opponent-cannot-checkmate' } : { kind: 'game-lost', loser: by, result: loss };
  const out: Consequence[] = [];
  if (kind === 'illegal-move') out.push({ kind: 'position-reinstated', fen: fenBefore });
  const { edition, category } = rules;
  const minutes = (n: number): Consequence => ({ kind: 'time-added', to: opponent, ms: n * 60_000 });

  if (edition === '2018') {
    const base = kind === 'illegal-move' ? '7.5.1' : kind === 'pawn-not-replaced' ? '7.5.2' : '7.5.3';
    const appendix = category === 'rapid' ? ', A.4.2' : category === 'blitz' ? ', A.4.2, B.3' : '';
    if (kind === 'pawn-not-replaced') out.push({ kind: 'pawn-becomes-queen', square: promotionSquare });
    out.push(count >= 2 ? lossOrDraw : minutes(category === 'blitz' ? 1 : 2));
    if (category !== 'standard') out.push({ kind: 'arbiter-decides', note: 'only if noticed before the opponent completes the next move (A.4.2)' });
    return { article: `${base}, 7.5.5${appendix} (2018)`, consequences: out };
  }

  if (edition === '2009') {
    if (kind === 'pawn-not-replaced') out.push({ kind: 'pawn-becomes-queen', square: promotionSquare });
    if (category === 'blitz') {
      out.push({ kind: 'claim-required', by: opponent }, { kind: 'win-claimable', by: opponent, result: loss });
      return { article: 'B.3c (2009)', consequences: out };
    }
    if (kind === 'clock-without-move') out.push({ kind: 'arbiter-decides', note: 'the 2009 Laws have no article for a press without a move' });
    else out.push(count >= 3 ? lossOrDraw : minutes(2));
    if (category === 'rapid') {
      out.unshift({ kind: 'claim-required', by: opponent });
      return { article: '7.4a, 7.4b, A.4c (2009)', consequences: out };
    }
    return { article: '7.4a, 7.4b (2009)', consequences: out };
  }

  if (kind === 'pawn-not-replaced') out.push({ kind: 'pawn-becomes-queen', square: promotionSquare });
  if (category === 'blitz') {
    out.push({ kind: 'claim-required', by: opponent }, { kind: 'win-claimable', by: opponent, result: loss });
    return { article: 'Appendix C (1997)', consequences: out };
  }
  if (category === 'rapid') out.unshift({ kind: 'claim-required', by: opponent });
  out.push({ kind: 'arbiter-decides', note: 'no fixed penalty in the 1997 Laws; the arbiter may add time' });
  return { article: category === 'rapid' ? '7.4, Appendix B (1997)' : '7.4 (1997)', consequences: out };
}
