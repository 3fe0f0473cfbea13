import type { NormalMove, Role } from 'chessops';
import type { Chess } from 'chessops/chess';
import { PIECE, pieceToCode } from '../../protocols/dgt/squares.ts';

/**
 * A legal move seen as what it does to the board's sensors: the squares whose piece code changes
 * and their new codes (castling touches up to four squares; a Chess960 king or rook that ends where
 * it started touches none). Computed without playing the move, so matching a board against every
 * legal successor costs a few comparisons per move.
 */
export interface Successor {
  move: NormalMove;
  squares: number[];
  codes: number[];
  castling: boolean;
}

const PROMOTIONS: readonly Role[] = ['queen', 'rook', 'bishop', 'knight'];

/** The board codes (index: chessops Square) of a position. */
export function positionCodes(pos: Chess): Uint8Array {
  const out = new Uint8Array(64);
  for (const [sq, piece] of pos.board) out[sq] = pieceToCode(piece);
  return out;
}

/**
 * The legal successors of `pos`, in chessops's order (by source square, then destination). With
 * `only`, just the moves of pieces on squares it accepts; with `skipped`, how many successors the
 * other pieces would have given: `skipped[i]` counts those before successor `i` in that order, and
 * one more entry those after the last. A search that would discard those moves unweighed does not
 * pay for building them, and still counts them as it did (its budget means what it meant).
 */
export function successorsOf(pos: Chess, codes: Uint8Array, only?: (square: number) => boolean, skipped?: number[]): Successor[] {
  const out: Successor[] = [];
  const ctx = pos.ctx();
  let refused = 0;
  for (const from of ctx.variantEnd ? [] : pos.board[pos.turn]) {
    const dests = pos.dests(from, ctx);
    const code = codes[from]!;
    const pawn = code === PIECE.WPAWN || code === PIECE.BPAWN;
    if (only && !only(from)) {
      if (!pawn) refused += dests.size();
      else for (const to of dests) refused += to >> 3 === 0 || to >> 3 === 7 ? PROMOTIONS.length : 1;
      continue;
    }
    const first = out.length;
    const white = code <= PIECE.WQUEEN;
    const king = code === PIECE.WKING || code === PIECE.BKING;
    for (const to of dests) {
      const target = codes[to]!;
      if (king && target !== PIECE.EMPTY && target <= PIECE.WQUEEN === white) {
        out.push(castlingSuccessor(from, to, code, target, codes));
      } else if (pawn && (to >> 3 === 0 || to >> 3 === 7)) {
        for (const role of PROMOTIONS)
          out.push({ move: { from, to, promotion: role }, squares: [from, to], codes: [PIECE.EMPTY, pieceToCode({ color: white ? 'white' : 'black', role })], castling: false });
      } else if (pawn && target === PIECE.EMPTY && (from & 7) !== (to & 7)) {
        out.push({ move: { from, to }, squares: [from, to, to + (white ? -8 : 8)], codes: [PIECE.EMPTY, code, PIECE.EMPTY], castling: false });
      } else {
        // The source empties and the destination changes (empty or an enemy piece before).
        out.push({ move: { from, to }, squares: [from, to], codes: [PIECE.EMPTY, code], castling: false });
      }
    }
    if (skipped && out.length > first) {
      skipped.push(refused);
      for (let i = first + 1; i < out.length; i++) skipped.push(0);
      refused = 0;
    }
  }
  skipped?.push(refused);
  return out;
}

/** chessops writes castling as king onto its own rook; the pieces end on c/d or g/f (Chess960 too). */
function castlingSuccessor(king: number, rook: number, kingCode: number, rookCode: number, codes: Uint8Array): Successor {
  const rank = king & 56;
  const hSide = rook > king;
  const changes = new Map<number, number>([
    [king, PIECE.EMPTY],
    [rook, PIECE.EMPTY],
  ]);
  changes.set(rank + (hSide ? 6 : 2), kingCode).set(rank + (hSide ? 5 : 3), rookCode);
  const squares: number[] = [];
  const newCodes: number[] = [];
  for (const [sq, c] of changes) {
    if (codes[sq] !== c) {
      squares.push(sq);
      newCodes.push(c);
    }
  }
  return { move: { from: king, to: rook }, squares, codes: newCodes, castling: true };
}

/** Whether `seen` shows exactly the successor `s` of the position whose codes are `codes`. */
export function showsSuccessor(s: Successor, seen: ArrayLike<number>, mismatches: number): boolean {
  if (s.squares.length !== mismatches) return false;
  for (let i = 0; i < s.squares.length; i++) if (seen[s.squares[i]!] !== s.codes[i]) return false;
  return true;
}

/**
 * The legal move, if any, whose successor the board `seen` shows, found from the differing squares
 * alone (`diff`: where `seen` differs from `codes`): candidate sources are own pieces seen gone,
 * candidate destinations the other differing squares, plus the side's castlings. Only a candidate
 * whose square changes match exactly is checked for legality, so no move list is generated.
 */
export function matchMove(pos: Chess, codes: Uint8Array, seen: ArrayLike<number>, diff: readonly number[]): Successor | undefined {
  const n = diff.length;
  if (n < 2 || n > 4) return undefined;
  const turn = pos.turn;
  const white = turn === 'white';
  const king = pos.board.kingOf(turn);
  if (king !== undefined) {
    for (const side of ['a', 'h'] as const) {
      const rook = pos.castles.rook[turn][side];
      if (rook === undefined) continue;
      const s = castlingSuccessor(king, rook, codes[king]!, codes[rook]!, codes);
      if (showsSuccessor(s, seen, n) && pos.isLegal(s.move)) return s;
    }
  }
  for (const from of diff) {
    const code = codes[from]!;
    if (code === PIECE.EMPTY || code > PIECE.BQUEEN || code <= PIECE.WQUEEN !== white || seen[from] !== PIECE.EMPTY) continue;
    const pawn = code === PIECE.WPAWN || code === PIECE.BPAWN;
    for (const to of diff) {
      if (to === from) continue;
      const landed = seen[to]!;
      let s: Successor;
      if (pawn && (to >> 3 === 0 || to >> 3 === 7)) {
        if (landed === PIECE.EMPTY || landed > PIECE.BQUEEN || landed <= PIECE.WQUEEN !== white) continue;
        const role = ROLE_OF_CODE[landed];
        if (!role || role === 'pawn' || role === 'king') continue;
        s = { move: { from, to, promotion: role }, squares: [from, to], codes: [PIECE.EMPTY, landed], castling: false };
      } else if (landed !== code) continue;
      else if (pawn && codes[to] === PIECE.EMPTY && (from & 7) !== (to & 7))
        s = { move: { from, to }, squares: [from, to, to + (white ? -8 : 8)], codes: [PIECE.EMPTY, code, PIECE.EMPTY], castling: false };
      else s = { move: { from, to }, squares: [from, to], codes: [PIECE.EMPTY, code], castling: false };
      if (showsSuccessor(s, seen, n) && pos.isLegal(s.move)) return s;
    }
  }
  return undefined;
}

const ROLE_OF_CODE: readonly (Role | undefined)[] = [undefined, 'pawn', 'rook', 'knight', 'bishop', 'king', 'queen', 'pawn', 'rook', 'knight', 'bishop', 'king', 'queen'];
