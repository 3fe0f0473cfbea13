import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Timers } from '../board/timers.ts';
import type { Logger } from '../log/logger.ts';
import type { GameState } from '../../protocols/feed/model.ts';
import { problemsFirst, type HallReport, type OutputsHealth, type TableConnection } from '../../protocols/feed/hall.ts';
import { gameActionHandler, gameAmendments, roundHandler } from '../runtime/arbiter-actions.ts';
import type { BoardSources } from '../runtime/board-sources.ts';
import type { BusTableLink } from '../runtime/bus-tables.ts';
import { lockDataDir } from '../runtime/data-lock.ts';
import { FramePairing } from '../runtime/frame-pairing.ts';
import { hallPairings } from '../runtime/hall-pairings.ts';
import type { MemoryLiveSource } from '../runtime/memory-live-source.ts';
import { gameTimeline } from '../runtime/timeline.ts';
import { startServer, type RunningServer } from '../server/server.ts';
import { DelayedLiveSource } from '../runtime/delayed-live-source.ts';
import { describeStoreOpenError } from '../store/errors.ts';
import { RawEventWriter } from '../store/raw-event-writer.ts';
import { err, ok, type Result } from '../store/result.ts';
import { openStore, STORE_FILE, type Store } from '../store/store.ts';
import type { IntegrityCheck } from '../store/integrity.ts';
import { tournamentSetup, type BoardcastConfig } from '../tournament/config.ts';
import { backedUpOnClose, loggedArbiter, loggedRounds } from './arbiter-log.ts';
import { plugEmulatedBoards } from './emulated-hall.ts';
import { portFree } from './port-check.ts';
import { hallBoards } from './hall-boards.ts';
import { watchPairings } from './pairings-watch.ts';
import { startBackups } from './backups.ts';
import { watchDevicePaths } from './device-watch.ts';
import { restoreHall } from './rebuild.ts';
import { liveSnapshotWriter } from './live-snapshot-writer.ts';
import { startStoreUpkeep, type StoreUpkeep } from './store-upkeep.ts';
import { tableEventHandler } from './table-events.ts';
import { boardChanger, boardFixedReason } from './board-changes.ts';
import { boardsInForce, withBoards } from '../runtime/board-changes.ts';
import { tableLinks, type HallTable } from './table-links.ts';
import { TableWatch } from './table-watch.ts';
import { lichessToken, startOutputs, type RunningOutputs } from './outputs.ts';

export interface DaemonOptions {
  config: BoardcastConfig;
  log: Logger;
  /** Overrides config.httpPort (0: a free port). */
  port?: number;
  host?: string;
  /** Extra directory/glob entries to look for serial-numbered boards in (default: BOARDCAST_DEVICE_DIRS). */
  deviceDirs?: string[];
  /** Emulated time runs this many times faster than real time (tests, demos). Default 1. */
  pace?: number;
  /** How the store is checked before it is opened for writing (default 'quick'; serve --check: 'full'). */
  check?: IntegrityCheck;
  /** A missing or empty store may be started afresh although one existed (serve --new). */
  newStore?: boolean;
  viewer?: boolean;
}

/** A table's board connection as /health and the hall page report it (protocols/feed/hall.ts). */
export type TableStatus = TableConnection;

export interface RunningDaemon {
  url: string;
  live: MemoryLiveSource;
  store: Store;
  tables(): TableStatus[];
  /** Raw events replayed at start, and how long the rebuild took. */
  rebuilt: { events: number; games: number; restoredGames: number; ms: number };
  stop(): Promise<void>;
}

/** Session time is wall-clock ms, so events of a run before a restart stay earlier than the new ones. */
const wallTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof globalThis.setTimeout>),
};

export async function startDaemon(opts: DaemonOptions): Promise<Result<RunningDaemon, string>> {
  const { config } = opts;
  try {
    mkdirSync(config.dataDir, { recursive: true });
  } catch (e) {
    return err(`store error: cannot create the data directory ${config.dataDir}: ${(e as Error).message}`);
  }
  const token = lichessToken(config);
  if (!token.ok) return token;
  const lock = lockDataDir(config.dataDir);
  if (!lock.ok) return lock;
  const port = opts.port ?? config.httpPort;
  if (port !== 0) {
    const free = await portFree(port, opts.host ?? config.httpHost);
    if (!free.ok) {
      lock.value.release();
      return err(`cannot serve: ${free.error}; the store was not opened`);
    }
  }
  const opened = openStore(join(config.dataDir, STORE_FILE), { check: opts.check ?? 'quick', allowNew: opts.newStore ?? false });
  if (!opened.ok) {
    lock.value.release();
    return err(describeStoreOpenError(opened.error));
  }
  const opendStore = opened.value;
  // Every way out before serving closes the store and releases the directory.
  const store: Store = {
    ...opendStore,
    close: () => {
      opendStore.close();
      lock.value.release();
    },
  };
  try {
    return await startOnStore(opts, store, token.value);
  } catch (e) {
    store.close();
    return err(`store error: ${store.file}: ${(e as Error).message}`);
  }
}

async function startOnStore(opts: DaemonOptions, store: Store, lichessPushToken: string | null): Promise<Result<RunningDaemon, string>> {
  const { config, log } = opts;
  // The boards the organiser put in during the event (the audit trail), in place of the file's.
  const boardsChosen = boardsInForce(store.amendments(), config);
  if (boardsChosen.size > 0) log.info('tables read the boards the organiser put in', { boards: Object.fromEntries(boardsChosen) });
  const planned = hallBoards(withBoards(config, boardsChosen), {
    log,
    timers: wallTimers,
    ...(opts.deviceDirs ? { deviceDirs: opts.deviceDirs } : {}),
    onMatch: (table) => byNumber.get(table)?.session.start(),
  });
  if (!planned.ok) {
    store.close();
    return planned;
  }
  const { boards, busLinks, sources, emulated } = planned.value;
  // The hall's tables, emulated ones included, so the board serial ↔ table mapping can refer to them.
  store.syncTables(boards.map((b) => ({ number: b.number, board: b.board, whiteOnClock: config.tables.find((t) => t.number === b.number)?.whiteOnClock ?? 'left' })));
  const tournamentId = store.upsertTournament(tournamentSetup(config));

  // The games: rebuilt from the stored raw events (from each table's last game boundary), players
  // from the pairings (or the demo's scores); derived rows a crash left behind are written.
  const numbers = boards.map((b) => b.number);
  const pairings = hallPairings(store, config, emulated?.source ?? null);
  // Emulated tables are replayed before serving: their players resume from where the stored game
  // stands, so serving them from a snapshot first gains nothing (and a restart of the demo hall
  // under noise once split a game that way: docs/store.md, *Restart*).
  const emulatedTables = new Set(boards.filter((b) => b.board.startsWith('emulated:')).map((b) => b.number));
  const { live, router, derived, rebuilt, catchUp } = restoreHall(store, config, { tables: numbers, tournamentId, pairings, log, serveLiveSnapshots: (n) => !emulatedTables.has(n) });
  // The emulated players resume where the stored game stands: their tables are caught up first.
  if (emulated) for (const b of boards) if (b.board.startsWith('emulated:')) catchUp.settle(b.number);
  if (emulated)
    plugEmulatedBoards(
      boards,
      numbers.map((n) => router.track(n)),
      live,
      emulated,
      config,
      opts.pace ?? 1,
      log,
    );
  const tables = tableLinks(boards, busLinks, router, config, wallTimers, (n) => catchUp.settle(n));
  const byNumber = new Map(tables.map((t) => [t.track.number, t]));

  // Store before broadcast: only committed raw events reach the engines and the feed.
  const writer = new RawEventWriter(store, {
    onCommitted: (batch) => derived.committed(batch),
    onError: (e, phase, pending) =>
      log.error(phase === 'commit' ? 'the store cannot write: board events are held until it can (nothing new is broadcast meanwhile)' : 'raw event listener failed', { error: String(e), pending }),
    onRecovered: (committed) => log.warn('the store writes again: the events held meanwhile are committed', { committed }),
  });
  const watches = new Map(tables.map((t) => [t.track.number, new TableWatch()]));
  for (const t of tables) {
    const pairing = new FramePairing(
      t.track.number,
      () => t.session.serialNumber,
      (row) => writer.push(row),
      Date.now,
      () => writer.commits,
    );
    const watch = watches.get(t.track.number)!;
    const table = {
      number: t.track.number,
      get board() {
        return t.board;
      },
      serial: () => t.session.serialNumber,
    };
    t.session.on(tableEventHandler(table, { store, sources, pairing, watch, log: log.child(`table ${t.track.number}`) }));
  }
  const stopNoiseReports = reportLineNoise(watches, log);
  // Tables on a device path of their own: retried at once when the path comes back.
  const watchPaths = (): (() => void) =>
    watchDevicePaths(
      boards.filter((b) => b.transport !== null && b.link === null && b.board.startsWith('/')).map((b) => ({ path: b.board, retryNow: () => byNumber.get(b.number)?.session.retryNow?.() })),
      log,
    );
  let stopWatchingPaths = watchPaths();
  const stopDeviceWatch = (): void => stopWatchingPaths();
  const syncTables = (): void => store.syncTables(boards.map((b) => ({ number: b.number, board: b.board, whiteOnClock: config.tables.find((t) => t.number === b.number)?.whiteOnClock ?? 'left' })));
  // The organiser changes a table's board from the hall page (docs/hall.md).
  // Whether a table's board can be changed here depends on the config and the table's kind only.
  const boardFixed = boardFixedReason(config);
  const fixedBoards = new Map(boards.map((b) => [b.number, boardFixed(b)]));
  const changeBoard = boardChanger({
    config,
    boards,
    tables: byNumber,
    sources,
    store,
    log: log.child('boards'),
    changed: () => {
      stopWatchingPaths();
      stopWatchingPaths = watchPaths();
      syncTables();
    },
  });
  // New players for a game its table has left: its snapshot must say so for the next start.
  const stopPairings = watchPairings(store, router, log, undefined, (ids) => ids.forEach(derived.snapshot));
  const backups = startBackups(store, config.dataDir, config.backup, log.child('backup'));
  const closeRoundsBackedUp = backedUpOnClose(loggedRounds(roundHandler({ store, tournamentId, router, tables: numbers, reconcile: derived.reconcile }), log.child('arbiter')), backups);

  const alog = log.child('arbiter');
  const hlog = log.child('http');
  const reconcile = derived.reconcile;
  const startedAt = Date.now();
  const tableList = (): TableStatus[] => tableStatuses(tables, sources, busLinks, watches, live);
  // The broadcast delay: every public output reads this view; officials read `live`.
  const delayed = config.broadcast.delaySeconds > 0 ? new DelayedLiveSource(live, config.broadcast.delaySeconds * 1000) : null;
  if (delayed) log.info('public outputs delayed', { seconds: config.broadcast.delaySeconds });
  // Started once the server is up; /health reports them from then on.
  let outputs: RunningOutputs | null = null;
  let upkeep: StoreUpkeep | null = null;
  const outputsHealth = (): OutputsHealth => outputs?.health() ?? { liveChessApi: null, lichessPush: null, pgnFolder: null };
  // The hall page: the connections /health lists, problems first, with each game's last move as
  // officials see it (live: /health is public, so it names no move ahead of the broadcast delay).
  const hallReport = (): HallReport => ({
    at: Date.now(),
    tables: problemsFirst(tableList()).map((t) => ({
      ...t,
      lastMove: t.gameId === null ? null : (live.game(t.gameId)?.lastMove?.san ?? null),
      boardFixed: fixedBoards.get(t.table) ?? null,
    })),
    outputs: outputsHealth(),
  });
  let server: RunningServer;
  try {
    server = await startServer({
      source: live,
      ...(delayed ? { publicSource: delayed } : {}),
      port: opts.port ?? config.httpPort,
      host: opts.host ?? config.httpHost,
      viewer: opts.viewer ?? true,
      feed: config.feed,
      access: { accounts: config.access.accounts, sessionTtlMs: config.access.sessionHours * 3600_000, secureCookie: config.access.secureCookie },
      arbiter: loggedArbiter(gameActionHandler({ store, tournamentId, router, reconcile }), alog),
      amendments: gameAmendments(store, router),
      rounds: closeRoundsBackedUp,
      // Built from the store on request: what the broadcast showed, step by step.
      timeline: (gameId) => gameTimeline(store, config, gameId),
      bridges: { serialOf: (table) => byNumber.get(table)?.session.serialNumber ?? null },
      // One line per failed request; the client gets JSON, never a stack trace.
      onAccess: (message, fields) => log.child('access').info(message, fields),
      onRequestError: (p) => (p.status >= 500 ? hlog.error('request failed', p) : hlog.info('request failed', p)),
      hall: hallReport,
      boards: changeBoard,
      health: () => {
        const list = tableList();
        const writes = writer.state();
        return {
          // Not ok when the store cannot take what the boards send: nothing new is broadcast then.
          ok: writes.lastError === null,
          uptimeMs: Date.now() - startedAt,
          boardsLive: list.filter((t) => t.state === 'live').length,
          tables: list,
          store: {
            file: store.file,
            pendingRawEvents: writes.pending,
            droppedRawEvents: writes.dropped,
            lastCommitAt: writes.lastCommitAt,
            lastError: writes.lastError,
            backup: backups.state(),
            verification: upkeep?.verification() ?? null,
            wal: upkeep?.wal() ?? null,
            catchUp: catchUp.state(),
          },
          outputs: outputsHealth(),
        };
      },
    });
  } catch (e) {
    delayed?.close();
    stopPairings();
    stopNoiseReports();
    stopDeviceWatch();
    await backups.stop();
    writer.close();
    store.close();
    for (const t of tables) t.link?.close();
    return err(`cannot serve on port ${opts.port ?? config.httpPort}: ${(e as Error).message}`);
  }
  if (server.viewerError) log.warn('viewer not served', { reason: server.viewerError });
  // Serving: now prove the start (a whole replay in the background), and keep the WAL bounded.
  upkeep = startStoreUpkeep(store, config, numbers, pairings, log.child('store'));
  // The tables served from their live snapshots are replayed now, a few per turn of the event loop.
  catchUp.start();
  // Each table's live game stored as it stands every so often and at a clean stop: what the next
  // start serves before it has replayed anything (docs/store.md, "Restart").
  const liveSnapshots = liveSnapshotWriter(store, router, log.child('store'));
  const liveSnapshotTimer = config.store.liveSnapshotSeconds > 0 ? setInterval(liveSnapshots, config.store.liveSnapshotSeconds * 1000) : null;
  liveSnapshotTimer?.unref();
  for (const t of tables) if (!sources.has(t.track.number)) t.session.start();
  sources.start();
  log.info('serving', { url: server.url, tables: tables.length, store: store.file });

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    // Outputs first: nothing more goes out once the boards stop being read.
    await outputs?.stop();
    upkeep?.stop();
    stopPairings();
    stopNoiseReports();
    stopDeviceWatch();
    await sources.stop();
    await Promise.all(tables.map((t) => t.session.stop()));
    for (const t of tables) t.link?.close();
    writer.close();
    catchUp.stop();
    if (liveSnapshotTimer) clearInterval(liveSnapshotTimer);
    liveSnapshots();
    await server.close();
    delayed?.close();
    await backups.stop();
    store.close();
  };
  const started = await startOutputs({ config, source: delayed ?? live, tables: tableList, token: lichessPushToken, log: log.child('outputs') });
  if (!started.ok) {
    await stop();
    return err(started.error);
  }
  outputs = started.value;
  return ok({
    url: server.url,
    live,
    store,
    rebuilt: { events: rebuilt.events, games: rebuilt.games, restoredGames: rebuilt.restoredGames, ms: rebuilt.ms },
    tables: tableList,
    stop,
  });
}

/** Each table's board connection for /health and the hall: where it is and how it is doing. */
function tableStatuses(
  tables: readonly HallTable[],
  sources: BoardSources,
  busLinks: ReadonlyMap<number, BusTableLink>,
  watches: ReadonlyMap<number, TableWatch>,
  live: MemoryLiveSource,
): TableStatus[] {
  return tables.map((t) => {
    const bySerial = sources.has(t.track.number);
    const device = bySerial ? sources.pathOf(t.track.number) : (busLinks.get(t.track.number)?.linePath ?? (t.link ? null : t.board));
    const watch = watches.get(t.track.number)!;
    const state = watch.state(bySerial && device === null ? 'searching' : t.session.state);
    return {
      table: t.track.number,
      board: t.board,
      serial: t.session.serialNumber,
      device,
      state,
      sinceLastEventMs: watch.sinceLastEventMs(),
      outOfStepSquares: watch.outOfStep,
      discardedBytes: watch.discardedBytes,
      gameId: t.track.gameId,
      engineFaults: t.track.gameId ? live.faultsOf(t.track.gameId) : 0,
      clockConnected: watch.clockConnected,
      battery: watch.battery,
    };
  });
}

/** How often line noise (bytes the decoders threw away) is reported in the log, per table that had any. */
const NOISE_REPORT_MS = 5 * 60_000;

function reportLineNoise(watches: ReadonlyMap<number, TableWatch>, log: Logger): () => void {
  const timer = setInterval(() => {
    for (const [table, w] of watches) {
      if (w.discardedBytes === w.reportedBytes) continue;
      log.info('line noise', { table, discardedBytes: w.discardedBytes, sinceLastReport: w.discardedBytes - w.reportedBytes });
      w.reportedBytes = w.discardedBytes;
    }
  }, NOISE_REPORT_MS);
  timer.unref();
  return () => clearInterval(timer);
}

export type { GameState };
