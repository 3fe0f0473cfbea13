import Database from 'better-sqlite3';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { classifySqliteError, type StoreOpenError } from './errors.ts';
import { err, ok, type Result } from './result.ts';

/** How thoroughly a store is checked before it is opened for writing. */
export type IntegrityCheck = 'quick' | 'full';

/** Files of the data directory that say nothing about a store having been there. */
const NOT_A_STORE = new Set(['boardcast.lock', 'boardcast.pid']);

/**
 * Runs `fn` on a read-only connection to `file`. Such a connection to a WAL-mode file still creates
 * empty -wal/-shm files beside it: those it made are removed again, so the directory is as it was.
 */
export function withReadOnly<T>(file: string, fn: (db: Database.Database) => T): T {
  const sidecars = [`${file}-wal`, `${file}-shm`].filter((f) => !existsSync(f));
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    return fn(db);
  } finally {
    db?.close();
    for (const f of sidecars) if (statSync(f, { throwIfNoEntry: false })?.size === 0 || f.endsWith('-shm')) rmSync(f, { force: true });
  }
}

/**
 * Checks a store file without writing a byte of it: a read-only connection, SQLite's
 * `quick_check` (every page, the b-trees' order) or `integrity_check` (also every index entry
 * against its row), and the foreign keys. A damaged file is reported and left as it is; opening
 * it for writing could checkpoint its WAL into it or rewrite pages around the damage.
 *
 * `allowNew`: a missing or empty file may become a fresh store. Without it, an empty file, or a
 * missing one in a data directory that holds other files (backups, a WAL), is refused: a store
 * existed there, and starting afresh would hide its loss behind an empty event.
 */
export function checkBeforeOpen(file: string, check: IntegrityCheck, allowNew: boolean): Result<void, StoreOpenError> {
  const st = statSync(file, { throwIfNoEntry: false });
  if (!st || st.size === 0) {
    if (allowNew) return ok(undefined);
    if (st) return err({ kind: 'corrupt', file, message: 'the file is empty (0 bytes): the store that was here is gone; restore a backup (boardcast restore) or start a new event with --new' });
    const dir = dirname(file);
    const others = existsSync(dir) ? readdirSync(dir).filter((n) => !NOT_A_STORE.has(n) && !n.startsWith('boardcast.lock')) : [];
    if (others.length > 0) {
      return err({
        kind: 'unavailable',
        file,
        message: `there is no ${basename(file)} but ${dir} holds ${others.slice(0, 5).join(', ')}${others.length > 5 ? ', …' : ''}: a store was here; restore a backup (boardcast restore) or start a new event with --new`,
      });
    }
    return ok(undefined);
  }
  try {
    const found = withReadOnly(file, (db) => {
      const rows = db.pragma(check === 'full' ? 'integrity_check' : 'quick_check') as Record<string, string>[];
      const problems = rows
        .flatMap((r) => (Object.values(r)[0] ?? '').split('\n'))
        .map((p) => p.trim())
        .filter((p) => p !== '' && p !== 'ok' && !p.startsWith('***'));
      const keys = db.pragma('foreign_key_check') as unknown[];
      return [...problems.slice(0, 3), ...(keys.length > 0 ? [`${keys.length} rows point at rows that are not there`] : [])];
    });
    if (found.length > 0) {
      return err({
        kind: 'corrupt',
        file,
        message: `the ${check === 'full' ? 'integrity' : 'quick'} check found damage (${found.join('; ')}); the file was left untouched: restore a backup (boardcast restore)`,
      });
    }
    return ok(undefined);
  } catch (e) {
    const c = classifySqliteError(file, e);
    // A read-only open of a WAL file needs its -shm; that is no damage, the writer's open decides.
    return c.kind === 'unavailable' ? ok(undefined) : err(c);
  }
}
