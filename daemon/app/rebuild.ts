import type { Logger } from '../log/logger.ts';
import type { ClockRow } from '../runtime/derived-rows.ts';
import { recordCheckpoint } from '../runtime/checkpoint-restore.ts';
import { ClockThinning } from '../runtime/clock-thinning.ts';
import type { HallRouter, PairingLookup } from '../runtime/hall-router.ts';
import type { MemoryLiveSource } from '../runtime/memory-live-source.ts';
import { gameRebuilder, hallRouter, newLiveSource, replayStoreFrom } from '../runtime/store-replay.ts';
import type { Store } from '../store/store.ts';
import type { BoardcastConfig } from '../tournament/config.ts';
import { derivedWriter, type DerivedWriter } from './derived-writer.ts';

export interface Rebuilt {
  /** Raw events replayed. */
  events: number;
  games: number;
  /** Games put back from their snapshots (their tables moved on before the restart). */
  restoredGames: number;
  /** Tables rebuilt from a checkpoint rather than from their first event. */
  fromCheckpoint: number;
  ms: number;
  /** Clock readings the store holds raw but not derived (a crash came between), thinned: to be written. */
  missedClocks: ClockRow[];
}

/** The live state rebuilt by replaying the stored raw events of the hall's tables. */
export function rebuildFromStore(store: Store, router: HallRouter, tables: readonly number[], log: Logger, thinning = new ClockThinning()): Rebuilt {
  const t0 = performance.now();
  // Clock readings a crash kept from the store (they follow the last stored one) are written below.
  const lastClockRaw = store.lastClockRawEventId();
  const missedClocks: ClockRow[] = [];
  // Each table from its latest game boundary, the games before it from their snapshots.
  const replay = replayStoreFrom(store, router, tables, {
    fromCheckpoints: true,
    onEvent: (step) => {
      const ev = step.event.event;
      if (ev?.type !== 'clock' || step.gameId === null) return;
      const game = router.live.progress(step.gameId);
      if (!game) return;
      // Every reading goes through the thinning (so it decides as the running daemon did); the
      // kept ones after the last stored reading are the ones a crash left out.
      const row = { game, rawEventId: step.event.id, wallMs: step.event.wallMs, reading: ev };
      if (thinning.keep(row) && step.event.id > lastClockRaw) missedClocks.push(row);
    },
  });
  const rebuilt = {
    events: replay.events,
    games: router.tracks().reduce((n, t) => n + t.games.length, 0),
    restoredGames: replay.restoredGames,
    fromCheckpoint: replay.fromCheckpoint.length,
    ms: performance.now() - t0,
    missedClocks,
  };
  for (const w of replay.whole) log.warn('table replayed from its first event: its checkpoint cannot be used', w);
  log.info('live state rebuilt from the store', {
    rawEvents: replay.events,
    games: rebuilt.games,
    fromSnapshots: replay.restoredGames,
    tablesFromCheckpoint: replay.fromCheckpoint.length,
    ms: Math.round(rebuilt.ms),
  });
  return rebuilt;
}

export interface RestoredHall {
  live: MemoryLiveSource;
  router: HallRouter;
  derived: DerivedWriter;
  rebuilt: Rebuilt;
}

/**
 * The hall as a start finds it in the store: the read model and router rebuilt (each table from
 * its last game boundary, docs/store.md "Restart"), the derived rows a crash left behind written,
 * and the router checkpointing every later game boundary.
 */
export function restoreHall(store: Store, config: BoardcastConfig, opts: { tables: readonly number[]; tournamentId: number; pairings: PairingLookup; log: Logger }): RestoredHall {
  const { log } = opts;
  const live = newLiveSource(config, store);
  const router = hallRouter(config, live, opts.pairings, (track, rawEventId) => {
    try {
      recordCheckpoint(store, track, rawEventId);
    } catch (e) {
      log.error('table checkpoint not written (the next start replays more)', { table: track.number, error: String(e) });
    }
  });
  live.onHydrate(gameRebuilder(store, router));
  const thinning = new ClockThinning();
  const rebuilt = rebuildFromStore(store, router, opts.tables, log, thinning);
  // Derived rows after the replay: a crash between a raw commit and its derived writes is repaired here.
  const derived = derivedWriter(store, opts.tournamentId, router, new Set(opts.tables), log.child('derived'), thinning);
  // The games were just derived from the store with the amendments in force, so a result stored as
  // the arbiter's whose amendment was undone (a crash before the undo's rows) is reopened too. The
  // games put back from snapshots are what the store holds (the verification checks them).
  for (const t of router.tracks()) for (const id of t.games) if (live.hasEngine(id)) derived.reconcile(id, true);
  derived.clockReadings(rebuilt.missedClocks);
  // Games put back from snapshots carry the players of their last write: pairings imported or
  // corrected since (while the daemon was down) are applied as a whole replay would, and saved.
  for (const id of router.refreshPlayers()) derived.snapshot(id);
  return { live, router, derived, rebuilt };
}
