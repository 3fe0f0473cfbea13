import type { Color } from 'chessops';

/**
 * How many times the clock was pressed between two readings, from its times alone: what a board
 * that was away (a USB pull: no power, no log) cannot tell, the clock can. Under a Fischer
 * increment every press adds the increment to the presser, and while the clock runs one side
 * loses exactly the time that passes; so between two readings
 *
 *     (white + black) after − (white + black) before = presses × increment − time passed.
 *
 * The DGT clock shows whole seconds, so each reading's sum is short of the truth by up to two
 * seconds, and the host stamps readings a little after the clock made them: the count is known
 * only when a single whole number fits within `PRESS_COUNT_TOLERANCE_MS`, and has the parity the
 * two running sides call for (the same side running: an even count).
 *
 * Presses alternate, the side running at the first reading pressing first, so a count also says
 * how many presses each side made, and so how much of its own time each side used: none below
 * zero, none above the time that passed. A clock set by hand meanwhile (two minutes added to one
 * side after an illegal move) can fit the sum with a whole number of presses, but it puts all of
 * its time on one side where presses spread it over both: when a side's use falls outside those
 * bounds the times were set, and nothing is counted. A clock stopped, or set by as much on both
 * sides, still passes: such a count is wrong, and its users weigh it only among readings of the
 * board that fit anyway.
 */

/** A clock reading as the host stamped it. */
export interface StampedReading {
  at: number;
  whiteMs: number;
  blackMs: number;
  running: Color | null;
}

/** Two whole-second displays and the stamps of two readings: what the sums can be off by. */
export const PRESS_COUNT_TOLERANCE_MS = 2_500;

/** The presses between `before` and `after`; undefined when the times allow more than one count (or none). */
export function pressesBetween(before: StampedReading, after: StampedReading, incrementMs: number): number | undefined {
  if (incrementMs <= 0 || before.running === null || after.running === null || after.at < before.at) return undefined;
  // A flag down: that side's clock stands at zero while it runs, and its presses add nothing, so
  // the sums no longer hold.
  if (Math.min(before.whiteMs, before.blackMs, after.whiteMs, after.blackMs) <= 0) return undefined;
  const gained = after.whiteMs + after.blackMs - (before.whiteMs + before.blackMs) + (after.at - before.at);
  const parity = before.running === after.running ? 0 : 1;
  const lo = Math.max(0, Math.ceil((gained - PRESS_COUNT_TOLERANCE_MS) / incrementMs));
  const hi = Math.floor((gained + PRESS_COUNT_TOLERANCE_MS) / incrementMs);
  let count: number | undefined;
  for (let k = lo; k <= hi; k++) {
    if (k % 2 !== parity) continue;
    if (count !== undefined) return undefined;
    count = k;
  }
  return count !== undefined && eachSideUsedItsOwn(before, after, incrementMs, count) ? count : undefined;
}

/** With `presses` alternating from the side running at `before`, each side used between none and all of the time that passed. */
function eachSideUsedItsOwn(before: StampedReading, after: StampedReading, incrementMs: number, presses: number): boolean {
  const first = Math.ceil(presses / 2);
  const second = Math.floor(presses / 2);
  const whitePresses = before.running === 'white' ? first : second;
  const blackPresses = before.running === 'white' ? second : first;
  const passed = after.at - before.at;
  const used = [before.whiteMs + whitePresses * incrementMs - after.whiteMs, before.blackMs + blackPresses * incrementMs - after.blackMs];
  return used.every((ms) => ms >= -PRESS_COUNT_TOLERANCE_MS && ms <= passed + PRESS_COUNT_TOLERANCE_MS);
}
