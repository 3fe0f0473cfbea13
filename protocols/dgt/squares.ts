import type { Color, Piece, Role, Square } from 'chessops';

/**
 * A square as the DGT board numbers it: 0 = a8, 1 = b8 … 7 = h8, 8 = a7 … 63 = h1
 * (row by row as read from White's side). Distinct from chessops' `Square` (0 = a1):
 * convert only through `fieldToSquare` / `squareToField`.
 */
export type DgtField = number;

/** Piece codes on the wire (dgtbrd.h). 0x0d–0x0f are the result "magic pieces". */
export const PIECE = {
  EMPTY: 0x00,
  WPAWN: 0x01,
  WROOK: 0x02,
  WKNIGHT: 0x03,
  WBISHOP: 0x04,
  WKING: 0x05,
  WQUEEN: 0x06,
  BPAWN: 0x07,
  BROOK: 0x08,
  BKNIGHT: 0x09,
  BBISHOP: 0x0a,
  BKING: 0x0b,
  BQUEEN: 0x0c,
  DRAW: 0x0d,
  WHITE_WINS: 0x0e,
  BLACK_WINS: 0x0f,
} as const;

export type PieceCode = (typeof PIECE)[keyof typeof PIECE];

export function isPieceCode(n: number): n is PieceCode {
  return Number.isInteger(n) && n >= 0 && n <= 0x0f;
}

export function fieldToSquare(field: DgtField): Square {
  const file = field & 7;
  const rank = 7 - (field >> 3);
  return rank * 8 + file;
}

export function squareToField(square: Square): DgtField {
  const file = square & 7;
  const rank = square >> 3;
  return (7 - rank) * 8 + file;
}

const ROLE_ORDER: readonly Role[] = ['pawn', 'rook', 'knight', 'bishop', 'king', 'queen'];

/** The chess piece a code stands for; undefined for EMPTY and the result pieces. */
export function codeToPiece(code: PieceCode): Piece | undefined {
  if (code < PIECE.WPAWN || code > PIECE.BQUEEN) return undefined;
  const color: Color = code <= PIECE.WQUEEN ? 'white' : 'black';
  const role = ROLE_ORDER[(code - 1) % 6]!;
  return { color, role };
}

export function pieceToCode(piece: Piece): PieceCode {
  return ((piece.color === 'white' ? 1 : 7) + ROLE_ORDER.indexOf(piece.role)) as PieceCode;
}

/** Algebraic name of a DGT field, e.g. 0 → "a8"; for logs, tests and incident texts. */
export function fieldName(field: DgtField): string {
  return 'abcdefgh'[field & 7]! + String(8 - (field >> 3));
}
