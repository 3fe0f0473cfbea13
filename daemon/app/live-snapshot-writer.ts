import type { Logger } from '../log/logger.ts';
import { liveSnapshotRows } from '../runtime/checkpoint-restore.ts';
import type { HallRouter } from '../runtime/hall-router.ts';
import type { Store } from '../store/store.ts';

/**
 * Writes each table's live game as it stands, the changed ones only, in one transaction (what the
 * next start serves at once, docs/store.md "Restart"). Failures are logged: the next start then
 * replays those tables before it serves, as without snapshots.
 */
export function liveSnapshotWriter(store: Store, router: HallRouter, log: Logger): () => void {
  const known = new Map<number, string>();
  return () => {
    try {
      const rows = liveSnapshotRows(store, router, known);
      if (rows.length > 0) store.recordLiveSnapshots(rows, Date.now());
    } catch (e) {
      known.clear();
      log.error('live snapshots not written (the next start replays the live games before serving)', { error: String(e) });
    }
  };
}
