import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log/logger.ts';
import { checkBeforeOpen } from '../store/integrity.ts';
import type { Store } from '../store/store.ts';

/** Where a data directory keeps its backups, newest by name. */
export const BACKUP_DIR = 'backups';
const NAME = /^boardcast-\d{8}-\d{6}(-\d+)?\.sqlite$/;

export interface BackupState {
  /** The newest good backup (file name) and when it was taken (epoch ms), or null. */
  last: { file: string; at: number } | null;
  /** Why the last attempt failed, or null. */
  lastError: string | null;
}

export interface Backups {
  /** Takes a backup now (a round closed, or the schedule); resolves once it is written and checked. */
  take(reason: string): Promise<void>;
  state(): BackupState;
  /** Stops the schedule; resolves once a backup under way has finished. */
  stop(): Promise<void>;
}

/** The backups in a data directory, oldest first. */
export function listBackups(dataDir: string): string[] {
  try {
    return readdirSync(join(dataDir, BACKUP_DIR))
      .filter((n) => NAME.test(n))
      .sort();
  } catch {
    return [];
  }
}

function stamp(at: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${at.getUTCFullYear()}${p(at.getUTCMonth() + 1)}${p(at.getUTCDate())}-${p(at.getUTCHours())}${p(at.getUTCMinutes())}${p(at.getUTCSeconds())}`;
}

/**
 * Online backups of the store (SQLite's backup API: the daemon keeps writing meanwhile) into
 * <dataDir>/backups, every `everyMinutes` and whenever `take` is called (the runtime calls it
 * at round close). Each one is checked (quick_check) once written; a bad one is deleted and
 * reported. The `keep` newest are kept.
 */
export function startBackups(store: Store, dataDir: string, opts: { everyMinutes: number; keep: number }, log: Logger): Backups {
  const dir = join(dataDir, BACKUP_DIR);
  const state: BackupState = { last: null, lastError: null };
  let running: Promise<void> = Promise.resolve();
  const once = async (reason: string): Promise<void> => {
    const at = new Date();
    let name = `boardcast-${stamp(at)}.sqlite`;
    for (let k = 2; listBackups(dataDir).includes(name); k++) name = `boardcast-${stamp(at)}-${k}.sqlite`;
    const file = join(dir, name);
    try {
      mkdirSync(dir, { recursive: true });
      await store.backup(file);
      const checked = checkBeforeOpen(file, 'quick', false);
      if (!checked.ok) {
        rmSync(file, { force: true });
        throw new Error(checked.error.message);
      }
      state.last = { file: name, at: at.getTime() };
      state.lastError = null;
      log.info('store backed up', { file, reason });
      const all = listBackups(dataDir);
      for (const old of all.slice(0, Math.max(0, all.length - opts.keep))) rmSync(join(dir, old), { force: true });
    } catch (e) {
      state.lastError = `${new Date().toISOString()}: ${(e as Error).message}`;
      log.error('store backup failed', { file, reason, error: (e as Error).message });
    }
  };
  // One at a time: a round close during a scheduled backup waits for it.
  const take = (reason: string): Promise<void> => (running = running.then(() => once(reason)));
  const timer = opts.everyMinutes > 0 ? setInterval(() => void take('schedule'), opts.everyMinutes * 60_000) : null;
  timer?.unref();
  return {
    take,
    state: () => ({ ...state }),
    stop: async () => {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
