import type { GameId } from '../../protocols/feed/model.ts';
import { stateDigest, type LiveSnapshot } from '../store/checkpoints.ts';
import type { Store } from '../store/store.ts';
import type { AmendmentRow } from '../store/types.ts';
import type { HallRouter, TableTrack } from './hall-router.ts';
import type { GameSnapshotState, MemoryGameConfig, MemoryLiveSource } from './memory-live-source.ts';

/**
 * A restart's cost follows what is live, not the tournament's history (docs/store.md, "Restart").
 * At every game boundary the runtime stores the table's router state (a checkpoint), and the read
 * model of every game a table has left is stored as a snapshot with its digest. A restart then
 * takes each table back to its latest checkpoint, puts the games before it back from their
 * snapshots, and replays only the raw events from the boundary on. A table whose checkpoint cannot
 * be trusted (a snapshot missing, altered, or older than an amendment of its game) is replayed
 * whole, as before. The verification (store-verification.ts) replays everything in the background
 * and compares.
 */

/** The JSON a snapshot stores: the read model of a game, exactly as `MemoryLiveSource.snapshot` gives it. */
export const snapshotJson = (s: GameSnapshotState): string => JSON.stringify(s);

/** The store's checkpoint of a table at a game boundary (the router's onBoundary). */
export function recordCheckpoint(store: Store, track: TableTrack, rawEventId: number, wallMs = Date.now()): void {
  store.recordCheckpoint({ tableNumber: track.number, rawEventId, trackJson: JSON.stringify(track) }, wallMs);
}

/**
 * Writes the snapshot of a game its table has left when it differs from the stored one (a game
 * amended since, or none stored yet). `known`: digests already stored, kept by the caller so an
 * unchanged game costs one stringify and no read.
 */
export function recordSnapshotIfChanged(store: Store, live: MemoryLiveSource, id: GameId, known: Map<GameId, string>, wallMs = Date.now()): boolean {
  const snap = live.snapshot(id);
  if (!snap) return false;
  const json = snapshotJson(snap);
  const digest = stateDigest(json);
  const stored = known.get(id) ?? store.gameSnapshot(id)?.digest;
  if (stored === digest) {
    known.set(id, digest);
    return false;
  }
  store.recordSnapshot({ liveId: id, tableNumber: snap.state.table, stateJson: json, throughAmendment: store.lastAmendmentId() }, wallMs);
  known.set(id, digest);
  return true;
}

/** How a table is rebuilt: from a checkpoint with its earlier games' snapshots, or whole (with why). */
export type TablePlan = { kind: 'checkpoint'; rawEventId: number; track: TableTrack; games: { cfg: MemoryGameConfig; snapshot: GameSnapshotState }[] } | { kind: 'whole'; why: string };

/**
 * The id of the last audit-trail row about each game (any amendment, an undo, a swap or a Chess960
 * start included): a snapshot older than it may not hold it.
 */
export function lastAmendmentPerGame(rows: readonly AmendmentRow[]): Map<GameId, number> {
  const out = new Map<GameId, number>();
  for (const r of rows) {
    const d = r.detail as { gameId?: unknown } | null;
    if (typeof d === 'object' && d !== null && typeof d.gameId === 'string') out.set(d.gameId, Math.max(out.get(d.gameId) ?? 0, r.id));
  }
  return out;
}

/** Decides how to rebuild a table; `lastAmendmentOf` from lastAmendmentPerGame. */
export function tablePlan(store: Store, table: number, lastAmendmentOf: ReadonlyMap<GameId, number>, engine: MemoryGameConfig['engine'], lastClockRaw: number): TablePlan {
  const c = store.latestCheckpoint(table);
  if (!c) return { kind: 'whole', why: 'no checkpoint' };
  // Clock readings before the boundary that the store may not have derived yet (a crash between a
  // batch's raw commit and its derived writes): only a replay of them can write them.
  if (store.hasRawEventBetween(table, 'clock', lastClockRaw, c.rawEventId)) return { kind: 'whole', why: 'clock readings before its last game boundary may not all be derived (a crash)' };
  const track = JSON.parse(c.trackJson) as TableTrack;
  if (track.number !== table || !Array.isArray(track.games)) return { kind: 'whole', why: 'checkpoint of another table' };
  const games: { cfg: MemoryGameConfig; snapshot: GameSnapshotState }[] = [];
  for (const id of track.games) {
    const row = store.gameSnapshot(id);
    if (!row) return { kind: 'whole', why: `no snapshot of ${id}` };
    if (stateDigest(row.stateJson) !== row.digest) return { kind: 'whole', why: `snapshot of ${id} does not match its digest (altered)` };
    const newer = lastAmendmentOf.get(id) ?? 0;
    if (newer > row.throughAmendment) return { kind: 'whole', why: `amendment ${newer} of ${id} is newer than its snapshot` };
    const snapshot = JSON.parse(row.stateJson) as GameSnapshotState;
    const s = snapshot.state;
    games.push({ cfg: { id, round: s.round, table: s.table, white: s.white, black: s.black, ...(engine ? { engine } : {}) }, snapshot });
  }
  return { kind: 'checkpoint', rawEventId: c.rawEventId, track, games };
}

/**
 * Live snapshots (docs/store.md, "Restart"): every so often, and at a clean stop, each table's
 * current game is stored as it stands with the router's view of the table. A restart serves those
 * games at once (with no engine), and catches each such table up in the background: its raw
 * events from its last checkpoint are replayed in a scratch read model, whose games then replace
 * the served ones. What is served in the end is exactly what a replay gives; the snapshot only
 * decides what is shown during the seconds the catch-up takes.
 */

/**
 * The rows to write now: each table's current game that runs on an engine (a game still served
 * from a snapshot has nothing newer to say) and changed since `known` (table → state JSON last
 * written, kept by the caller).
 */
export function liveSnapshotRows(store: Store, router: HallRouter, known: Map<number, string>): LiveSnapshot[] {
  const live = router.live;
  const rows: LiveSnapshot[] = [];
  // A snapshot older than an audit trail row is not served: after a decision every game is
  // written again, changed or not.
  const through = store.lastAmendmentId();
  for (const track of router.tracks()) {
    const id = track.gameId;
    if (id === null || !live.hasEngine(id)) continue;
    const snap = live.snapshot(id);
    const cfg = live.gameConfig(id);
    if (!snap || !cfg || track.lastEventId === undefined) continue;
    const stateJson = snapshotJson(snap);
    const key = `${through} ${stateJson}`;
    if (known.get(track.number) === key) continue;
    // The events since the last start position are the router's means to open a game late; they
    // can be thousands, and a restart catches the table up from its checkpoint anyway.
    const served: TableTrack = { ...track, sinceStart: null };
    rows.push({ tableNumber: track.number, liveId: id, rawEventId: track.lastEventId, trackJson: JSON.stringify(served), gameJson: JSON.stringify(cfg), stateJson, throughAmendment: through });
    known.set(track.number, key);
  }
  return rows;
}

/** A table served from its live snapshot at a start, to be caught up. */
export interface DeferredTable {
  table: number;
  liveId: GameId;
  /** The raw event the snapshot stood at. */
  rawEventId: number;
}

/**
 * Whether a table's live snapshot can be served at a start instead of replaying the table first,
 * and what to serve: only a snapshot taken after the table's last game boundary, with no audit
 * trail row since (an arbiter's decision it would not show), of the game the track names, under
 * the engine options the game has now (the config's rules unchanged).
 */
export function servableSnapshot(
  s: LiveSnapshot,
  plan: TablePlan,
  lastAmendment: number,
  engineOf: (id: GameId) => MemoryGameConfig['engine'],
): { track: TableTrack; cfg: MemoryGameConfig; snapshot: GameSnapshotState } | null {
  if (s.throughAmendment !== lastAmendment) return null;
  if (plan.kind === 'checkpoint' ? s.rawEventId < plan.rawEventId : plan.why !== 'no checkpoint') return null;
  try {
    const track = JSON.parse(s.trackJson) as TableTrack;
    const cfg = JSON.parse(s.gameJson) as MemoryGameConfig;
    const snapshot = JSON.parse(s.stateJson) as GameSnapshotState;
    if (track.number !== s.tableNumber || track.gameId !== s.liveId || cfg.id !== s.liveId || snapshot.state?.id !== s.liveId) return null;
    if (JSON.stringify(cfg.engine ?? null) !== JSON.stringify(engineOf(s.liveId) ?? null)) return null;
    return { track, cfg, snapshot };
  } catch {
    return null;
  }
}
