import type { Store } from '../store/store.ts';
import { loadConfig, type BoardcastConfig } from '../tournament/config.ts';
import { openExistingStore } from '../runtime/open-existing.ts';

/**
 * The config and the existing store of a data directory, for the commands that read what a daemon
 * recorded (export, replay). Problems are printed, one per line, and come back as null: the
 * caller exits 1. The config matters beyond tags: its rules edition and category decide what the
 * engine rules when the events are replayed.
 */
export function openStoredHall(dataDir: string, configFile: string | undefined): { config: BoardcastConfig; store: Store } | null {
  const cfg = loadConfig(configFile);
  if (!cfg.ok) {
    for (const m of cfg.error.messages) console.error(m);
    return null;
  }
  const store = openExistingStore(dataDir);
  if (!store.ok) {
    console.error(store.error);
    return null;
  }
  return { config: cfg.value, store: store.value };
}
