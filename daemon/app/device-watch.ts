import { existsSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '../log/logger.ts';

/**
 * Watches the device path of each table configured by path (/dev/ttyUSB0, a pseudo-terminal) and
 * asks its session to retry at once when the path appears again: a board plugged back in is read
 * within moments, not after the back-off of a board that stayed away (up to 30 s). Returns stop.
 */
export function watchDevicePaths(paths: readonly { path: string; retryNow: () => void }[], log: Logger): () => void {
  const byDir = new Map<string, { path: string; retryNow: () => void }[]>();
  for (const p of paths) {
    const dir = dirname(p.path);
    byDir.set(dir, [...(byDir.get(dir) ?? []), p]);
  }
  const watchers: FSWatcher[] = [];
  for (const [dir, entries] of byDir) {
    try {
      const w = watch(dir, (_event, name) => {
        for (const e of entries) if ((name === null || name === basename(e.path)) && existsSync(e.path)) e.retryNow();
      });
      w.on('error', () => undefined);
      watchers.push(w);
    } catch (e) {
      // A directory that cannot be watched (gone, no inotify): the back-off alone brings the board back.
      log.debug('device directory not watched', { dir, error: String(e) });
    }
  }
  return () => {
    for (const w of watchers) w.close();
  };
}
