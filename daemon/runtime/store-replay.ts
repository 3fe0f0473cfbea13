import type { EngineOptions } from '../reconstruction/game-events.ts';
import { MemoryLiveSource } from './memory-live-source.ts';
import type { GameChange, RoundInfo, TournamentInfo } from '../../protocols/feed/model.ts';
import type { Store } from '../store/store.ts';
import type { StoredRawEvent } from '../store/types.ts';
import type { BoardcastConfig } from '../tournament/config.ts';
import { pgnTimeControl } from '../tournament/time-control.ts';
import { amendmentsInForce, gameSettingsOf, hallCommandOf, type StoredHallCommand } from './arbiter.ts';
import { resolveGameSource } from './demo-games.ts';
import { HallRouter, type HallCommand, type PairingLookup } from './hall-router.ts';
import { hallPairings } from './hall-pairings.ts';

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

/** What every game's engine applies: the config's edition and category of the Laws, and Chess960. */
export function engineOptions(config: BoardcastConfig): EngineOptions {
  return { rules: { edition: config.rules.edition, category: config.rules.category }, chess960: config.rules.chess960 };
}

/** A router for the config's hall (its round mode, players and rules). */
export function hallRouter(config: BoardcastConfig, live: MemoryLiveSource, pairings?: PairingLookup): HallRouter {
  return new HallRouter(live, { mode: config.rounds.start, engine: engineOptions(config), ...(pairings ? { pairings } : {}) });
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
export function* replayTable(store: Store, router: HallRouter, table: number, commands = storedCommands(store)): Generator<ReplayStep> {
  const mine = commands.filter((c) => concerns(c.command, table));
  let next = 0;
  let changes: GameChange[] = [];
  const off = router.live.subscribe((c) => changes.push(c));
  const command = (c: StoredHallCommand): ReplayStep => {
    changes = [];
    router.applyAt(table, c.command);
    return { kind: 'command', command: c.command, afterRawEventId: c.afterRawEventId, changes };
  };
  try {
    for (const event of store.readRawEvents(table)) {
      while (next < mine.length && mine[next]!.afterRawEventId < event.id) yield command(mine[next++]!);
      changes = [];
      let gameId: string | null;
      if (event.event) gameId = router.route(table, event.event, event.id);
      else {
        router.track(table).lastEventId = event.id;
        gameId = router.track(table).gameId;
      }
      yield { kind: 'event', event, gameId, changes };
    }
    while (next < mine.length) yield command(mine[next++]!);
  } finally {
    off();
  }
}

/**
 * Rebuilds the hall's live games from the store: every table's raw events (`tables`, plus any
 * table a stored command names), table by table, then the round closes. Returns the raw events replayed.
 */
export function replayStore(store: Store, router: HallRouter, tables: readonly number[] = storedTables(store), onEvent?: (step: Extract<ReplayStep, { kind: 'event' }>) => void): number {
  const commands = storedCommands(store);
  loadGameSettings(store, router);
  const all = new Set(tables);
  for (const c of commands) {
    if (c.command.kind === 'game') all.add(c.command.table);
    else if (c.command.kind === 'start-round') for (const t of c.command.tables) all.add(t);
  }
  let n = 0;
  for (const table of [...all].sort((a, b) => a - b)) {
    router.track(table);
    for (const step of replayTable(store, router, table, commands)) {
      if (step.kind !== 'event') continue;
      n++;
      onEvent?.(step);
    }
  }
  for (const c of commands) if (c.command.kind === 'close-round') router.apply(c.command);
  return n;
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
