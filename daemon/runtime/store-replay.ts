import type { EngineOptions } from '../reconstruction/game-events.ts';
import { MemoryLiveSource } from './memory-live-source.ts';
import type { GameChange, GameId, RoundInfo, TournamentInfo } from '../../protocols/feed/model.ts';
import type { Store } from '../store/store.ts';
import type { StoredRawEvent } from '../store/types.ts';
import type { BoardcastConfig } from '../tournament/config.ts';
import { pgnTimeControl } from '../tournament/time-control.ts';
import { amendmentsInForce, gameSettingsOf, hallCommandOf, type StoredHallCommand } from './arbiter.ts';
import { resolveGameSource } from './demo-games.ts';
import { HallRouter, type HallCommand, type HallRouterOptions, type PairingLookup } from './hall-router.ts';
import { hallPairings } from './hall-pairings.ts';
import { lastAmendmentPerGame, servableSnapshot, tablePlan, type DeferredTable, type TablePlan } from './checkpoint-restore.ts';
import type { LiveSnapshot } from '../store/checkpoints.ts';

/** Every table that has raw events in the store, in table order. */
export function storedTables(store: Store): number[] {
  return store.tablesWithRawEvents();
}

function tournamentInfo(c: BoardcastConfig): TournamentInfo {
  return {
    id: 'boardcast',
    name: c.event.name,
    site: c.event.site,
    startDate: c.rounds.dates[0] ?? null,
    endDate: c.rounds.dates[c.rounds.dates.length - 1] ?? null,
    timeControl: pgnTimeControl(c.timeControl),
    variant: c.rules.chess960 ? 'chess960' : 'standard',
    roundCount: c.rounds.count,
  };
}

/** The read model of a hall: the config's tournament and its rounds (dates; status from the store when given). */
export function newLiveSource(config: BoardcastConfig, store?: Store): MemoryLiveSource {
  const live = new MemoryLiveSource({ tournament: tournamentInfo(config), rounds: [], games: [], eventTime: true });
  const t = store?.tournamentByName(config.event.name);
  const stored = t ? store!.rounds(t.id) : [];
  const rounds: RoundInfo[] = [];
  for (let n = 1; n <= config.rounds.count; n++) {
    const s = stored.find((r) => r.round === n);
    rounds.push({ round: n, date: config.rounds.dates[n - 1] ?? null, startsAt: null, status: s?.status ?? 'upcoming', gameCount: 0 });
  }
  live.declareRounds(rounds);
  return live;
}

/**
 * What every game's engine applies: the config's edition and category of the Laws, Chess960, and
 * the clocks' time control (its increment lets the clock's times count the presses made while a
 * board was away).
 */
export function engineOptions(config: BoardcastConfig): EngineOptions {
  const tc = config.timeControl;
  const timeControl = { incrementMs: tc.incrementSeconds * 1000, ...(tc.movesToSecondPeriod !== null ? { movesToSecondPeriod: tc.movesToSecondPeriod } : {}) };
  return { rules: { edition: config.rules.edition, category: config.rules.category }, chess960: config.rules.chess960, timeControl };
}

/** A router for the config's hall (its round mode, players and rules). */
export function hallRouter(config: BoardcastConfig, live: MemoryLiveSource, pairings?: PairingLookup, onBoundary?: HallRouterOptions['onBoundary']): HallRouter {
  return new HallRouter(live, { mode: config.rounds.start, engine: engineOptions(config), ...(pairings ? { pairings } : {}), ...(onBoundary ? { onBoundary } : {}) });
}

/**
 * The arbiter's decisions stored in the audit trail and in force (undone ones left out), in the
 * order they were taken. The start-up rebuild and every table rebuild read them here, so a restart
 * derives what the running daemon showed.
 */
export function storedCommands(store: Store): StoredHallCommand[] {
  return amendmentsInForce(store.amendments())
    .map(hallCommandOf)
    .filter((c): c is StoredHallCommand => c !== null);
}

/** Gives the router the settings of whole games the amendments in force make (swapped players, Chess960 starts). */
export function loadGameSettings(store: Store, router: HallRouter): void {
  router.setGameSettings(gameSettingsOf(store.amendments()));
}

function concerns(c: HallCommand, table: number): boolean {
  return c.kind === 'game' ? c.table === table : c.kind === 'start-round' && c.tables.includes(table);
}

/** One step of a replay: a stored raw event, or an arbiter's command, with what it changed. */
export type ReplayStep =
  { kind: 'event'; event: StoredRawEvent; gameId: string | null; changes: GameChange[] } | { kind: 'command'; command: HallCommand; afterRawEventId: number; changes: GameChange[] };

/**
 * Replays a table's stored raw events through the router, with the arbiter's commands put back
 * where they were taken (after the raw event that was the last one then, before the next),
 * reporting what each step changed: the arbiter's view of a disputed sequence, and the path the
 * daemon's start-up rebuild takes (so what it shows is what the broadcast showed).
 */
export function* replayTable(
  store: Store,
  router: HallRouter,
  table: number,
  commands = storedCommands(store),
  plan?: Extract<TablePlan, { kind: 'checkpoint' }>,
  withBytes = true,
): Generator<ReplayStep> {
  const { mine, fromId } = tableCommands(router, table, commands, plan);
  let next = 0;
  let changes: GameChange[] = [];
  const off = router.live.subscribe((c) => changes.push(c));
  const command = (c: StoredHallCommand): ReplayStep => {
    changes = [];
    router.applyAt(table, c.command);
    return { kind: 'command', command: c.command, afterRawEventId: c.afterRawEventId, changes };
  };
  try {
    for (const event of store.readRawEvents(table, fromId, { withBytes })) {
      while (next < mine.length && mine[next]!.afterRawEventId < event.id) yield command(mine[next++]!);
      changes = [];
      const gameId = routeStored(router, table, event, plan);
      yield { kind: 'event', event, gameId, changes };
    }
    while (next < mine.length) yield command(mine[next++]!);
  } finally {
    off();
  }
}

/** How a replay of the store went: raw events replayed, and the tables taken from a checkpoint. */
export interface StoreReplay {
  events: number;
  /** Tables rebuilt from their latest checkpoint (their earlier games from snapshots). */
  fromCheckpoint: number[];
  /** Games restored from snapshots. */
  restoredGames: number;
  /** Tables replayed whole although they had a checkpoint, and why. */
  whole: { table: number; why: string }[];
  /** Tables served from their live snapshots, not replayed: to be caught up (table-rebuild.ts, catchUpTable). */
  deferred: DeferredTable[];
}

/**
 * Rebuilds the hall's live games from the store: every table's raw events (`tables`, plus any
 * table a stored command names), table by table, then the round closes. `fromCheckpoints`: each
 * table from its latest trusted checkpoint (a restart), else from its first event (the arbiter's
 * replay, the verification).
 */
export function replayStoreFrom(
  store: Store,
  router: HallRouter,
  tables: readonly number[],
  opts: {
    fromCheckpoints: boolean;
    onEvent?: (step: Extract<ReplayStep, { kind: 'event' }>) => void;
    /** A start's live snapshots by table: a table whose snapshot can be served is not replayed now. */
    liveSnapshots?: ReadonlyMap<number, LiveSnapshot>;
  },
): StoreReplay {
  const commands = storedCommands(store);
  loadGameSettings(store, router);
  const all = new Set(tables);
  for (const c of commands) {
    if (c.command.kind === 'game') all.add(c.command.table);
    else if (c.command.kind === 'start-round') for (const t of c.command.tables) all.add(t);
  }
  const out: StoreReplay = { events: 0, fromCheckpoint: [], restoredGames: 0, whole: [], deferred: [] };
  const lastAmendment = opts.liveSnapshots ? store.lastAmendmentId() : 0;
  const lastClockRaw = opts.fromCheckpoints ? store.lastClockRawEventId() : 0;
  const lastAmendmentOf = opts.fromCheckpoints ? lastAmendmentPerGame(store.amendments()) : new Map<string, number>();
  const sorted = [...all].sort((a, b) => a - b);
  if (!opts.fromCheckpoints) {
    for (const table of sorted) {
      router.track(table);
      for (const step of replayTable(store, router, table, commands)) {
        if (step.kind !== 'event') continue;
        out.events++;
        opts.onEvent?.(step);
      }
    }
  } else {
    // A start: each table from its latest trusted checkpoint, all tables in one pass in commit
    // order (a hall's tables are interleaved in the file: one table at a time would read every
    // page once per table). Tables are independent, so the order between them changes nothing.
    const streams = new Map<number, TableStream>();
    for (const table of sorted) {
      router.track(table);
      const plan = tablePlan(store, table, lastAmendmentOf, router.engineOptions, lastClockRaw);
      const live = opts.liveSnapshots?.get(table);
      const served = live ? servableSnapshot(live, plan, lastAmendment, (id) => router.engineFor(id)) : null;
      if (live && served) {
        // Served as it stood at its snapshot, with the games before its boundary from theirs.
        if (plan.kind === 'checkpoint') for (const g of plan.games) router.live.restoreGame(g.cfg, g.snapshot);
        out.restoredGames += plan.kind === 'checkpoint' ? plan.games.length : 0;
        router.live.restoreGame(served.cfg, served.snapshot);
        router.placeTrack(served.track);
        out.deferred.push({ table, liveId: live.liveId, rawEventId: live.rawEventId });
        continue;
      }
      if (plan.kind === 'whole' && plan.why !== 'no checkpoint') out.whole.push({ table, why: plan.why });
      const usable = plan.kind === 'checkpoint' ? plan : undefined;
      if (usable) {
        out.fromCheckpoint.push(table);
        out.restoredGames += usable.games.length;
      }
      streams.set(table, tableStream(router, table, commands, usable));
    }
    // No stream at all (every table served from its live snapshot): nothing to read.
    const from = Math.min(...[...streams.values()].map((s) => s.fromId));
    for (const event of streams.size === 0 ? [] : store.readAllRawEvents(Number.isFinite(from) ? from : 0)) {
      const stream = streams.get(event.tableNumber);
      if (!stream || event.id < stream.fromId) continue;
      const gameId = stream.route(event);
      out.events++;
      opts.onEvent?.({ kind: 'event', event, gameId, changes: [] });
    }
    for (const stream of streams.values()) stream.finish();
  }
  for (const c of commands) if (c.command.kind === 'close-round') router.apply(c.command);
  return out;
}

/** One table's part of a start's single pass: where it starts, its events, its commands in place. */
interface TableStream {
  fromId: number;
  route(event: StoredRawEvent): string | null;
  /** Applies the commands taken after the table's last event. */
  finish(): void;
}

/** What `replayTable` does for one table, one event at a time (for `replayStoreFrom`'s single pass). */
function tableStream(router: HallRouter, table: number, commands: readonly StoredHallCommand[], plan: Extract<TablePlan, { kind: 'checkpoint' }> | undefined): TableStream {
  const { mine, fromId } = tableCommands(router, table, commands, plan);
  let next = 0;
  return {
    fromId,
    route: (event) => {
      while (next < mine.length && mine[next]!.afterRawEventId < event.id) router.applyAt(table, mine[next++]!.command);
      return routeStored(router, table, event, plan);
    },
    finish: () => {
      while (next < mine.length) router.applyAt(table, mine[next++]!.command);
    },
  };
}

/**
 * A table's commands for a replay, and its first raw event. From a checkpoint the games before it
 * come back from their snapshots (their amendments included), and the commands taken before the
 * boundary are in the checkpoint's track.
 */
function tableCommands(
  router: HallRouter,
  table: number,
  commands: readonly StoredHallCommand[],
  plan: Extract<TablePlan, { kind: 'checkpoint' }> | undefined,
): { mine: StoredHallCommand[]; fromId: number } {
  const mine = commands.filter((c) => concerns(c.command, table));
  if (!plan) return { mine, fromId: 0 };
  for (const g of plan.games) router.live.restoreGame(g.cfg, g.snapshot);
  const restored = new Set(plan.games.map((g) => g.cfg.id));
  return { mine: mine.filter((c) => c.afterRawEventId >= plan.rawEventId && !(c.command.kind === 'game' && restored.has(c.command.gameId))), fromId: plan.rawEventId };
}

/** Routes one stored raw event of a table (the checkpoint's own event takes the table back to it). */
function routeStored(router: HallRouter, table: number, event: StoredRawEvent, plan: Extract<TablePlan, { kind: 'checkpoint' }> | undefined): string | null {
  if (plan && event.id === plan.rawEventId && event.event) return router.resumeAt(structuredClone(plan.track), event.event, event.id);
  if (event.event) return router.route(table, event.event, event.id);
  router.track(table).lastEventId = event.id;
  return router.track(table).gameId;
}

/** The whole replay from every table's first event (the arbiter's replay, export, verification); returns the raw events replayed. */
export function replayStore(store: Store, router: HallRouter, tables: readonly number[] = storedTables(store), onEvent?: (step: Extract<ReplayStep, { kind: 'event' }>) => void): number {
  return replayStoreFrom(store, router, tables, { fromCheckpoints: false, ...(onEvent ? { onEvent } : {}) }).events;
}

/** An empty read model of the same tournament and rounds, for a replay beside the live one. */
export function scratchReadModel(live: MemoryLiveSource): MemoryLiveSource {
  const scratch = new MemoryLiveSource({
    tournament: live.tournament(),
    rounds: live.rounds().map((r) => ({ round: r.round, date: r.date, startsAt: r.startsAt, status: r.status, gameCount: 0 })),
    games: [],
    eventTime: true,
  });
  // An engine failing in the replay is told as one failing live would be.
  scratch.onEngineFault = live.onEngineFault;
  return scratch;
}

/**
 * Rebuilds one game of a table from the store (the table's raw events and the decisions in force
 * from its first event, in a scratch read model with the router's hall and game settings), for a
 * game a restart restored from its snapshot when a decision reaches it. The scratch source holds
 * the table's games; the caller takes the one it needs.
 */
export function gameRebuilder(store: Store, router: HallRouter): (id: GameId) => MemoryLiveSource | undefined {
  return (id) => {
    const live = router.live;
    const table = live.progress(id)?.table;
    if (table === undefined) return undefined;
    const scratchLive = scratchReadModel(live);
    const scratch = router.sibling(scratchLive);
    loadGameSettings(store, scratch);
    for (const step of replayTable(store, scratch, table, storedCommands(store), undefined, false)) void step;
    return scratchLive.progress(id) ? scratchLive : undefined;
  };
}

/** The players of the stored games: imported pairings, or the demo hall's scores. */
export function storedHallPairings(store: Store, config: BoardcastConfig): PairingLookup {
  const e = config.emulate;
  const source = e ? resolveGameSource(e.games, e.seed) : null;
  return hallPairings(store, config, source && typeof source !== 'string' ? source : null);
}

/** The whole hall rebuilt from the store, with its players (export, benchmarks). */
export function rebuildHall(store: Store, config: BoardcastConfig): MemoryLiveSource {
  const live = newLiveSource(config, store);
  replayStore(store, hallRouter(config, live, storedHallPairings(store, config)));
  return live;
}
