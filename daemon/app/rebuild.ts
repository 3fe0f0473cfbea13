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
import { TableCatchUp } from './table-catch-up.ts';
import type { DeferredTable } from '../runtime/checkpoint-restore.ts';
import { catchUpTable } from '../runtime/table-rebuild.ts';

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
  /** Tables served from their live snapshots, to be caught up after serving. */
  deferred: DeferredTable[];
  /** The highest raw event id of a stored clock reading at the start (the catch-ups write the readings after it). */
  lastClockRaw: number;
}

/** The live state rebuilt by replaying the stored raw events of the hall's tables. */
export function rebuildFromStore(
  store: Store,
  router: HallRouter,
  tables: readonly number[],
  log: Logger,
  thinning = new ClockThinning(),
  /** Which tables may be served from their live snapshots (none by default). */
  serveLiveSnapshots: (table: number) => boolean = () => false,
): Rebuilt {
  const t0 = performance.now();
  // Clock readings a crash kept from the store (they follow the last stored one) are written below.
  const lastClockRaw = store.lastClockRawEventId();
  const missedClocks: ClockRow[] = [];
  // Each table from its latest game boundary, the games before it from their snapshots.
  const replay = replayStoreFrom(store, router, tables, {
    fromCheckpoints: true,
    liveSnapshots: new Map(store.liveSnapshots().flatMap((s) => (serveLiveSnapshots(s.tableNumber) ? [[s.tableNumber, s] as const] : []))),
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
    deferred: replay.deferred,
    lastClockRaw,
  };
  for (const w of replay.whole) log.warn('table replayed from its first event: its checkpoint cannot be used', w);
  log.info('live state rebuilt from the store', {
    rawEvents: replay.events,
    games: rebuilt.games,
    fromSnapshots: replay.restoredGames,
    tablesFromCheckpoint: replay.fromCheckpoint.length,
    servedFromLiveSnapshots: replay.deferred.length,
    ms: Math.round(rebuilt.ms),
  });
  return rebuilt;
}

export interface RestoredHall {
  live: MemoryLiveSource;
  router: HallRouter;
  derived: DerivedWriter;
  rebuilt: Rebuilt;
  /** The tables served from their live snapshots, caught up once started (after serving). */
  catchUp: TableCatchUp;
}

/**
 * The hall as a start finds it in the store: the read model and router rebuilt (each table from
 * its last game boundary, docs/store.md "Restart"), the derived rows a crash left behind written,
 * and the router checkpointing every later game boundary.
 */
export function restoreHall(
  store: Store,
  config: BoardcastConfig,
  opts: {
    tables: readonly number[];
    tournamentId: number;
    pairings: PairingLookup;
    log: Logger;
    /** Serve live snapshots (default true), or only those of the tables a function names. */
    serveLiveSnapshots?: boolean | ((table: number) => boolean);
  },
): RestoredHall {
  const { log } = opts;
  const live = newLiveSource(config, store);
  // Set before the start-up replay: an engine that fails on a stored event or decision is logged there too.
  live.onEngineFault = (fault, error) =>
    log.error("a game's engine failed (a fault in boardcast): the event is stored, the other games go on", { ...fault, stack: (error as Error)?.stack ?? String(error) });
  // The boundaries the start-up replay passes (a store written before checkpoints, or boundaries a
  // crash kept from being written) are written together after it, in one transaction (one fsync,
  // not one each); from then on each is written as it comes.
  let replaying: { track: string; number: number; rawEventId: number }[] | null = [];
  const checkpoint = (number: number, write: () => void): void => {
    try {
      write();
    } catch (e) {
      log.error('table checkpoint not written (the next start replays more)', { table: number, error: String(e) });
    }
  };
  const router = hallRouter(config, live, opts.pairings, (track, rawEventId) => {
    if (replaying) replaying.push({ track: JSON.stringify(track), number: track.number, rawEventId });
    else checkpoint(track.number, () => recordCheckpoint(store, track, rawEventId));
  });
  const thinning = new ClockThinning();
  const serve = opts.serveLiveSnapshots ?? true;
  const rebuilt = rebuildFromStore(store, router, opts.tables, log, thinning, typeof serve === 'function' ? serve : () => serve);
  // The tables served from their live snapshots: each replayed in a scratch read model later and
  // taken over, the clock readings a crash left out written as the start-up replay writes them.
  const catchUp = new TableCatchUp(
    rebuilt.deferred,
    (table) => {
      const missed: ClockRow[] = [];
      const caught = catchUpTable(store, router, table, rebuilt.lastClockRaw, (step, scratch) => {
        const ev = step.event.event;
        if (ev?.type !== 'clock' || step.gameId === null) return;
        const game = scratch.live.progress(step.gameId);
        if (!game) return;
        const row = { game, rawEventId: step.event.id, wallMs: step.event.wallMs, reading: ev };
        if (thinning.keep(row) && step.event.id > rebuilt.lastClockRaw) missed.push(row);
      });
      derived.clockReadings(missed);
      try {
        store.transaction(() => caught.games.forEach((id) => derived.reconcile(id, true)));
      } catch (e) {
        log.error('derived rows not written after a catch-up', { table, error: String(e) });
      }
      return caught.events;
    },
    log.child('catch-up'),
  );
  // An engine for a game served from a snapshot: its table caught up now if it waits, else the
  // game replayed from the store (a game its table has left).
  const rebuild = gameRebuilder(store, router);
  live.onHydrate((id) => {
    const table = live.progress(id)?.table;
    if (table !== undefined && catchUp.pending(table)) {
      catchUp.settle(table);
      return live;
    }
    return rebuild(id);
  });
  const passed = replaying;
  replaying = null;
  if (passed.length > 0)
    checkpoint(0, () => store.transaction(() => passed.forEach((c) => store.recordCheckpoint({ tableNumber: c.number, rawEventId: c.rawEventId, trackJson: c.track }, Date.now()))));
  // Derived rows after the replay: a crash between a raw commit and its derived writes is repaired here.
  const derived = derivedWriter(store, opts.tournamentId, router, new Set(opts.tables), log.child('derived'), thinning, (table) => catchUp.pending(table));
  // The games were just derived from the store with the amendments in force, so a result stored as
  // the arbiter's whose amendment was undone (a crash before the undo's rows) is reopened too. The
  // games put back from snapshots are what the store holds (the verification checks them).
  // One transaction for them all: a store written before snapshots gets one for every finished game.
  try {
    store.transaction(() => {
      for (const t of router.tracks()) for (const id of t.games) if (live.hasEngine(id)) derived.reconcile(id, true);
    });
  } catch (e) {
    // The store refused the commit (a full disk): the rows are written again by the next reconcile or start.
    log.error('derived rows not written at start', { error: String(e) });
  }
  derived.clockReadings(rebuilt.missedClocks);
  // Games put back from snapshots carry the players of their last write: pairings imported or
  // corrected since (while the daemon was down) are applied as a whole replay would, and saved.
  for (const id of router.refreshPlayers()) derived.snapshot(id);
  return { live, router, derived, rebuilt, catchUp };
}
