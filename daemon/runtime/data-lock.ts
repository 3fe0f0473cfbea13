import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { err, ok, type Result } from '../store/result.ts';

export const LOCK_FILE = 'boardcast.pid';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One daemon per data directory. SQLite's own locks only stop a second daemon at its first
 * conflicting write, by which time both would be reading boards; a pid file names the owner at
 * start. A pid file left by a killed daemon (its process is gone) is taken over.
 */
export function lockDataDir(dir: string): Result<{ release(): void }, string> {
  const file = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      return ok({
        release: () => {
          try {
            if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file);
          } catch {
            // Already gone: nothing to release.
          }
        },
      });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return err(`cannot create ${file}: ${(e as Error).message}`);
      const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        return err(`store error: ${dir} is in use by another boardcast (pid ${pid}, ${file}); stop it first`);
      }
      rmSync(file, { force: true });
    }
  }
  return err(`cannot take ${file}`);
}
