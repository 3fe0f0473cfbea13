import type { Logger } from '../log/logger.ts';
import type { DeferredTable } from '../runtime/checkpoint-restore.ts';

/** Where the catch-up of the tables a start served from their live snapshots stands (/health `store.catchUp`). */
export interface CatchUpState {
  /** Tables served from their live snapshots at the start. */
  tables: number;
  /** Of those, the ones still waiting for their replay. */
  pending: number;
  /** Raw events replayed so far. */
  events: number;
  /** How long it took from the first to the last table; null until done. */
  ms: number | null;
}

/** How long one turn of the catch-up may hold the event loop before the server gets it back. */
const SLICE_MS = 15;

/**
 * Catches up, in the background after the server answers, the tables a start served from their
 * live snapshots (docs/store.md, "Restart"): a table or a few per turn of the event loop, so
 * requests and board events keep being served meanwhile. A table's board events are not routed
 * until it is caught up (they are in the store, and its replay reads them); a table an arbiter's
 * decision reaches is caught up at once (`settle`).
 */
export class TableCatchUp {
  private readonly queue: number[];
  private readonly waiting: Set<number>;
  private events = 0;
  private startedAt: number | null = null;
  private doneMs: number | null = null;
  private stopped = false;

  constructor(
    deferred: readonly DeferredTable[],
    /** Replays one table and takes its games over; returns the raw events replayed. */
    private readonly run: (table: number) => number,
    private readonly log: Logger,
  ) {
    this.queue = deferred.map((d) => d.table);
    this.waiting = new Set(this.queue);
    if (this.queue.length === 0) this.doneMs = 0;
  }

  /** Whether the table still waits for its replay (its board events are not routed meanwhile). */
  pending(table: number): boolean {
    return this.waiting.has(table);
  }

  /** Catches the table up now if it waits (an arbiter's decision reaches its game). */
  settle(table: number): void {
    if (!this.waiting.delete(table)) return;
    try {
      this.events += this.run(table);
    } catch (e) {
      // The table then stays on what its snapshot showed; the next start replays it again.
      this.log.error('table not caught up from the store', { table, error: String(e) });
    }
    if (this.waiting.size === 0 && this.doneMs === null) {
      this.doneMs = performance.now() - (this.startedAt ?? performance.now());
      this.log.info('tables caught up from the store', { tables: this.queue.length, rawEvents: this.events, ms: Math.round(this.doneMs) });
    }
  }

  /** Starts the background turns. */
  start(): void {
    if (this.startedAt !== null || this.waiting.size === 0) return;
    this.startedAt = performance.now();
    this.log.info('serving live games from their snapshots; catching their tables up', { tables: this.waiting.size });
    const turn = (): void => {
      if (this.stopped) return;
      const until = performance.now() + SLICE_MS;
      for (const table of this.queue) {
        if (performance.now() > until) break;
        this.settle(table);
      }
      if (this.waiting.size > 0) setImmediate(turn);
    };
    setImmediate(turn);
  }

  stop(): void {
    this.stopped = true;
  }

  state(): CatchUpState {
    return { tables: this.queue.length, pending: this.waiting.size, events: this.events, ms: this.doneMs === null ? null : Math.round(this.doneMs) };
  }
}
