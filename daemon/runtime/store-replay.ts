import type { MemoryLiveSource } from '../server/memory-live-source.ts';
import type { GameChange } from '../server/live-source.ts';
import type { Store } from '../store/store.ts';
import type { StoredRawEvent } from '../store/types.ts';
import type { BoardcastConfig } from '../tournament/config.ts';
import { newLiveSource, routeEvent, type PairingLookup, type TableTrack } from './daemon.ts';
import { resolveGameSource } from './demo-games.ts';
import { hallPairings } from './hall-pairings.ts';

/** Every table that has raw events in the store, in table order. */
export function storedTables(store: Store): number[] {
  return (store.db.prepare('SELECT DISTINCT table_number FROM raw_events ORDER BY table_number').pluck().all() as number[]);
}

export function newTrack(number: number): TableTrack {
  return { number, gameId: null, gamesPlayed: 0, gameStartWall: null, lastWall: null };
}

/** One stored raw event replayed: the game it went to and what it changed there. */
export interface ReplayStep {
  event: StoredRawEvent;
  gameId: string | null;
  changes: GameChange[];
}

/**
 * Replays a table's stored raw events through fresh engines, one at a time, reporting what each
 * changed: the arbiter's view of a disputed sequence, and the same path the daemon's start-up
 * rebuild takes (so what it shows is what the broadcast showed).
 */
export function* replayTable(store: Store, live: MemoryLiveSource, table: number, pairings?: PairingLookup): Generator<ReplayStep> {
  const track = newTrack(table);
  let changes: GameChange[] = [];
  const off = live.subscribe((c) => changes.push(c));
  try {
    for (const event of store.readRawEvents(table)) {
      changes = [];
      if (event.event) routeEvent(live, track, event.event, pairings);
      yield { event, gameId: track.gameId, changes };
    }
  } finally {
    off();
  }
}

/** The players of the stored games: imported pairings, or the demo hall's scores. */
export function storedHallPairings(store: Store, config: BoardcastConfig): PairingLookup {
  const e = config.emulate;
  const source = e ? resolveGameSource(e.games, e.seed) : null;
  return hallPairings(store, config, source && typeof source !== 'string' ? source : null);
}

/** The whole hall rebuilt from the store, with its players (export, benchmarks). */
export function rebuildHall(store: Store, config: BoardcastConfig): MemoryLiveSource {
  const live = newLiveSource(config);
  const pairings = storedHallPairings(store, config);
  for (const t of storedTables(store)) for (const _ of replayTable(store, live, t, pairings)) void _;
  return live;
}
