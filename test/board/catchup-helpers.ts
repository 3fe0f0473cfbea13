import { Chess } from 'chessops/chess';
import { parseSan } from 'chessops/san';
import { squareFile, squareRank } from 'chessops/util';
import type { Square } from 'chessops';
import { PIECE, pieceToCode, squareToField, type PieceCode } from '../../protocols/dgt/squares.ts';
import type { PhysicalAction } from '../../daemon/simulation/emulator/physical.ts';

/**
 * A game for the catch-up tests, legal from the standard start: en passant (5. exf6), promotion
 * (9. gxh8=Q), both castlings, captures and checks.
 */
export const LONG_GAME = (
  'e4 d5 e5 f5 exf6 Nc6 fxg7 Nf6 gxh8=Q Bg4 Nf3 Qd6 Be2 O-O-O O-O e5 d3 Kb8 Nc3 a6 ' + 'Bg5 Be7 Qxh7 Rh8 Qg6 Rxh2 Kxh2 Nh5 Rh1 b5 Kg1 Nf4 Bxf4 exf4 Qe8+ Ka7 Qxe7 Qxe7 Nxd5 Qd6'
).split(' ');

/** Knights out and back: the same positions again and again. */
export const SHUFFLE_GAME = 'e4 e5 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nc3 Bc5'.split(' ');

const fieldOf = (sq: Square): number => squareToField(sq);

/**
 * The hand movements of one move, as a tidy player makes them: capture first, the moving piece
 * lifted and placed, castling king first (Art 4.4.2). `stepMs` between movements of one move.
 */
export function moveActions(pos: Chess, san: string, at: number, stepMs: number): { actions: PhysicalAction[]; end: number } {
  const move = parseSan(pos, san);
  if (!move || !('from' in move)) throw new Error(`test game: illegal move ${san} in ${pos.turn}'s turn`);
  const piece = pos.board.get(move.from)!;
  const target = pos.board.get(move.to);
  const actions: PhysicalAction[] = [];
  let t = at;
  const lift = (sq: Square): void => {
    actions.push({ kind: 'lift', at: t, field: fieldOf(sq) });
    t += stepMs;
  };
  const place = (sq: Square, code: PieceCode): void => {
    actions.push({ kind: 'place', at: t, field: fieldOf(sq), piece: code });
    t += stepMs;
  };
  if (piece.role === 'king' && target?.color === piece.color && target.role === 'rook') {
    // chessops encodes castling as the king taking its own rook.
    const kingSide = move.to > move.from;
    const rank = squareRank(move.from) * 8;
    lift(move.from);
    place(rank + (kingSide ? 6 : 2), pieceToCode(piece));
    lift(move.to);
    place(rank + (kingSide ? 5 : 3), pieceToCode(target));
  } else {
    if (target) lift(move.to);
    if (piece.role === 'pawn' && !target && squareFile(move.from) !== squareFile(move.to)) {
      lift(squareRank(move.from) * 8 + squareFile(move.to)); // en passant
    }
    lift(move.from);
    place(move.to, move.promotion ? pieceToCode({ color: piece.color, role: move.promotion }) : pieceToCode(piece));
  }
  pos.play(move);
  return { actions, end: t - stepMs };
}

/** All actions of `sans` from `pos`, one move every `moveMs`, with clock presses when `press`. */
export function gameActions(pos: Chess, sans: readonly string[], at: number, opts: { moveMs?: number; stepMs?: number; press?: boolean } = {}): { actions: PhysicalAction[]; end: number } {
  const moveMs = opts.moveMs ?? 2_000;
  const stepMs = opts.stepMs ?? 300;
  const actions: PhysicalAction[] = [];
  let t = at;
  for (const san of sans) {
    const by = pos.turn;
    const m = moveActions(pos, san, t, stepMs);
    actions.push(...m.actions);
    t = m.end + stepMs;
    if (opts.press) actions.push({ kind: 'press', at: t, by });
    t += moveMs;
  }
  return { actions, end: t };
}

export const EMPTY_BOARD = (): PieceCode[] => new Array<PieceCode>(64).fill(PIECE.EMPTY);

export { Chess };
