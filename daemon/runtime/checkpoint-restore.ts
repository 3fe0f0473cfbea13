import type { GameId } from '../../protocols/feed/model.ts';
import { stateDigest } from '../store/checkpoints.ts';
import type { Store } from '../store/store.ts';
import type { AmendmentRow } from '../store/types.ts';
import type { TableTrack } from './hall-router.ts';
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
