import type { Logger } from '../log/logger.ts';
import { DerivedRows, type ClockRow } from '../runtime/derived-rows.ts';
import type { HallRouter } from '../runtime/hall-router.ts';
import { recordSnapshotIfChanged } from '../runtime/checkpoint-restore.ts';
import { ClockThinning } from '../runtime/clock-thinning.ts';
import type { StoredRawEvent } from '../store/types.ts';
import type { Store } from '../store/store.ts';

/** Writes what the engines derived (games, moves, clocks, results, incidents) into the store. */
export interface DerivedWriter {
  /** Brings one game's derived rows up to its engine's state (`rederived`: see DerivedRows.reconcile). */
  reconcile: (gameId: string, rederived?: boolean) => void;
  /** Writes the snapshot of a game its table has left when its read model changed (players re-read from the pairings). */
  snapshot: (gameId: string) => void;
  clockReadings: (rows: ClockRow[]) => void;
  /** Routes a committed batch of raw events into the games' engines, then writes what they derived. */
  committed: (batch: readonly StoredRawEvent[]) => void;
}

/**
 * `tables`: the hall's tables; raw events of others (a store written by another config) are not
 * routed. `thinning`: which clock readings become rows (the start-up replay primed it).
 */
export function derivedWriter(
  store: Store,
  tournamentId: number,
  router: HallRouter,
  tables: ReadonlySet<number>,
  log: Logger,
  thinning = new ClockThinning(),
  /** Tables not routed for now (served from a live snapshot until caught up: their replay reads these events). */
  held: (table: number) => boolean = () => false,
): DerivedWriter {
  const derived = new DerivedRows(store, (round) => store.round(tournamentId, round)?.id ?? null);
  const live = router.live;
  const snapshots = new Map<string, string>();
  const reconcile = (gameId: string, rederived = false): void => {
    // A game put back from its snapshot has no engine: nothing to derive, but its read model may
    // have changed (players swapped, pairings re-read): its snapshot says so.
    if (!live.hasEngine(gameId)) return snapshot(gameId);
    const g = live.game(gameId);
    if (!g) return;
    // One game's rows failing must not keep the others from being written; the raw events are
    // stored, so the next reconcile (next batch, or the next start) tries again.
    try {
      const r = derived.reconcile(g, g.round - 1, { rederived });
      for (const p of r.problems) log.warn('derived row not written', { gameId, problem: p });
    } catch (e) {
      log.error('derived rows not written', { gameId, error: String(e) });
    }
    snapshot(gameId);
  };
  // A game its table has left (the next one opened, or the table waits for the next round): its
  // read model is what a restart puts back instead of replaying it.
  const snapshot = (gameId: string): void => {
    const g = live.progress(gameId);
    if (!g || router.track(g.table).gameId === gameId) return;
    try {
      recordSnapshotIfChanged(store, live, gameId, snapshots);
    } catch (e) {
      log.error('game snapshot not written (the next start replays its table)', { gameId, error: String(e) });
    }
  };
  const clockReadings = (rows: ClockRow[]): void => {
    try {
      derived.clockReadings(rows);
    } catch (e) {
      log.error('clock readings not written', { error: String(e) });
    }
  };
  return {
    reconcile,
    snapshot,
    clockReadings,
    committed: (batch) => {
      const touched = new Set<string>();
      const clocks: ClockRow[] = [];
      for (const e of batch) {
        if (!tables.has(e.tableNumber) || held(e.tableNumber)) continue;
        const track = router.track(e.tableNumber);
        if (!e.event) {
          track.lastEventId = e.id;
          continue;
        }
        if (track.gameId) touched.add(track.gameId);
        const to = router.route(e.tableNumber, e.event, e.id);
        if (!to) continue;
        touched.add(to);
        if (e.event.type !== 'clock') continue;
        const row: ClockRow = { game: live.progress(to)!, rawEventId: e.id, wallMs: e.wallMs, reading: e.event };
        if (thinning.keep(row)) clocks.push(row);
      }
      clockReadings(clocks);
      for (const id of touched) reconcile(id);
    },
  };
}
