import { describe, expect, it } from 'vitest';
import type { GameChange, MoveRecord } from '../../protocols/feed/model.ts';
import { describeLabel, MoveBook } from '../../daemon/runtime/replay-labels.ts';

const move = (ply: number, san: string, uci: string, clockMs: number | null = null): MoveRecord => ({ ply, san, uci, fenAfter: '', at: 0, clockMs });
const g = 'r1-t1';

describe('replay labels', () => {
  it('calls a clock press that brings a move its %clk a confirmation, and a changed move an amendment', () => {
    const book = new MoveBook();
    const changes: GameChange[] = [
      { kind: 'move', gameId: g, move: move(1, 'e4', 'e2e4') },
      { kind: 'amendment', gameId: g, fromPly: 1, moves: [move(1, 'e4', 'e2e4', 5_395_000)] },
      { kind: 'move', gameId: g, move: move(2, 'e5', 'e7e5') },
      // The engine re-read ply 2 (a knocked piece put back elsewhere): a real amendment.
      { kind: 'amendment', gameId: g, fromPly: 2, moves: [move(2, 'e6', 'e7e6')] },
      { kind: 'takeback', gameId: g, toPly: 1, fen: '', lastMove: null },
    ];
    const lines = changes.map((c) => book.label(c)).map((l) => (l ? describeLabel(l) : null));
    expect(lines).toEqual(['move 1: e4 (e2e4)', 'confirmed 1: e4 by the clock press (clock 1:29:55)', 'move 2: e5 (e7e5)', 'amended from ply 2: e5 → e6', 'takeback to ply 1']);
  });

  it('keeps each game apart and says nothing for clock ticks', () => {
    const book = new MoveBook();
    book.label({ kind: 'move', gameId: 'r1-t1', move: move(1, 'd4', 'd2d4') });
    book.label({ kind: 'move', gameId: 'r1-t2', move: move(1, 'c4', 'c2c4') });
    const l = book.label({ kind: 'amendment', gameId: 'r1-t2', fromPly: 1, moves: [move(1, 'c4', 'c2c4', 1000)] });
    expect(l).toMatchObject({ kind: 'confirmation', ply: 1, san: 'c4', clockMs: 1000 });
    expect(book.label({ kind: 'clock', gameId: 'r1-t1', clock: { whiteMs: 1, blackMs: 2, running: null, readAt: 0, whiteFlag: false, blackFlag: false } })).toBeNull();
  });
});
