import type { NormalMove, Piece, Square } from 'chessops';
import type { Chess } from 'chessops/chess';
import { squareFile, squareRank } from 'chessops/util';
import type { Hands } from './hands.ts';

/** How a hand makes one move; each names the physical effect it produces on the board. */
export const MOVE_STYLES = [
  'clean',
  'capture-captured-first',
  'capture-capturer-first',
  'capture-both-seen',
  'castle-king-first',
  'castle-rook-first',
  'castle-both-lifted',
  'castle-king-on-rook',
  'castle-king-off',
  'slide',
  'scan-order',
  'en-passant-order',
  'promotion-order',
] as const;
export type MoveStyle = (typeof MOVE_STYLES)[number];

/** The physical shape of a legal move: which squares empty and fill, with what. */
export type MoveShape =
  | { kind: 'quiet'; from: Square; to: Square; piece: Piece; result: Piece }
  | { kind: 'capture'; from: Square; to: Square; piece: Piece; result: Piece; captured: Piece }
  | { kind: 'en-passant'; from: Square; to: Square; piece: Piece; capturedOn: Square; captured: Piece }
  | { kind: 'castle'; king: Square; rook: Square; kingTo: Square; rookTo: Square; kingPiece: Piece; rookPiece: Piece };

export function shapeOf(pos: Chess, move: NormalMove): MoveShape {
  const piece = pos.board.get(move.from)!;
  const target = pos.board.get(move.to);
  if (piece.role === 'king' && target?.color === piece.color && target.role === 'rook') {
    const rank = squareRank(move.from) * 8;
    const hSide = move.to > move.from;
    return { kind: 'castle', king: move.from, rook: move.to, kingTo: rank + (hSide ? 6 : 2), rookTo: rank + (hSide ? 5 : 3), kingPiece: piece, rookPiece: target };
  }
  const result: Piece = move.promotion ? { color: piece.color, role: move.promotion } : piece;
  if (piece.role === 'pawn' && !target && squareFile(move.from) !== squareFile(move.to)) {
    const capturedOn = move.to + (piece.color === 'white' ? -8 : 8);
    return { kind: 'en-passant', from: move.from, to: move.to, piece, capturedOn, captured: pos.board.get(capturedOn)! };
  }
  if (target) return { kind: 'capture', from: move.from, to: move.to, piece, result, captured: target };
  return { kind: 'quiet', from: move.from, to: move.to, piece, result };
}

/** Whether a style changes anything about this move (otherwise the move is played clean). */
export function styleApplies(style: MoveStyle, shape: MoveShape): boolean {
  const promotion = (shape.kind === 'quiet' || shape.kind === 'capture') && shape.result.role !== shape.piece.role;
  switch (style) {
    case 'clean':
      return true;
    case 'capture-captured-first':
    case 'capture-capturer-first':
    case 'capture-both-seen':
      return shape.kind === 'capture';
    case 'castle-king-first':
    case 'castle-rook-first':
    case 'castle-both-lifted':
    case 'castle-king-on-rook':
    case 'castle-king-off':
      return shape.kind === 'castle';
    case 'slide':
      return (shape.kind === 'quiet' || shape.kind === 'capture') && !promotion && slidePath(shape.from, shape.to, shape.piece).length > 0;
    case 'scan-order':
      return true;
    case 'en-passant-order':
      return shape.kind === 'en-passant';
    case 'promotion-order':
      return promotion;
  }
}

/** Squares strictly between from and to for a sliding piece moving along a line. */
export function slidePath(from: Square, to: Square, piece: Piece): Square[] {
  if (piece.role !== 'bishop' && piece.role !== 'rook' && piece.role !== 'queen') return [];
  const df = Math.sign(squareFile(to) - squareFile(from));
  const dr = Math.sign(squareRank(to) - squareRank(from));
  const step = dr * 8 + df;
  const out: Square[] = [];
  for (let s = from + step; s !== to; s += step) out.push(s);
  return out;
}

type Op = { op: 'lift'; sq: Square } | { op: 'place'; sq: Square; piece: Piece };

/**
 * Runs hand operations in the given order, except that a piece is never put on a square that is
 * still occupied: such a placement waits for the lift that frees its square (Chess960 castling
 * where the king lands on the rook's square, or the rook on the king's).
 */
function runOps(h: Hands, ops: Op[], gap: () => number): void {
  const todo = ops.slice();
  while (todo.length > 0) {
    let i = todo.findIndex((o) => o.op === 'lift' || h.isEmpty(o.sq));
    if (i < 0) i = 0;
    const o = todo.splice(i, 1)[0]!;
    if (o.op === 'lift') h.lift(o.sq, gap());
    else h.place(o.sq, o.piece, gap());
  }
}

/** Plays one move at the table in the given style, starting now (after the thinking time). */
export function performMove(h: Hands, shape: MoveShape, style: MoveStyle): void {
  const s = styleApplies(style, shape) ? style : 'clean';
  const hand = (): number => h.handGap();
  switch (shape.kind) {
    case 'castle':
      return castle(h, shape, s);
    case 'en-passant': {
      const ops: Op[] = [
        { op: 'lift', sq: shape.from },
        { op: 'place', sq: shape.to, piece: shape.piece },
        { op: 'lift', sq: shape.capturedOn },
      ];
      if (s === 'en-passant-order' || s === 'scan-order') {
        // Any of the six orders; a placement before the pawn's own lift is a scan-order effect,
        // so it comes within a scan gap of that lift.
        const perm = s === 'scan-order' ? [1, 0, 2] : h.rng.pick(PERMUTATIONS_3);
        const early = perm.indexOf(1) < perm.indexOf(0);
        perm.forEach((k, i) => {
          const o = ops[k]!;
          const gap = early && i > perm.indexOf(1) ? h.scanGap() : hand();
          if (o.op === 'lift') h.lift(o.sq, gap);
          else h.place(o.sq, o.piece, gap);
        });
        return;
      }
      return runOps(h, ops, hand);
    }
    case 'quiet':
    case 'capture': {
      const capture = shape.kind === 'capture';
      switch (s) {
        case 'capture-captured-first':
          h.lift(shape.to, hand()).lift(shape.from, hand()).place(shape.to, shape.result, hand());
          return;
        case 'capture-capturer-first':
          // Holding the capturer over the board for a while before taking the victim off.
          h.lift(shape.from, hand()).lift(shape.to, h.rng.int(400, 2000)).place(shape.to, shape.result, hand());
          return;
        case 'capture-both-seen':
          // The capturer lands while the victim is swept away under it, before the source is seen
          // empty: the board sees the destination change piece, then the source empty.
          h.place(shape.to, shape.result, hand()).lift(shape.from, h.scanGap());
          return;
        case 'scan-order':
          if (capture) h.lift(shape.from, hand()).place(shape.to, shape.result, h.scanGap());
          else h.place(shape.to, shape.result, hand()).lift(shape.from, h.scanGap());
          return;
        case 'slide': {
          if (capture) h.lift(shape.to, hand());
          h.lift(shape.from, hand());
          for (const mid of slidePath(shape.from, shape.to, shape.piece)) {
            if (!h.rng.chance(0.7)) continue;
            h.place(mid, shape.piece, h.rng.int(20, 120)).lift(mid, h.flicker());
          }
          h.place(shape.to, shape.piece, h.rng.int(20, 150));
          return;
        }
        case 'promotion-order':
          return promotion(h, shape, capture);
        default:
          h.lift(shape.from, hand());
          if (capture) h.lift(shape.to, hand());
          h.place(shape.to, shape.result, hand());
          return;
      }
    }
  }
}

const PERMUTATIONS_3: readonly number[][] = [
  [0, 1, 2],
  [0, 2, 1],
  [1, 0, 2],
  [1, 2, 0],
  [2, 0, 1],
  [2, 1, 0],
];

/** FIDE 4.6: pawn removal and placement of the new piece may come in either order. */
function promotion(h: Hands, shape: Extract<MoveShape, { kind: 'quiet' | 'capture' }>, capture: boolean): void {
  const hand = (): number => h.handGap();
  switch (h.rng.int(0, 3)) {
    case 0: // new piece placed directly, pawn never on the last rank
      h.lift(shape.from, hand());
      if (capture) h.lift(shape.to, hand());
      h.place(shape.to, shape.result, hand());
      return;
    case 1: // new piece first, then the pawn taken off its square
      if (capture) h.lift(shape.to, hand());
      h.place(shape.to, shape.result, hand()).lift(shape.from, hand());
      return;
    case 2: // pawn to the last rank, taken off, new piece put there
      h.lift(shape.from, hand());
      if (capture) h.lift(shape.to, hand());
      h.place(shape.to, shape.piece, hand()).lift(shape.to, hand()).place(shape.to, shape.result, hand());
      return;
    default: // pawn to the last rank, swapped for the new piece in one motion
      h.lift(shape.from, hand());
      if (capture) h.lift(shape.to, hand());
      h.place(shape.to, shape.piece, hand()).place(shape.to, shape.result, h.scanGap());
      return;
  }
}

function castle(h: Hands, c: Extract<MoveShape, { kind: 'castle' }>, style: MoveStyle): void {
  const liftK: Op = { op: 'lift', sq: c.king };
  const liftR: Op = { op: 'lift', sq: c.rook };
  const placeK: Op = { op: 'place', sq: c.kingTo, piece: c.kingPiece };
  const placeR: Op = { op: 'place', sq: c.rookTo, piece: c.rookPiece };
  const hand = (): number => h.handGap();
  // Both pieces are always lifted, even one that ends where it started: a king or rook that stays
  // put would make some Chess960 castlings look like a plain king or rook move.
  switch (style) {
    case 'castle-rook-first':
      return runOps(h, [liftR, placeR, liftK, placeK], hand);
    case 'castle-both-lifted':
      // King lifted first: with the rook first this would be 4.4.2's rook-first castling.
      return runOps(h, h.rng.chance(0.5) ? [liftK, liftR, placeK, placeR] : [liftK, liftR, placeR, placeK], hand);
    case 'castle-king-on-rook': {
      // The king is put on its rook's square first (how some Chess960 software asks for castling).
      h.lift(c.king, hand()).lift(c.rook, hand()).place(c.rook, c.kingPiece, hand());
      h.lift(c.rook, h.rng.int(300, 1200));
      return runOps(h, [placeR, placeK], hand);
    }
    case 'scan-order':
      // Each piece's landing is seen before its own square empties (when the landing square is free).
      if (c.kingTo === c.king || !h.isEmpty(c.kingTo)) return runOps(h, [liftK, liftR, placeK, placeR], hand);
      h.place(c.kingTo, c.kingPiece, hand()).lift(c.king, h.scanGap());
      if (c.rookTo !== c.rook && h.isEmpty(c.rookTo)) h.place(c.rookTo, c.rookPiece, hand()).lift(c.rook, h.scanGap());
      else h.lift(c.rook, hand()).place(c.rookTo, c.rookPiece, hand());
      return;
    case 'castle-king-off':
      // Chess960 Guidelines II: king off the board, rook to its square, king to its square.
      h.lift(c.king, hand()).wait(h.rng.int(300, 1500));
      return runOps(h, [liftR, placeR, placeK], hand);
    default:
      return runOps(h, [liftK, placeK, liftR, placeR], hand);
  }
}
