import { describe, expect, it } from 'vitest';
import { parseSquare } from 'chessops';
import { codeToPiece, decodeAll, fieldName, fieldToSquare, PIECE, squareToField } from '../../../protocols/dgt/index.ts';
import { hex } from './hex.ts';

describe('square numbering and piece codes on the wire (reference: "Squares and pieces")', () => {
  it("0 = a8, 7 = h8, 8 = a7, 63 = h1, row by row from White's side", () => {
    expect([0, 1, 7, 8, 63].map(fieldName)).toEqual(['a8', 'b8', 'h8', 'a7', 'h1']);
    expect(fieldToSquare(0)).toBe(parseSquare('a8'));
    expect(fieldToSquare(63)).toBe(parseSquare('h1'));
    for (let f = 0; f < 64; f++) expect(squareToField(fieldToSquare(f))).toBe(f);
  });

  it('piece codes 0 EMPTY … 0x0c BQUEEN, 0x0d–0x0f the result pieces', () => {
    expect(PIECE).toMatchObject({
      EMPTY: 0,
      WPAWN: 1,
      WROOK: 2,
      WKNIGHT: 3,
      WBISHOP: 4,
      WKING: 5,
      WQUEEN: 6,
      BPAWN: 7,
      BROOK: 8,
      BKNIGHT: 9,
      BBISHOP: 0x0a,
      BKING: 0x0b,
      BQUEEN: 0x0c,
      DRAW: 0x0d,
      WHITE_WINS: 0x0e,
      BLACK_WINS: 0x0f,
    });
    expect(codeToPiece(PIECE.WKNIGHT)).toEqual({ color: 'white', role: 'knight' });
    expect(codeToPiece(PIECE.BQUEEN)).toEqual({ color: 'black', role: 'queen' });
    expect(codeToPiece(PIECE.DRAW)).toBeUndefined();
  });

  it('a FIELD_UPDATE for e2 emptied names field 52', () => {
    const [f] = decodeAll(hex('8e 00 05 34 00')).frames;
    expect(f!.message).toEqual({ type: 'field-update', field: 52, piece: PIECE.EMPTY });
    expect(fieldName(52)).toBe('e2');
  });
});
