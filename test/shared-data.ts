import { existsSync } from 'node:fs';
import { SHARED_GAMES_DIR } from '../daemon/install/paths.ts';

/** The shared corpus of real games (../shared/data/games beside the checkout). */
export { SHARED_GAMES_DIR };

/**
 * Whether `path` (in the shared corpus) is there for a test that needs it. Absent on a developer's
 * machine: a loud warning and the caller skips. Absent in CI (CI=true): an error, because CI runs
 * with ../shared beside the clone and a silent skip would hide that its tests never ran.
 */
export function sharedDataPresent(path: string, what: string): boolean {
  if (existsSync(path)) return true;
  const message = `${what}: ${path} is absent (the shared corpus is not beside this checkout)`;
  if (process.env.CI) throw new Error(`${message}; CI must run with ../shared`);
  console.warn(`SKIPPED ${message}`);
  return false;
}
