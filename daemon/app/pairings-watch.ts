import type { Logger } from '../log/logger.ts';
import type { HallRouter } from '../runtime/hall-router.ts';
import type { Store } from '../store/store.ts';

/** How often the store's pairings are checked for an import made while the daemon runs. */
export const PAIRINGS_CHECK_MS = 3_000;

/**
 * Pairings imported while the daemon runs (`boardcast import-pairings` writes the store from its
 * own process, often after the boards were set up for the round): the games take their players.
 * Returns the stop function.
 */
export function watchPairings(store: Store, router: HallRouter, log: Logger, everyMs = PAIRINGS_CHECK_MS, onPlayersChanged: (gameIds: string[]) => void = () => {}): () => void {
  let seen = store.pairingsVersion();
  const timer = setInterval(() => {
    try {
      const v = store.pairingsVersion();
      if (v === seen) return;
      seen = v;
      const changed = router.refreshPlayers();
      store.linkGamesToPairings();
      onPlayersChanged(changed);
      log.info('pairings changed in the store', { gamesWithNewPlayers: changed });
    } catch (e) {
      log.warn('pairings not re-read', { error: String(e) });
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
