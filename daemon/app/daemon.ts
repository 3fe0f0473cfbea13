import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BoardSession, type SessionState } from '../board/session.ts';
import type { Timers } from '../board/timers.ts';
import { emulatorBinding, type EmulatedLine } from '../simulation/emulator-binding.ts';
import type { Logger } from '../log/logger.ts';
import type { GameState } from '../../protocols/feed/model.ts';
import { MemoryLiveSource } from '../runtime/memory-live-source.ts';
import { startServer, type RunningServer } from '../server/server.ts';
import { describeStoreOpenError } from '../store/errors.ts';
import { RawEventWriter } from '../store/raw-event-writer.ts';
import { err, ok, type Result } from '../store/result.ts';
import { openStore, STORE_FILE, type Store } from '../store/store.ts';
import type { StoredRawEvent } from '../store/types.ts';
import { tournamentSetup, type BoardcastConfig } from '../tournament/config.ts';
import { serialTransportFactory } from '../transport/serial-transport.ts';
import type { TransportFactory } from '../transport/byte-transport.ts';
import { demoGame, isNoiseModel, resolveGameSource, resumePoint } from '../runtime/demo-games.ts';
import type { NoiseModel } from '../simulation/noisy-player/player.ts';
import { EmulatedTable } from '../runtime/emulated-table.ts';
import { lockDataDir } from '../runtime/data-lock.ts';
import { DerivedRows, type ClockRow } from '../runtime/derived-rows.ts';
import { BoardSources, isSerialNumber } from '../runtime/board-sources.ts';
import { busTableLinks, type BusLineConfig, type TableLink } from '../runtime/bus-tables.ts';
import { SerialTransport } from '../transport/serial-transport.ts';
import type { ArbiterHandler } from '../runtime/arbiter.ts';
import type { TableTrack } from '../runtime/hall-router.ts';
import { hallPairings } from '../runtime/hall-pairings.ts';
import { gameActionHandler, roundHandler, type RoundHandler } from '../runtime/arbiter-actions.ts';
import { hallRouter, newLiveSource, replayStore } from '../runtime/store-replay.ts';
import { FramePairing } from '../runtime/frame-pairing.ts';
import { gameTimeline } from '../runtime/timeline.ts';


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
  viewer?: boolean;
}

export interface TableStatus {
  table: number;
  board: string;
  serial: string | null;
  /** The device path the board is on: a path table's own, a serial table's match (null while searching). */
  device: string | null;
  /** 'searching': a table configured by serial number whose board has not been found (or vanished). */
  state: SessionState | 'searching';
  gameId: string | null;
}

export interface RunningDaemon {
  url: string;
  live: MemoryLiveSource;
  store: Store;
  tables(): TableStatus[];
  /** Raw events replayed at start, and how long the rebuild took. */
  rebuilt: { events: number; games: number; ms: number };
  stop(): Promise<void>;
}

/** How often the store's pairings are checked for an import made while the daemon runs. */
const PAIRINGS_CHECK_MS = 3_000;

/** Session time is wall-clock ms, so events of a run before a restart stay earlier than the new ones. */
const wallTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof globalThis.setTimeout>),
};

interface TableRuntime {
  track: TableTrack;
  board: string;
  session: TableLink;
  link: EmulatedLine | null;
}

export async function startDaemon(opts: DaemonOptions): Promise<Result<RunningDaemon, string>> {
  const { config } = opts;
  try {
    mkdirSync(config.dataDir, { recursive: true });
  } catch (e) {
    return err(`store error: cannot create the data directory ${config.dataDir}: ${(e as Error).message}`);
  }
  const lock = lockDataDir(config.dataDir);
  if (!lock.ok) return lock;
  const opened = openStore(join(config.dataDir, STORE_FILE));
  if (!opened.ok) {
    lock.value.release();
    return err(describeStoreOpenError(opened.error));
  }
  const opendStore = opened.value;
  // Every way out before serving closes the store and releases the directory.
  const store: Store = { ...opendStore, close: () => { opendStore.close(); lock.value.release(); } };
  try {
    return await startOnStore(opts, store);
  } catch (e) {
    store.close();
    return err(`store error: ${store.file}: ${(e as Error).message}`);
  }
}

async function startOnStore(opts: DaemonOptions, store: Store): Promise<Result<RunningDaemon, string>> {
  const { config, log } = opts;

  const boards: { number: number; board: string; transport: TransportFactory | null; link: EmulatedLine | null }[] = [];
  // Tables on a DGT bus line share one BusSession per line; their boards are addressed by serial
  // number on that line, so the serial-number probe must leave bus lines alone (it would RESET them).
  const busLines = new Map<string, BusLineConfig>();
  for (const t of config.tables) {
    if (t.bus === undefined) continue;
    const line = busLines.get(t.bus) ?? { path: t.bus, tables: [] };
    line.tables.push({ number: t.number, serial: t.board, whiteOnClock: t.whiteOnClock });
    busLines.set(t.bus, line);
  }
  const busLinks = busTableLinks([...busLines.values()], { transport: (path) => serialTransportFactory(path), timers: wallTimers });
  const serialTables = config.tables.filter((t) => isSerialNumber(t.board) && t.bus === undefined).map((t) => ({ number: t.number, serial: t.board }));
  const sources = new BoardSources({
    tables: serialTables,
    reservedPaths: [...config.tables.filter((t) => !isSerialNumber(t.board)).map((t) => t.board), ...busLines.keys()],
    log: log.child('board sources'),
    ...(opts.deviceDirs ? { deviceDirs: opts.deviceDirs } : {}),
    onMatch: (table) => byNumber.get(table)?.session.start(),
  });
  for (const t of config.tables) {
    if (t.bus !== undefined) {
      boards.push({ number: t.number, board: t.board, transport: null, link: null });
      continue;
    }
    if (!isSerialNumber(t.board)) {
      boards.push({ number: t.number, board: t.board, transport: serialTransportFactory(t.board), link: null });
      continue;
    }
    // Each (re)connection opens wherever the board was last found: after re-plugging it may be a new path.
    let lastPath = '';
    const transport: TransportFactory = () => new SerialTransport((lastPath = sources.pathOf(t.number) ?? lastPath));
    boards.push({ number: t.number, board: t.board, transport, link: null });
  }
  const e = config.emulate;
  const source = e ? resolveGameSource(e.games, e.seed) : null;
  if (e) {
    if (!isNoiseModel(e.noise)) {
      store.close();
      return err(`config error: emulate.noise: unknown noise model "${e.noise}"`);
    }
    if (typeof source === 'string') {
      store.close();
      return err(`config error: emulate.games: ${source}`);
    }
    const first = config.tables.reduce((m, t) => Math.max(m, t.number), 0) + 1;
    for (let i = 0; i < e.count; i++) {
      boards.push({ number: first + i, board: `emulated:${String(e.serialBase + i).padStart(5, '0')}`, transport: null, link: null });
    }
  }
  // The hall's tables, emulated ones included, so the board serial ↔ table mapping can refer to them.
  store.syncTables(boards.map((b) => ({ number: b.number, board: b.board, whiteOnClock: config.tables.find((t) => t.number === b.number)?.whiteOnClock ?? 'left' })));

  const tournamentId = store.upsertTournament(tournamentSetup(config));
  // Players: imported pairings, else (demo hall) the ones its game scores name.
  const pairings = hallPairings(store, config, source && typeof source !== 'string' ? source : null);
  const live = newLiveSource(config, store);
  const router = hallRouter(config, live, pairings);
  const tracks: TableTrack[] = boards.map((b) => router.track(b.number));
  const t0 = performance.now();
  // Clock readings a crash kept from the store (they follow the last stored one) are written below.
  const lastClockRaw = store.lastClockRawEventId();
  const missedClocks: ClockRow[] = [];
  const events = replayStore(store, router, boards.map((b) => b.number), (step) => {
    const ev = step.event.event;
    if (ev?.type !== 'clock' || step.event.id <= lastClockRaw || step.gameId === null) return;
    const game = live.progress(step.gameId);
    if (game) missedClocks.push({ game, rawEventId: step.event.id, wallMs: step.event.wallMs, reading: ev });
  });
  const rebuilt = { events, games: router.tracks().reduce((n, t) => n + t.games.length, 0), ms: performance.now() - t0 };
  log.info('live state rebuilt from the store', { rawEvents: events, games: rebuilt.games, ms: Math.round(rebuilt.ms) });

  if (e && source && typeof source !== 'string') {
    log.info('emulated hall', { tables: e.count, games: source.kind === 'files' ? `${source.games.length} games from ${source.dir}` : `random (seed ${source.seed})` });
    const pace = opts.pace ?? 1;
    boards.forEach((b, i) => {
      if (b.transport !== null) return;
      const track = tracks[i]!;
      const current = track.gameId ? live.game(track.gameId) : undefined;
      // An in-process board dies with the daemon: resume its script where the store says the game
      // stands (a finished game: the next one), so a restart neither replays nor skips moves.
      const resume = !current
        ? undefined
        : current.status === 'finished'
          ? { gameIndex: track.games.length, atMs: 0 }
          : { gameIndex: track.games.length - 1, atMs: resumePoint(demoGame(source, e.count, b.number, track.games.length - 1, e.noise as NoiseModel, e.seed, config.timeControl).script, current.ply) };
      const device = new EmulatedTable({
        serial: b.board.slice('emulated:'.length),
        nextGame: (k) => demoGame(source, e.count, b.number, k, e.noise as NoiseModel, e.seed, config.timeControl).script,
        ...(resume ? { resume } : {}),
      });
      const start = performance.now();
      const path = `/boardcast-emulated/${process.pid}/table${b.number}`;
      b.link = emulatorBinding.plug(path, device, { now: () => (performance.now() - start) * pace });
      b.transport = serialTransportFactory(path, emulatorBinding.portFactory);
    });
  }

  const tables: TableRuntime[] = boards.map((b, i) => ({
    track: tracks[i]!,
    board: b.board,
    link: b.link,
    session:
      busLinks.get(b.number) ??
      new BoardSession({
        transport: b.transport!,
        timers: wallTimers,
        // After a reconnect or a restart, the board's EEPROM log fills in what happened meanwhile,
        // from where the stored events left off.
        catchUp: () => {
          const t = router.track(b.number);
          // A board never seen (fresh data directory, a table added, the daemon started late):
          // its game since the pieces were last set up comes from the log too.
          return t.seenBoard ? { board: t.board, recentFields: t.recentFields, lastAt: t.lastAt } : 'unknown';
        },
        whiteOnClock: config.tables.find((t) => t.number === b.number)?.whiteOnClock ?? 'left',
      }),
  }));
  const byNumber = new Map(tables.map((t) => [t.track.number, t]));

  const derived = new DerivedRows(store, (round) => store.round(tournamentId, round)?.id ?? null);
  const dlog = log.child('derived');
  const reconcile = (gameId: string): void => {
    const g = live.game(gameId);
    if (!g) return;
    // One game's rows failing must not keep the others from being written; the raw events are
    // stored, so the next reconcile (next batch, or the next start) tries again.
    try {
      const r = derived.reconcile(g, g.round - 1);
      for (const p of r.problems) dlog.warn('derived row not written', { gameId, problem: p });
    } catch (e) {
      dlog.error('derived rows not written', { gameId, error: String(e) });
    }
  };
  // Derived rows after the replay: a crash between a raw commit and its derived writes is repaired here.
  for (const t of router.tracks()) for (const id of t.games) reconcile(id);
  derived.clockReadings(missedClocks);

  const writer = new RawEventWriter(store, {
    // Only committed events reach the engines and the feed (store-before-broadcast).
    onCommitted: (batch: StoredRawEvent[]) => {
      const touched = new Set<string>();
      const clocks: ClockRow[] = [];
      for (const e of batch) {
        const t = byNumber.get(e.tableNumber);
        if (!t) continue;
        if (!e.event) {
          t.track.lastEventId = e.id;
          continue;
        }
        if (t.track.gameId) touched.add(t.track.gameId);
        const to = router.route(e.tableNumber, e.event, e.id);
        if (!to) continue;
        touched.add(to);
        if (e.event.type === 'clock') clocks.push({ game: live.progress(to)!, rawEventId: e.id, wallMs: e.wallMs, reading: e.event });
      }
      try {
        derived.clockReadings(clocks);
      } catch (e) {
        dlog.error('clock readings not written', { error: String(e) });
      }
      for (const id of touched) reconcile(id);
    },
    onError: (e, phase, pending) => log.error(`raw event ${phase} failed`, { error: String(e), pending }),
  });

  const alog = log.child('arbiter');
  const applyToGame = gameActionHandler({ store, tournamentId, router, reconcile });
  const arbiter: ArbiterHandler = (gameId, action) => {
    const done = applyToGame(gameId, action);
    if (done.ok) alog.info('arbiter action', { gameId, action: action.kind, arbiter: action.arbiter, reason: action.reason });
    else if (done.error.status === 500) alog.error('amendment not recorded', { gameId, error: done.error.message });
    return done;
  };
  const startOrClose = roundHandler({ store, tournamentId, router, tables: boards.map((b) => b.number), reconcile });
  const rounds: RoundHandler = (n, action) => {
    const done = startOrClose(n, action);
    if (done.ok) alog.info(`round ${n} ${action.kind === 'start' ? 'started' : 'closed'}`, { games: done.value.games.length, arbiter: action.arbiter, reason: action.reason });
    else alog.warn(`round ${n} not ${action.kind === 'start' ? 'started' : 'closed'}`, { problem: done.error.message });
    return done;
  };

  for (const t of tables) {
    const tlog = log.child(`table ${t.track.number}`);
    const pairing = new FramePairing(t.track.number, () => t.session.serialNumber, (row) => writer.push(row));
    t.session.on((se) => {
      switch (se.type) {
        case 'frame':
          pairing.frame({ at: se.at, raw: se.raw, ...('message' in se ? { messageType: se.message.type } : {}) });
          return;
        case 'board':
          pairing.event(se.event);
          return;
        case 'state':
          if (se.state === 'retrying' && sources.has(t.track.number)) sources.linkLost();
          tlog.info(`board ${se.state}`, { board: t.board, ...(se.detail ? { detail: se.detail } : {}), ...(se.retryInMs !== undefined ? { retryInMs: se.retryInMs } : {}) });
          return;
        case 'serial': {
          tlog.debug('board serial', { serial: se.serial });
          // Which board stood at which table, and since when (board_serials), for the record.
          const noted = store.assignBoardSerial(se.serial, t.track.number, Date.now());
          if (!noted.ok) tlog.warn('board serial not recorded', { serial: se.serial, problem: noted.error });
          // The probe matched this port, but a different board may have been plugged in there since.
          if (isSerialNumber(t.board) && !se.serial.endsWith(t.board)) tlog.warn('the board on this port is not the configured one', { configured: t.board, reported: se.serial, device: sources.pathOf(t.track.number) });
          return;
        }
        case 'drift':
          tlog.warn('board dump differs from tracked board (lost update)', { fields: se.fields });
          return;
        case 'problem':
          tlog.warn(se.detail);
          return;
        case 'catch-up':
          if (se.outcome === 'caught-up' && se.how === 'from-start') tlog.info('game already under way: read from its start in the EEPROM log', { fieldChanges: se.fields });
          else if (se.outcome === 'caught-up') tlog.info('moves made while the board was away caught up from its EEPROM log', { fieldChanges: se.fields, how: se.how, matched: se.matched });
          else tlog.warn(`EEPROM catch-up ${se.outcome}`, { detail: se.detail });
          return;
        default:
          return;
      }
    });
  }

  // Pairings imported while the daemon runs (boardcast import-pairings writes the store from its
  // own process, often after the boards were set up for the round): games take their players.
  const pairingsVersion = store.db.prepare("SELECT COUNT(*) || ':' || COALESCE(MAX(id), 0) FROM pairings").pluck();
  const linkPairings = store.db.prepare(
    `UPDATE games SET pairing_id = (SELECT p.id FROM pairings p WHERE p.round_id = games.round_id AND p.table_number = games.table_number)
     WHERE round_id IS NOT NULL AND pairing_id IS NOT (SELECT p.id FROM pairings p WHERE p.round_id = games.round_id AND p.table_number = games.table_number)`,
  );
  let seenPairings = pairingsVersion.get();
  const pairingsTimer = setInterval(() => {
    try {
      const v = pairingsVersion.get();
      if (v === seenPairings) return;
      seenPairings = v;
      const changed = router.refreshPlayers();
      linkPairings.run();
      log.info('pairings changed in the store', { gamesWithNewPlayers: changed });
    } catch (e) {
      log.warn('pairings not re-read', { error: String(e) });
    }
  }, PAIRINGS_CHECK_MS);
  pairingsTimer.unref();

  const startedAt = Date.now();
  const tableList = () =>
    tables.map((t) => {
      const bySerial = sources.has(t.track.number);
      const device = bySerial ? sources.pathOf(t.track.number) : (busLinks.get(t.track.number)?.linePath ?? (t.link ? null : t.board));
      const state = bySerial && device === null ? ('searching' as const) : t.session.state;
      return { table: t.track.number, board: t.board, serial: t.session.serialNumber, device, state, gameId: t.track.gameId };
    });
  let server: RunningServer;
  try {
    server = await startServer({
      source: live,
      port: opts.port ?? config.httpPort,
      host: opts.host ?? config.httpHost,
      viewer: opts.viewer ?? true,
      arbiter,
      rounds,
      // Built from the store on request: what the broadcast showed, step by step.
      timeline: (gameId) => gameTimeline(store, config, gameId),
      bridges: { serialOf: (table) => tables.find((t) => t.track.number === table)?.session.serialNumber ?? null },
      health: () => {
        const list = tableList();
        return {
          uptimeMs: Date.now() - startedAt,
          boardsLive: list.filter((t) => t.state === 'live').length,
          tables: list,
          store: { file: store.file, pendingRawEvents: writer.pending },
        };
      },
    });
  } catch (e) {
    clearInterval(pairingsTimer);
    writer.close();
    store.close();
    for (const t of tables) t.link?.close();
    return err(`cannot serve on port ${opts.port ?? config.httpPort}: ${(e as Error).message}`);
  }
  if (server.viewerError) log.warn('viewer not served', { reason: server.viewerError });
  for (const t of tables) if (!sources.has(t.track.number)) t.session.start();
  sources.start();
  log.info('serving', { url: server.url, tables: tables.length, store: store.file });

  let stopped = false;
  return ok({
    url: server.url,
    live,
    store,
    rebuilt,
    tables: tableList,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearInterval(pairingsTimer);
      await sources.stop();
      await Promise.all(tables.map((t) => t.session.stop()));
      for (const t of tables) t.link?.close();
      writer.close();
      await server.close();
      store.close();
    },
  });
}

export type { GameState };
