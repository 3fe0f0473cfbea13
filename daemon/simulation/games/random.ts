import type { NormalMove, Role } from 'chessops';
import { Chess } from 'chessops/chess';
import { makeFen, parseFen, INITIAL_FEN } from 'chessops/fen';
import { makeSanAndPlay } from 'chessops/san';
import { squareRank } from 'chessops/util';
import type { SourceGame } from './game.ts';
import { Prng } from './prng.ts';
import { chess960BackRank } from '../../../protocols/rules/start-position.ts';

const PROMOTIONS: readonly Role[] = ['queen', 'rook', 'bishop', 'knight'];

/**
 * Chess960 start number `n` (0–959) by the standard numbering scheme (n = 518 is the standard
 * position): bishops, queen, then knights by the KRN table, the rest R K R.
 */
export function chess960Fen(n: number): string {
  const white = chess960BackRank(n);
  return `${white.toLowerCase()}/pppppppp/8/8/8/8/PPPPPPPP/${white} w KQkq - 0 1`;
}

export interface RandomGameOptions {
  /** Start from a random Chess960 position. */
  chess960?: boolean;
  /** Most plies to play (default 120). */
  maxPlies?: number;
}

/**
 * A seeded random legal playout, biased so that a batch of games contains castling on both wings,
 * en passant and every under-promotion: pawn moves and castling are favoured, an en passant capture
 * is almost always taken, and promotion pieces are drawn evenly from Q, R, B, N. Ends at checkmate,
 * stalemate, insufficient material, a threefold repetition or the ply cap.
 */
export function randomGame(seed: number, opts: RandomGameOptions = {}): SourceGame {
  const rng = new Prng(seed);
  const startFen = opts.chess960 ? chess960Fen(rng.int(0, 959)) : INITIAL_FEN;
  const pos = Chess.fromSetup(parseFen(startFen).unwrap()).unwrap();
  const cap = Math.max(1, Math.min(opts.maxPlies ?? 120, rng.int(40, opts.maxPlies ?? 120)));
  const moves: NormalMove[] = [];
  const sans: string[] = [];
  // Players agree a draw at a threefold repetition (9.2); well before 9.6's automatic fivefold.
  const seen = new Map<string, number>();
  const repeated = (): boolean => {
    const key = makeFen(pos.toSetup()).split(' ').slice(0, 4).join(' ');
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n >= 3;
  };
  repeated();
  while (moves.length < cap && !pos.isEnd()) {
    const candidates = legalMoves(pos);
    const weights = candidates.map((m) => weightOf(pos, m, rng));
    const chosen = candidates[rng.weighted(weights)]!;
    const move: NormalMove = isPromotion(pos, chosen) ? { ...chosen, promotion: rng.pick(PROMOTIONS) } : chosen;
    moves.push(move);
    sans.push(makeSanAndPlay(pos, move));
    if (repeated()) break;
  }
  return { id: `random#${seed}${opts.chess960 ? '/960' : ''}`, chess960: !!opts.chess960, startFen, moves, sans };
}

/** Every legal move once (promotions without their piece; the caller draws it). */
function legalMoves(pos: Chess): NormalMove[] {
  const out: NormalMove[] = [];
  for (const [from, dests] of pos.allDests()) for (const to of dests) out.push({ from, to });
  return out;
}

function isPromotion(pos: Chess, m: NormalMove): boolean {
  const piece = pos.board.get(m.from);
  return piece?.role === 'pawn' && (squareRank(m.to) === 0 || squareRank(m.to) === 7);
}

function weightOf(pos: Chess, m: NormalMove, rng: Prng): number {
  const piece = pos.board.get(m.from)!;
  const target = pos.board.get(m.to);
  if (piece.role === 'king' && target?.color === piece.color) return 40; // castling (king onto own rook)
  if (piece.role === 'pawn') {
    if (m.to === pos.epSquare) return 400;
    if (isPromotion(pos, m)) return 60;
    // A double step is what makes en passant possible later.
    return Math.abs(m.to - m.from) === 16 ? 8 : 5;
  }
  if (target) return 3 + rng.next();
  return 1;
}

/** The position after `plies` moves of a game. */
export function positionAfter(game: SourceGame, plies: number): Chess {
  const pos = Chess.fromSetup(parseFen(game.startFen).unwrap()).unwrap();
  for (const m of game.moves.slice(0, plies)) pos.play(m);
  return pos;
}

export function fenAfter(game: SourceGame, plies: number): string {
  return makeFen(positionAfter(game, plies).toSetup());
}
