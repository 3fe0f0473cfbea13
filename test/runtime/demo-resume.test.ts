import { describe, expect, it } from 'vitest';
import type { BoardEvent } from '../../protocols/board-events.ts';
import type { PieceCode } from '../../protocols/dgt/squares.ts';
import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import { demoGame, resumePoint } from '../../daemon/runtime/demo-games.ts';
import { resumeAt } from '../../daemon/runtime/demo-resume.ts';
import type { TableGame } from '../../daemon/runtime/emulated-table.ts';
import type { PhysicalAction } from '../../daemon/simulation/emulator/physical.ts';
import { observe } from '../../daemon/simulation/emulator/tabletop.ts';

/** The script's observed stream, as a host reading the board would have stored it. */
function observed(script: TableGame): BoardEvent[] {
  return observe(
    script.actions.filter((a): a is PhysicalAction => a.kind !== 'button'),
    { board: script.board, clock: script.clock },
  );
}

/** The board the script shows once every event up to `at` has happened. */
function boardAt(script: TableGame, at: number): PieceCode[] {
  const board = script.board.slice();
  for (const ev of observed(script)) {
    if (ev.at > at) break;
    if (ev.type === 'field') board[ev.field] = ev.piece;
    if (ev.type === 'dump') board.splice(0, 64, ...ev.board);
  }
  return board;
}

/**
 * A host that stored the stream up to its `k`-th field event (a daemon killed there): its board,
 * its last field changes, and the moves its engine had.
 */
function hostAfter(script: TableGame, k: number): { board: PieceCode[]; recentFields: { field: number; piece: PieceCode }[]; plies: number } {
  const engine = new GameEngine({ rules: { edition: '2018', category: 'standard' } });
  engine.push({ type: 'dump', at: 0, board: script.board.slice() });
  const board = script.board.slice();
  const fields: { field: number; piece: PieceCode }[] = [];
  let seen = 0;
  for (const ev of observed(script)) {
    engine.push(ev);
    if (ev.type === 'dump') board.splice(0, 64, ...ev.board);
    if (ev.type !== 'field') continue;
    board[ev.field] = ev.piece;
    fields.push({ field: ev.field, piece: ev.piece });
    if (++seen === k) break;
  }
  return { board, recentFields: fields.slice(-16), plies: engine.snapshot().moves.length };
}

describe('an emulated table resumed after a daemon restart', () => {
  it("stands on the very board the host last saw, mid-move or not (under 'mixed' noise), where the last move's time often does not", () => {
    const tc = { baseSeconds: 5400, incrementSeconds: 30, movesToSecondPeriod: null, secondPeriodSeconds: null };
    let behind = 0;
    let tries = 0;
    for (let table = 1; table <= 4; table++) {
      const { script } = demoGame({ kind: 'random', seed: 7 }, 4, table, 0, 'mixed', 1, tc);
      const fieldCount = observed(script).filter((e) => e.type === 'field').length;
      for (let k = 20; k < fieldCount; k += 37) {
        const host = hostAfter(script, k);
        tries++;
        expect(boardAt(script, resumeAt(script, host, host.plies)), `table ${table}, after field event ${k}`).toEqual(host.board);
        if (boardAt(script, resumePoint(script, host.plies)).some((p, i) => p !== host.board[i])) behind++;
      }
    }
    expect(tries).toBeGreaterThan(20);
    // Resuming at the last move's time (the old way) leaves the board elsewhere in most of these.
    expect(behind).toBeGreaterThan(tries / 4);
  });
});
