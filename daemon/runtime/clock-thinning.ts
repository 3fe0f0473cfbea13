import type { ClockRow } from './derived-rows.ts';

/** A reading kept at least this often while nothing else changes (a clock running through a long think). */
export const CLOCK_HEARTBEAT_MS = 60_000;

/**
 * Which clock readings become `clock_readings` rows. A DGT clock reports once a second while it
 * runs; every report is kept as a raw event (the evidence), but the derived rows keep those that
 * say something: a game's first reading, a press or a stop (the running side changed), a flag, a
 * reading from the board's log, and one a minute in between. That is a few hundred rows a game
 * instead of several thousand (docs/store.md, "Size"). The rule depends only on the game's
 * readings in order, so a start that replays them decides as the running daemon did.
 */
export class ClockThinning {
  private readonly lastKept = new Map<string, ClockRow['reading']>();

  /** Whether `row` is kept; call for every reading of every game, in order. */
  keep(row: ClockRow): boolean {
    const r = row.reading;
    const last = this.lastKept.get(row.game.id);
    const kept = !last || last.running !== r.running || last.whiteFlag !== r.whiteFlag || last.blackFlag !== r.blackFlag || r.logged === true || r.at - last.at >= CLOCK_HEARTBEAT_MS;
    if (kept) this.lastKept.set(row.game.id, r);
    return kept;
  }
}
