import type { GameId } from '../../protocols/feed/model.ts';
import type { Store } from '../store/store.ts';
import type { HallRouter } from './hall-router.ts';
import { lastAmendmentPerGame, tablePlan } from './checkpoint-restore.ts';
import { loadGameSettings, replayTable, scratchReadModel, storedCommands, type ReplayStep } from './store-replay.ts';

/** What a table rebuild did: the games derived again (adopted by the live source), in table order. */
export interface TableRebuilt {
  table: number;
  games: GameId[];
  /** Raw events replayed. */
  events: number;
}

/**
 * Derives one table's games again from the store: its raw events with the arbiter's decisions in
 * force (undone ones left out, as the start-up rebuild leaves them out, so a restart shows the
 * same), replayed through a scratch router and read model; the games it makes then replace the
 * live ones (each announced with its whole state to every feed and output) and the table's track
 * follows. Raw events and the audit trail are only read.
 *
 * `reconcile` brings each game's derived store rows up to its new state (daemon/app/derived-writer).
 * Synchronous: no board event is routed between the replay and the adoption.
 */
export function rebuildTable(store: Store, router: HallRouter, table: number, reconcile?: (gameId: GameId) => void): TableRebuilt {
  const live = router.live;
  const scratchLive = scratchReadModel(live);
  const scratch = router.sibling(scratchLive);
  loadGameSettings(store, scratch);
  let events = 0;
  for (const step of replayTable(store, scratch, table, storedCommands(store))) if (step.kind === 'event') events++;
  // The live router takes the settings too: games it opens from now on get them.
  loadGameSettings(store, router);
  const track = scratch.track(table);
  for (const id of track.games) live.adopt(scratchLive, id);
  router.adoptTrack(track);
  for (const id of track.games) reconcile?.(id);
  return { table, games: [...track.games], events };
}

/** What a catch-up did. */
export interface CaughtUp {
  table: number;
  /** Games derived again and taken over by the live read model. */
  games: GameId[];
  events: number;
}

/**
 * Catches a table served from its live snapshot up: its raw events from its latest trusted
 * checkpoint (or its first) to the last one stored, replayed in a scratch read model with the
 * decisions in force; the games from the boundary on then replace the served ones (each announced
 * whole to every feed) and the table's track follows. Synchronous: no board event of the table
 * can be routed between the replay and the takeover.
 */
export function catchUpTable(
  store: Store,
  router: HallRouter,
  table: number,
  /** The highest raw event id of a stored clock reading when the daemon started. */
  lastClockRaw: number,
  onEvent?: (step: Extract<ReplayStep, { kind: 'event' }>, scratch: HallRouter) => void,
): CaughtUp {
  const live = router.live;
  const scratchLive = scratchReadModel(live);
  const scratch = router.sibling(scratchLive);
  loadGameSettings(store, scratch);
  const plan = tablePlan(store, table, lastAmendmentPerGame(store.amendments()), router.engineOptions, lastClockRaw);
  const usable = plan.kind === 'checkpoint' ? plan : undefined;
  const before = new Set(usable?.games.map((g) => g.cfg.id));
  let events = 0;
  for (const step of replayTable(store, scratch, table, storedCommands(store), usable, false)) {
    if (step.kind !== 'event') continue;
    events++;
    onEvent?.(step, scratch);
  }
  const track = scratch.track(table);
  const games = track.games.filter((id) => !before.has(id));
  for (const id of games) live.adopt(scratchLive, id);
  router.adoptTrack(track);
  return { table, games, events };
}
