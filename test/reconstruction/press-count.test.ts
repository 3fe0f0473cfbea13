import { describe, expect, it } from 'vitest';
import { pressesBetween, type StampedReading } from '../../daemon/reconstruction/press-count.ts';

/**
 * A clock under a Fischer increment, pressed as players press it: `thinkMs[i]` is how long the
 * i-th mover thought (white first), and the readings are whole seconds, rounded down as the
 * clock's display shows them. The count is asked of two readings taken `lagMs` after presses.
 */
function played(incrementMs: number, thinkMs: readonly number[], lagMs = 300): { before: StampedReading; after: StampedReading } {
  let white = 5_400_000;
  let black = 5_400_000;
  let at = 1_000_000;
  const reading = (running: 'white' | 'black', lag: number): StampedReading => {
    const w = running === 'white' ? white - lag : white;
    const b = running === 'black' ? black - lag : black;
    return { at: at + lag, whiteMs: Math.floor(w / 1000) * 1000, blackMs: Math.floor(b / 1000) * 1000, running };
  };
  const before = reading('white', lagMs);
  thinkMs.forEach((t, i) => {
    at += t;
    if (i % 2 === 0) white += incrementMs - t;
    else black += incrementMs - t;
  });
  const after = reading(thinkMs.length % 2 === 0 ? 'white' : 'black', lagMs);
  return { before, after };
}

describe('pressesBetween: the presses made between two readings, from the clock times alone', () => {
  it('counts eight presses under 30 s, 10 s and 3 s increments, whatever the players spent', () => {
    const think = [4_150, 12_980, 700, 31_020, 2_490, 9_999, 15_500, 1_001];
    for (const inc of [30_000, 10_000, 3_000]) {
      const { before, after } = played(inc, think);
      expect(pressesBetween(before, after, inc), `increment ${inc}`).toBe(8);
    }
  });

  it('counts an odd number of presses when the other clock runs afterwards', () => {
    const { before, after } = played(10_000, [5_000, 6_000, 7_000, 8_000, 9_000, 10_500, 11_000, 12_000, 13_000]);
    expect(after.running).toBe('black');
    expect(pressesBetween(before, after, 10_000)).toBe(9);
  });

  it('counts none when the clock ran on one side only', () => {
    const { before, after } = played(30_000, []);
    const later = { ...after, at: after.at + 42_000, whiteMs: after.whiteMs - 42_000 };
    expect(pressesBetween(before, later, 30_000)).toBe(0);
  });

  it("gives no count once a flag is down: the fallen side's clock stands at zero while it runs", () => {
    // White presses after 2 s (+3 s); Black's flag falls a second later and play goes on (nobody
    // claimed it): Black thinks 20 s and presses, adding nothing to a clock at zero; White presses
    // after 2 s. Three presses, where the sums (24 s passed, 1 s more on the clocks) fit nine.
    const before: StampedReading = { at: 0, whiteMs: 60_000, blackMs: 1_000, running: 'white' };
    const after: StampedReading = { at: 24_000, whiteMs: 62_000, blackMs: 0, running: 'black' };
    expect(pressesBetween(before, after, 3_000)).toBeUndefined();
    // Nor from a reading with the flag already down.
    expect(pressesBetween({ ...before, blackMs: 0 }, { ...after, at: 30_000, whiteMs: 59_000 }, 3_000)).toBeUndefined();
  });

  it('gives no count where the display and the stamps leave two counts of the right parity (a 1 s increment)', () => {
    const { before, after } = played(1_000, [400, 900, 300, 800]);
    expect(pressesBetween(before, after, 1_000)).toBeUndefined();
  });

  it('gives no count when a side was given time by hand that presses would have spread over both', () => {
    // Four presses under 30 s, and then two minutes added to Black (7.5.5): the sums fit eight
    // presses, but eight would have White use 60 s more than the clock shows and Black 60 s less
    // than nothing.
    const { before, after } = played(30_000, [20_000, 15_000, 25_000, 10_000]);
    expect(pressesBetween(before, after, 30_000)).toBe(4);
    const given = { ...after, blackMs: after.blackMs + 120_000 };
    expect(pressesBetween(before, given, 30_000)).toBeUndefined();
    // The same two minutes to a side that used more than a minute of its own fits four presses
    // more without any side's use out of bounds: the count is wrong and cannot tell (its users
    // weigh it only among readings of the board).
    const slow = played(30_000, [70_000, 65_000, 80_000, 75_000]);
    expect(pressesBetween(slow.before, { ...slow.after, blackMs: slow.after.blackMs + 120_000 }, 30_000)).toBe(8);
  });

  it('gives no count without an increment, with a stopped clock, or with readings out of order', () => {
    const { before, after } = played(10_000, [5_000, 6_000]);
    expect(pressesBetween(before, after, 0)).toBeUndefined();
    expect(pressesBetween(before, { ...after, running: null }, 10_000)).toBeUndefined();
    expect(pressesBetween(after, before, 10_000)).toBeUndefined();
  });

  it('gives no count when the times fit no count of the right parity (a clock set by hand meanwhile)', () => {
    const { before, after } = played(30_000, [5_000, 6_000]);
    // Fifteen seconds given to one side: halfway between two counts of presses.
    expect(pressesBetween(before, { ...after, blackMs: after.blackMs + 15_000 }, 30_000)).toBeUndefined();
  });
});
