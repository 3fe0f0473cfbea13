import type { Database, Transaction } from 'better-sqlite3';

/**
 * A transaction function that takes the write lock when it starts (BEGIN IMMEDIATE). Other
 * processes write the same file (boardcast import-pairings while the daemon runs): a deferred
 * transaction that read first and then tried to write after another connection's commit would fail
 * at once with SQLITE_BUSY ("database is locked"), without waiting; an immediate one waits for the
 * lock (the busy timeout) and then sees the latest data. Nested in another transaction it joins it.
 */
export function writeTransaction<A extends unknown[], R>(db: Database, fn: (...args: A) => R): (...args: A) => R {
  const tx: Transaction<(...args: A) => R> = db.transaction(fn);
  return (...args) => tx.immediate(...args);
}
