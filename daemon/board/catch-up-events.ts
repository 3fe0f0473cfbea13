import type { BoardEvent } from '../../protocols/board-events.ts';
import type { CatchUpAnchor, CaughtUp } from '../../protocols/dgt/ee-catchup.ts';
import type { ClockEvent, ClockSide } from './clock-sides.ts';

/**
 * Where the host's stored events left a board, for a catch-up from its log: the anchor, and the
 * host's last clock reading of it, which tells a side's time that has not pressed since (also to a
 * host that restarted and has read nothing yet).
 */
export type HostAnchor = CatchUpAnchor & { lastClock?: ClockEvent | null };

/**
 * The board events of an EEPROM catch-up, in the order the board lived them: each missed field
 * change at its time (`times`, from spreadCatchUpTimes), and between them the whole boards a
 * power-up listed (as dumps) and the lever presses the log recorded (as clock readings).
 *
 * A press's reading is the log's own: the halted side's time as the clock showed it at the press,
 * and the other side's time as its own last logged press left it (a halted clock keeps its time).
 * When the log does not tell the other side's time (it has not pressed since the log began), the
 * host's last reading of it is used (`lastClock`: its clock has been halted since), unless the
 * board powered up since (the presses made while it was off were not logged): then the press still
 * goes out (it tells who pressed) with the last time seen of that side, marked `partial`; with no
 * time seen at all it is left out. Boards and presses sit evenly between
 * the changes around them, strictly inside (lastAt, dumpAt).
 */
export function caughtUpEvents(
  caught: Pick<CaughtUp, 'fields' | 'presses' | 'boards' | 'poweredUp'>,
  times: readonly number[],
  span: { lastAt: number; dumpAt: number },
  whiteOnClock: ClockSide,
  lastClock: ClockEvent | null,
): BoardEvent[] {
  const out: BoardEvent[] = [];
  const n = caught.fields.length;
  // The host's last reading tells a side's time only while that side has not pressed since: not
  // once the board has powered up (the clock ran and was pressed while it was off, unlogged).
  const hostKnows = !caught.poweredUp;
  // The last time seen of each side, known or not: a press whose other side is not known still
  // tells who pressed (the engine needs that), so it goes out with this, marked partial.
  const seen = { white: lastClock?.whiteMs ?? null, black: lastClock?.blackMs ?? null };
  for (let i = 0; i <= n; i++) {
    const boards = caught.boards.filter((b) => b.before === i);
    const presses = caught.presses.filter((p) => p.before === i);
    const from = i === 0 ? Math.min(span.lastAt, times[0] ?? span.dumpAt) : times[i - 1]!;
    const to = i === n ? Math.max(span.dumpAt, from) : times[i]!;
    const k = boards.length + presses.length;
    let j = 0;
    const at = (): number => from + ((to - from) * ++j) / (k + 1);
    for (const b of boards) out.push({ type: 'dump', at: at(), board: b.board.slice() });
    for (const p of presses) {
      const t = at();
      const by = p.side === whiteOnClock ? 'white' : 'black';
      const other = by === 'white' ? 'black' : 'white';
      seen[by] = p.ms;
      if (p.otherMs !== null) seen[other] = p.otherMs;
      // The log's own reading of the other side (its last logged press, none from before a
      // power-up), else the host's.
      const known = p.otherMs ?? (hostKnows && lastClock ? (other === 'white' ? lastClock.whiteMs : lastClock.blackMs) : null);
      const otherMs = known ?? seen[other];
      if (otherMs === null) continue;
      const whiteMs = by === 'white' ? p.ms : otherMs;
      const blackMs = by === 'white' ? otherMs : p.ms;
      // The press of the host's last move may be logged after the last change it saw, though its
      // reading reached the host live: not a second press.
      if (i === 0 && lastClock?.running === other && (by === 'white' ? lastClock.whiteMs : lastClock.blackMs) === p.ms) continue;
      out.push({ type: 'clock', at: t, whiteMs, blackMs, running: other, whiteFlag: false, blackFlag: false, logged: true, ...(known === null ? { partial: true as const } : {}) });
    }
    const f = caught.fields[i];
    if (f) out.push({ type: 'field', at: times[i]!, field: f.field, piece: f.piece, logged: true });
  }
  return out;
}
