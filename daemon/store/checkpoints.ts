import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { writeTransaction } from './write-transaction.ts';

/** A table's router state at a game boundary (JSON of the runtime's TableTrack), keyed by the raw event that made it. */
export interface TableCheckpoint {
  tableNumber: number;
  rawEventId: number;
  trackJson: string;
}

/** The read model of a game its table has left (JSON of the feed's GameState). */
export interface GameSnapshot {
  liveId: string;
  tableNumber: number;
  stateJson: string;
  /** sha256 of `stateJson` as written: a row changed since does not match it. */
  digest: string;
  /** The last amendment (audit trail id) the state includes; 0: none. */
  throughAmendment: number;
}

/**
 * A table's live game as it stood after raw event `rawEventId`: the router's track (JSON of
 * TableTrack), the game's configuration (JSON of MemoryGameConfig) and its read model (JSON of
 * GameSnapshotState), with the last amendment it includes.
 */
export interface LiveSnapshot {
  tableNumber: number;
  liveId: string;
  rawEventId: number;
  trackJson: string;
  gameJson: string;
  stateJson: string;
  throughAmendment: number;
}

export interface CheckpointWrites {
  /** Writes or replaces the live snapshots of these tables, in one transaction. */
  recordLiveSnapshots(snapshots: readonly LiveSnapshot[], wallMs: number): void;
  /** Writes a table's checkpoint (idempotent: a replay may offer the same one again). */
  recordCheckpoint(checkpoint: TableCheckpoint, wallMs: number): void;
  /** Writes or replaces one game's snapshot. */
  recordSnapshot(snapshot: Omit<GameSnapshot, 'digest'>, wallMs: number): void;
}

export interface CheckpointQueries {
  /** The table's latest checkpoint, if any. */
  latestCheckpoint(tableNumber: number): TableCheckpoint | undefined;
  gameSnapshot(liveId: string): GameSnapshot | undefined;
  /** Highest amendment id in the audit trail (0: none). */
  lastAmendmentId(): number;
  /** Every table's live snapshot. */
  liveSnapshots(): LiveSnapshot[];
}

/** The digest of a derived JSON text: what a restart checks a snapshot against, and the verification compares. */
export function stateDigest(json: string): string {
  return createHash('sha256').update(json).digest('hex');
}

export function createCheckpoints(db: Database): CheckpointWrites & CheckpointQueries {
  const putCheckpoint = db.prepare('INSERT OR REPLACE INTO table_checkpoints (table_number, raw_event_id, track_json, written_wall) VALUES (?, ?, ?, ?)');
  const putSnapshot = db.prepare('INSERT OR REPLACE INTO game_snapshots (live_id, table_number, state_json, digest, through_amendment, written_wall) VALUES (?, ?, ?, ?, ?, ?)');
  const latest = db.prepare('SELECT table_number AS tableNumber, raw_event_id AS rawEventId, track_json AS trackJson FROM table_checkpoints WHERE table_number = ? ORDER BY raw_event_id DESC LIMIT 1');
  const snapshot = db.prepare('SELECT live_id AS liveId, table_number AS tableNumber, state_json AS stateJson, digest, through_amendment AS throughAmendment FROM game_snapshots WHERE live_id = ?');
  const lastAmendment = db.prepare('SELECT COALESCE(MAX(id), 0) FROM amendments').pluck();
  const putLive = db.prepare(
    'INSERT OR REPLACE INTO live_snapshots (table_number, live_id, raw_event_id, track_json, game_json, state_json, through_amendment, written_wall) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const allLive = db.prepare(
    'SELECT table_number AS tableNumber, live_id AS liveId, raw_event_id AS rawEventId, track_json AS trackJson, game_json AS gameJson, state_json AS stateJson, through_amendment AS throughAmendment FROM live_snapshots ORDER BY table_number',
  );
  const writeSnapshot = (s: Omit<GameSnapshot, 'digest'>, wallMs: number): void => {
    putSnapshot.run(s.liveId, s.tableNumber, s.stateJson, stateDigest(s.stateJson), s.throughAmendment, wallMs);
  };
  return {
    recordCheckpoint: (c, wallMs) => void putCheckpoint.run(c.tableNumber, c.rawEventId, c.trackJson, wallMs),
    recordSnapshot: writeTransaction(db, writeSnapshot),
    recordLiveSnapshots: writeTransaction(db, (rows: readonly LiveSnapshot[], wallMs: number) => {
      for (const s of rows) putLive.run(s.tableNumber, s.liveId, s.rawEventId, s.trackJson, s.gameJson, s.stateJson, s.throughAmendment, wallMs);
    }),
    liveSnapshots: () => allLive.all() as LiveSnapshot[],
    latestCheckpoint: (table) => latest.get(table) as TableCheckpoint | undefined,
    gameSnapshot: (id) => snapshot.get(id) as GameSnapshot | undefined,
    lastAmendmentId: () => lastAmendment.get() as number,
  };
}
