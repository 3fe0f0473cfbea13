import { describe, expect, it } from 'vitest';
import type { NormalMove } from 'chessops';
import type { Chess } from 'chessops/chess';
import { parseSan } from 'chessops/san';
import { makeSquare } from 'chessops/util';
import { fieldToSquare, PIECE } from '../../protocols/dgt/squares.ts';
import { Tabletop } from '../../daemon/simulation/emulator/tabletop.ts';
import { positionFromFen } from '../../daemon/simulation/games/pgn.ts';
import { Prng } from '../../daemon/simulation/games/prng.ts';
import { Hands } from '../../daemon/simulation/noisy-player/hands.ts';
import { performMove, shapeOf, type MoveStyle } from '../../daemon/simulation/noisy-player/moves.ts';
import { physicalBoard } from '../../daemon/simulation/noisy-player/player.ts';

/** Plays one move physically and returns the observed field changes as "e5:-" / "e6:P"-style strings. */
function play(fen: string, san: string, style: MoveStyle, seed: number): { seen: string[]; ok: boolean } {
  const pos: Chess = positionFromFen(fen);
  const move = parseSan(pos, san) as NormalMove;
  const board = physicalBoard(pos, false);
  const h = new Hands(new Prng(seed), false, { board });
  performMove(h, shapeOf(pos, move), style);
  const t = new Tabletop({ board });
  const seen: string[] = [];
  for (const a of h.actions) for (const e of t.apply(a)) if (e.type === 'field') seen.push(`${makeSquare(fieldToSquare(e.field))}:${e.piece === PIECE.EMPTY ? '-' : e.piece}`);
  pos.play(move);
  return { seen, ok: JSON.stringify(t.board()) === JSON.stringify(physicalBoard(pos, false)) };
}

describe('move styles', () => {
  it('en-passant-order produces all six orders of the three changes', () => {
    const fen = 'rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3';
    const orders = new Set<string>();
    for (let seed = 0; seed < 80; seed++) {
      const r = play(fen, 'exf6', 'en-passant-order', seed);
      expect(r.ok).toBe(true);
      expect(r.seen).toHaveLength(3);
      orders.add(r.seen.join(' '));
    }
    expect(orders.size).toBe(6);
  });

  it('promotion-order: direct, new piece first, and pawn on the last rank then replaced', () => {
    const fen = '8/4P3/8/8/8/k7/8/K7 w - - 0 1';
    const kinds = new Set<string>();
    for (let seed = 0; seed < 60; seed++) {
      const r = play(fen, 'e8=N', 'promotion-order', seed);
      expect(r.ok).toBe(true);
      kinds.add(r.seen.join(' '));
    }
    expect(kinds).toEqual(
      new Set([
        'e7:- e8:3', // knight placed directly
        'e8:3 e7:-', // knight first, pawn taken off after
        'e7:- e8:1 e8:- e8:3', // pawn to e8, off, knight on
        'e7:- e8:1 e8:3', // pawn to e8, swapped for the knight
      ]),
    );
  });

  it('castle-king-off: king off the board, rook to its square, king to its square', () => {
    const r = play('r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1', 'O-O', 'castle-king-off', 1);
    expect(r.ok).toBe(true);
    expect(r.seen).toEqual(['e1:-', 'h1:-', 'f1:2', 'g1:5']);
  });

  it('castle-king-on-rook: the king is seen on its rook’s square before the final squares', () => {
    const r = play('r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1', 'O-O-O', 'castle-king-on-rook', 1);
    expect(r.ok).toBe(true);
    expect(r.seen).toEqual(['e1:-', 'a1:-', 'a1:5', 'a1:-', 'd1:2', 'c1:5']);
  });

  it('Chess960 castling onto occupied squares waits for them to be freed, and always touches both pieces', () => {
    // King f1, rook g1: O-O puts the king on g1 (the rook's square) and the rook on f1 (the king's).
    const fen = '1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w GBgb - 0 1';
    for (const style of ['clean', 'castle-rook-first', 'castle-both-lifted', 'castle-king-on-rook', 'castle-king-off'] as MoveStyle[]) {
      const r = play(fen, 'O-O', style, 2);
      expect(r.ok, style).toBe(true);
      expect(new Set(r.seen.filter((x) => x.endsWith(':-'))), style).toEqual(new Set(['f1:-', 'g1:-']));
      expect(r.seen.at(-1), style).toMatch(/^(f1:2|g1:5)$/);
    }
  });

  it('capture-both-seen: the victim is replaced in one change, then the source empties', () => {
    const r = play('4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1', 'exd5', 'capture-both-seen', 3);
    expect(r.ok).toBe(true);
    expect(r.seen).toEqual(['d5:1', 'e4:-']);
  });
});
