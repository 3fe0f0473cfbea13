import Database from 'better-sqlite3';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { err, ok, type Result } from '../store/result.ts';

/** The lock itself: a tiny SQLite file held in exclusive locking mode while the daemon runs. */
export const LOCK_FILE = 'boardcast.lock';
/** For people: which process holds the lock (never trusted to decide anything). */
export const PID_FILE = 'boardcast.pid';

/**
 * One daemon per data directory. SQLite's own locks on the store only stop a second daemon at its
 * first conflicting write, by which time both would be reading boards, so the lock is taken at
 * start: an exclusive lock on a small SQLite file, which the operating system drops the moment
 * the process ends however it ends (kill -9, a crash, a power cut). A pid left behind by a dead
 * daemon, whose number a new process may have been given since, cannot block a restart.
 */
export function lockDataDir(dir: string): Result<{ release(): void }, string> {
  const file = join(dir, LOCK_FILE);
  const pidFile = join(dir, PID_FILE);
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { timeout: 0 });
    db.pragma('locking_mode = EXCLUSIVE');
    // No journal file beside it: the lock's one table is never rolled back.
    db.pragma('journal_mode = MEMORY');
    // The first write takes the exclusive lock; in this locking mode it is kept until close.
    db.exec('BEGIN EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL)');
    db.exec('COMMIT');
  } catch (e) {
    db?.close();
    const code = (e as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      let holder = '';
      try {
        holder = ` (pid ${readFileSync(pidFile, 'utf8').trim()})`;
      } catch {
        // No pid file: the holder is still starting.
      }
      return err(`store error: ${dir} is in use by another boardcast${holder}; stop it first`);
    }
    return err(`store error: cannot lock ${file}: ${(e as Error).message}`);
  }
  try {
    writeFileSync(pidFile, `${process.pid}\n`);
  } catch {
    // Only for people to read: the lock holds without it.
  }
  const held = db;
  return ok({
    release: () => {
      held.close();
      try {
        if (readFileSync(pidFile, 'utf8').trim() === String(process.pid)) rmSync(pidFile);
      } catch {
        // Already gone: nothing to release.
      }
    },
  });
}
