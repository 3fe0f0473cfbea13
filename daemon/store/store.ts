import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { classifySqliteError, type StoreOpenError } from './errors.ts';
import { checkBeforeOpen, type IntegrityCheck } from './integrity.ts';
import { createCheckpoints, type CheckpointQueries, type CheckpointWrites } from './checkpoints.ts';
import { createGames, type GameQueries, type GameWrites } from './games.ts';
import { migrate, SCHEMA_VERSION, schemaVersion } from './migrations.ts';
import { createRawEventLog, type RawEventLog } from './raw-events.ts';
import { err, ok, type Result } from './result.ts';
import { createSetup, type SetupQueries, type SetupWrites } from './setup.ts';

/** The database file in a data directory. */
export const STORE_FILE = 'boardcast.sqlite';

export interface OpenStoreOptions {
  /** How long to wait for another connection's lock before reporting `locked` (default 2000 ms). */
  busyTimeoutMs?: number;
  /**
   * Check the file read-only before opening it for writing (checkBeforeOpen): 'quick' reads every
   * page, 'full' also every index entry. A damaged file is refused and never written.
   */
  check?: IntegrityCheck;
  /** With `check`: a missing or empty file may become a new store even where one existed (serve --new). */
  allowNew?: boolean;
  /** FULL (default: a committed event survives a power cut) or NORMAL (benchmarks compare the two). */
  synchronous?: 'FULL' | 'NORMAL';
  /**
   * A read-only connection (boardcast doctor --replay beside a running daemon): nothing is written,
   * not even a migration, so the file must exist at this release's schema version.
   */
  readonly?: boolean;
}

/** How the connection is set up, for checks and `boardcast` tools. */
export interface StoreSettings {
  journalMode: string;
  /** SQLite's synchronous level: 2 = FULL, 1 = NORMAL. */
  synchronous: number;
  schemaVersion: number;
}

export type Store = RawEventLog &
  SetupWrites &
  SetupQueries &
  GameWrites &
  GameQueries &
  CheckpointWrites &
  CheckpointQueries & {
    /** Absolute path of the database file. */
    readonly file: string;
    /** Runs `fn` in one IMMEDIATE transaction (all or nothing); nested calls join the outer one. */
    transaction<T>(fn: () => T): T;
    settings(): StoreSettings;
    /** Folds the WAL back into the database file and truncates it. */
    checkpoint(): void;
    /** An online copy of the whole store into `file` (SQLite's backup API; writers carry on meanwhile). */
    backup(file: string): Promise<void>;
    close(): void;
  };

/**
 * Opens (creating if needed) the database file and brings its schema up to date.
 *
 * Durability (docs/store.md): WAL journal with synchronous=FULL, so every committed transaction's
 * WAL frames are fsynced before COMMIT returns. A SIGKILL or a power cut then loses at most the
 * transaction in flight, never one whose derived state may have been broadcast.
 *
 * Never deletes, truncates or rewrites a file it cannot use: a locked, corrupt or newer file is
 * reported as a value and left as it was.
 */
export function openStore(path: string, options: OpenStoreOptions = {}): Result<Store, StoreOpenError> {
  const file = resolve(path);
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    if (st && !st.isFile()) return err({ kind: 'unavailable', file, message: 'exists but is not a regular file' });
    if (!st) mkdirSync(dirname(file), { recursive: true });
  } catch (e) {
    return err({ kind: 'unavailable', file, message: `cannot create its directory (${(e as Error).message})` });
  }

  if (options.check) {
    const checked = checkBeforeOpen(file, options.check, options.allowNew ?? false);
    if (!checked.ok) return checked;
  }
  let db: Database.Database;
  try {
    db = new Database(file, { timeout: options.busyTimeoutMs ?? 2000, ...(options.readonly ? { readonly: true, fileMustExist: true } : {}) });
  } catch (e) {
    return err(classifySqliteError(file, e));
  }
  if (options.readonly) {
    try {
      const version = schemaVersion(db);
      if (version !== SCHEMA_VERSION) {
        db.close();
        return err({
          kind: 'newer-schema',
          file,
          fileVersion: version,
          knownVersion: SCHEMA_VERSION,
          message: `schema version ${version}, not this release's ${SCHEMA_VERSION}: ${version < SCHEMA_VERSION ? 'start boardcast serve on it once to bring it up to date' : 'upgrade boardcast'}`,
        });
      }
    } catch (e) {
      db.close();
      return err(classifySqliteError(file, e));
    }
    return ok(storeOn(db, file));
  }

  try {
    // Reading the header first: on garbage bytes this fails with SQLITE_NOTADB before any write.
    const version = schemaVersion(db);
    if (version > SCHEMA_VERSION) {
      db.close();
      return err({
        kind: 'newer-schema',
        file,
        fileVersion: version,
        knownVersion: SCHEMA_VERSION,
        message: `schema version ${version} is newer than this boardcast knows (${SCHEMA_VERSION}); upgrade boardcast`,
      });
    }
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    db.pragma('foreign_keys = ON');
    // Take the write lock once now: another daemon holding a long write on this file is reported
    // at startup, not at the first board event.
    db.prepare('BEGIN IMMEDIATE').run();
    db.prepare('COMMIT').run();
    migrate(db);
  } catch (e) {
    if (db.inTransaction) {
      try {
        db.prepare('ROLLBACK').run();
      } catch {
        // The connection is closing anyway.
      }
    }
    db.close();
    return err(classifySqliteError(file, e));
  }

  return ok(storeOn(db, file));
}

function storeOn(db: Database.Database, file: string): Store {
  return {
    ...createRawEventLog(db),
    ...createSetup(db),
    ...createGames(db),
    ...createCheckpoints(db),
    file,
    settings: () => ({
      journalMode: db.pragma('journal_mode', { simple: true }) as string,
      synchronous: db.pragma('synchronous', { simple: true }) as number,
      schemaVersion: schemaVersion(db),
    }),
    checkpoint: () => void db.pragma('wal_checkpoint(TRUNCATE)'),
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
    backup: async (dest) => {
      await db.backup(dest);
    },
    close: () => db.close(),
  };
}
