import { describe, expect, it } from 'vitest';
import { Tabletop, observe, standardStartBoard } from '../../daemon/simulation/emulator/tabletop.ts';
import { PIECE, squareToField } from '../../protocols/dgt/squares.ts';
import { parseSquare } from 'chessops/util';

const f = (name: string): number => squareToField(parseSquare(name)!);

describe('Tabletop', () => {
  it('starts from the standard position as the board numbers it', () => {
    const b = new Tabletop().board();
    expect(b[0]).toBe(PIECE.BROOK);
    expect(b[4]).toBe(PIECE.BKING);
    expect(b[f('e1')]).toBe(PIECE.WKING);
    expect(b[f('d1')]).toBe(PIECE.WQUEEN);
    expect(b[f('e2')]).toBe(PIECE.WPAWN);
    expect(b.filter((p) => p === PIECE.EMPTY)).toHaveLength(32);
  });

  it('reports a lift and a place as field changes, and nothing for no change', () => {
    const t = new Tabletop();
    expect(t.apply({ kind: 'lift', at: 10, field: f('e2') })).toEqual([{ type: 'field', at: 10, field: f('e2'), piece: PIECE.EMPTY }]);
    expect(t.apply({ kind: 'lift', at: 11, field: f('e2') })).toEqual([]);
    expect(t.apply({ kind: 'place', at: 20, field: f('e4'), piece: PIECE.WPAWN })).toEqual([{ type: 'field', at: 20, field: f('e4'), piece: PIECE.WPAWN }]);
    expect(t.apply({ kind: 'place', at: 21, field: f('e4'), piece: PIECE.WPAWN })).toEqual([]);
  });

  it('sees a knocked piece lying on an empty square until it is stood up again', () => {
    const t = new Tabletop();
    expect(t.apply({ kind: 'knock', at: 5, field: f('g1'), onto: f('g3') })).toEqual([
      { type: 'field', at: 5, field: f('g1'), piece: PIECE.EMPTY },
      { type: 'field', at: 5, field: f('g3'), piece: PIECE.WKNIGHT },
    ]);
    expect(t.apply({ kind: 'place', at: 9, field: f('g1'), piece: PIECE.WKNIGHT })).toEqual([
      { type: 'field', at: 9, field: f('g3'), piece: PIECE.EMPTY },
      { type: 'field', at: 9, field: f('g1'), piece: PIECE.WKNIGHT },
    ]);
    expect(t.board()).toEqual(standardStartBoard());
  });

  it('another piece of the same kind placed elsewhere leaves a knocked piece lying where it is seen', () => {
    const t = new Tabletop();
    t.apply({ kind: 'knock', at: 5, field: f('g2'), onto: f('g3') });
    t.apply({ kind: 'lift', at: 6, field: f('e2') });
    expect(t.apply({ kind: 'place', at: 7, field: f('e4'), piece: PIECE.WPAWN })).toEqual([{ type: 'field', at: 7, field: f('e4'), piece: PIECE.WPAWN }]);
    expect(t.board()[f('g3')]).toBe(PIECE.WPAWN);
    // picked up from where it lies, stood back on its square
    expect(t.apply({ kind: 'lift', at: 8, field: f('g3') })).toEqual([{ type: 'field', at: 8, field: f('g3'), piece: PIECE.EMPTY }]);
    expect(t.apply({ kind: 'place', at: 9, field: f('g2'), piece: PIECE.WPAWN })).toEqual([{ type: 'field', at: 9, field: f('g2'), piece: PIECE.WPAWN }]);
  });

  it('a knock onto an occupied square is not seen there', () => {
    const t = new Tabletop();
    expect(t.apply({ kind: 'knock', at: 5, field: f('g1'), onto: f('g2') })).toEqual([{ type: 'field', at: 5, field: f('g1'), piece: PIECE.EMPTY }]);
    expect(t.board()[f('g2')]).toBe(PIECE.WPAWN);
  });

  it('runs a Fischer clock: the first press starts the opponent, later presses add the increment', () => {
    const t = new Tabletop({ clock: { baseMs: 60_000, incrementMs: 2_000 } });
    expect(t.clockAt(0)).toMatchObject({ whiteMs: 60_000, blackMs: 60_000, running: null });
    expect(t.apply({ kind: 'press', at: 1000, by: 'black' })).toEqual([{ type: 'clock', at: 1000, whiteMs: 60_000, blackMs: 60_000, running: 'white', whiteFlag: false, blackFlag: false }]);
    expect(t.apply({ kind: 'press', at: 6000, by: 'white' })).toEqual([{ type: 'clock', at: 6000, whiteMs: 57_000, blackMs: 60_000, running: 'black', whiteFlag: false, blackFlag: false }]);
    // pressing the lever that is already down is not a press
    expect(t.apply({ kind: 'press', at: 6500, by: 'white' })).toEqual([]);
    expect(t.clockAt(70_000)).toMatchObject({ blackMs: 0, blackFlag: true, whiteFlag: false, running: 'black' });
  });

  it('takes a clock set by hand: time added to one side, the running side runs on, nothing seen while the board is away', () => {
    const t = new Tabletop({ clock: { baseMs: 60_000, incrementMs: 2_000 } });
    t.apply({ kind: 'press', at: 1000, by: 'black' });
    expect(t.apply({ kind: 'clock-adjust', at: 3000, by: 'black', ms: 120_000 })).toEqual([
      { type: 'clock', at: 3000, whiteMs: 58_000, blackMs: 180_000, running: 'white', whiteFlag: false, blackFlag: false },
    ]);
    expect(t.clockAt(4000)).toMatchObject({ whiteMs: 57_000, blackMs: 180_000, running: 'white' });
    t.apply({ kind: 'unplug', at: 5000 });
    expect(t.apply({ kind: 'clock-adjust', at: 6000, by: 'white', ms: -100_000 })).toEqual([]);
    expect(t.clockAt(6000)).toMatchObject({ whiteMs: 0, blackMs: 180_000, running: 'white' });
  });

  it("a clock's cable out: the clock runs on and its lever works, unread; the cable back in reads it again", () => {
    const t = new Tabletop({ clock: { baseMs: 60_000, incrementMs: 2_000 } });
    t.apply({ kind: 'press', at: 1000, by: 'black' });
    expect(t.apply({ kind: 'clock-cable-out', at: 2000 })).toEqual([]);
    expect(t.clockRead).toBe(false);
    // White moves and presses, Black replies: the board sees the pieces, nobody reads the clock.
    expect(t.apply({ kind: 'press', at: 4000, by: 'white' })).toEqual([]);
    expect(t.apply({ kind: 'lift', at: 5000, field: 12 })).toEqual([{ type: 'field', at: 5000, field: 12, piece: PIECE.EMPTY }]);
    expect(t.apply({ kind: 'clock-cable-in', at: 6000 })).toEqual([{ type: 'clock', at: 6000, whiteMs: 59_000, blackMs: 58_000, running: 'black', whiteFlag: false, blackFlag: false }]);
    // observe() reads nothing while the cable is out: readings at 1 s, then none until it is back.
    const seen = observe(
      [
        { kind: 'press', at: 0, by: 'black' },
        { kind: 'clock-cable-out', at: 2500 },
        { kind: 'press', at: 4000, by: 'white' },
        { kind: 'clock-cable-in', at: 6000 },
        { kind: 'lift', at: 7000, field: 12 },
      ],
      { clock: { baseMs: 60_000, incrementMs: 2_000 } },
    );
    expect(seen.filter((e) => e.type === 'clock').map((e) => e.at)).toEqual([0, 1000, 2000, 6000, 7000]);
  });

  it('has no clock readings without a clock', () => {
    const t = new Tabletop({ clock: null });
    expect(t.apply({ kind: 'press', at: 1, by: 'white' })).toEqual([]);
    expect(t.clockAt(5)).toBeNull();
  });

  it('does not observe changes while unplugged and re-dumps on plug', () => {
    const t = new Tabletop({ clock: { baseMs: 10_000, incrementMs: 0 } });
    expect(t.apply({ kind: 'unplug', at: 1 })).toEqual([{ type: 'connection', at: 1, connected: false }]);
    expect(t.connected).toBe(false);
    expect(t.apply({ kind: 'lift', at: 2, field: f('e2') })).toEqual([]);
    expect(t.apply({ kind: 'place', at: 3, field: f('e4'), piece: PIECE.WPAWN })).toEqual([]);
    expect(t.apply({ kind: 'press', at: 4, by: 'white' })).toEqual([]);
    const seen = t.apply({ kind: 'plug', at: 1004 });
    expect(seen[0]).toEqual({ type: 'connection', at: 1004, connected: true });
    expect(seen[1]).toMatchObject({ type: 'dump', at: 1004 });
    const dump = seen[1]!.type === 'dump' ? seen[1]!.board : [];
    expect(dump[f('e4')]).toBe(PIECE.WPAWN);
    expect(dump[f('e2')]).toBe(PIECE.EMPTY);
    expect(seen[2]).toMatchObject({ type: 'clock', blackMs: 9000, running: 'black' });
  });

  it('observe() adds a clock reading every second while the clock runs', () => {
    const events = observe(
      [
        { kind: 'press', at: 0, by: 'black' },
        { kind: 'lift', at: 2500, field: f('e2') },
        { kind: 'place', at: 2900, field: f('e4'), piece: PIECE.WPAWN },
        { kind: 'press', at: 3100, by: 'white' },
      ],
      { clock: { baseMs: 60_000, incrementMs: 0 } },
    );
    const clocks = events.filter((e) => e.type === 'clock');
    expect(clocks.map((c) => c.at)).toEqual([0, 1000, 2000, 3000, 3100]);
    expect(clocks.map((c) => c.whiteMs)).toEqual([60_000, 59_000, 58_000, 57_000, 56_900]);
    expect(events.map((e) => e.type)).toEqual(['clock', 'clock', 'clock', 'field', 'field', 'clock', 'clock']);
  });
});
