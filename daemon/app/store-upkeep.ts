import type { Logger } from '../log/logger.ts';
import type { PairingLookup } from '../runtime/hall-router.ts';
import { runInBackground, verifyStore, type VerificationStatus } from '../runtime/store-verification.ts';
import type { Store } from '../store/store.ts';
import type { BoardcastConfig } from '../tournament/config.ts';

export interface StoreUpkeep {
  /** The background verification's state (/health `store.verification`). */
  verification(): VerificationStatus;
  /** WAL checkpoints taken, and the last one's time and error. */
  wal(): { checkpoints: number; lastAt: number | null; lastError: string | null };
  stop(): void;
}

/** How many differences /health lists (the log has them all). */
const LISTED = 20;

/**
 * What keeps the store honest and small while the daemon runs: the verification after a start
 * (the whole store replayed in the background and compared with what the start restored from
 * checkpoints and snapshots; a difference is logged as an error and shown on /health), and a
 * periodic WAL checkpoint that folds the log back into the file and truncates it, so the WAL stays
 * bounded through a long round.
 */
export function startStoreUpkeep(store: Store, config: BoardcastConfig, tables: readonly number[], pairings: PairingLookup, log: Logger): StoreUpkeep {
  let status: VerificationStatus = { state: 'off', startedAt: null, finishedAt: null, events: 0, games: 0, differences: [] };
  let job: { stop(): void } | null = null;
  if (config.store.verifyAfterStart) {
    status = { ...status, state: 'running', startedAt: Date.now() };
    job = runInBackground(
      verifyStore(store, config, tables, pairings),
      (r) => {
        status = {
          state: r.differences.length === 0 ? 'passed' : 'differences',
          startedAt: status.startedAt,
          finishedAt: Date.now(),
          events: r.events,
          games: r.games,
          differences: r.differences.slice(0, LISTED),
        };
        if (r.differences.length === 0) log.info('store verified: a whole replay gives what the store derived', { games: r.games, rawEvents: r.events, ms: status.finishedAt! - status.startedAt! });
        for (const d of r.differences) log.error('store verification: a derived row differs from the replay of the raw events', { ...d });
      },
      (e) => {
        status = { ...status, state: 'failed', finishedAt: Date.now(), error: String(e) };
        log.error('store verification failed', { error: String(e) });
      },
    );
  }
  const wal = { checkpoints: 0, lastAt: null as number | null, lastError: null as string | null };
  const minutes = config.store.walCheckpointMinutes;
  const timer =
    minutes > 0
      ? setInterval(() => {
          try {
            store.checkpoint();
            wal.checkpoints++;
            wal.lastAt = Date.now();
            wal.lastError = null;
          } catch (e) {
            // Busy (a backup reading) or I/O: SQLite's own checkpoints go on; the next one tries again.
            wal.lastError = String(e);
            log.warn('WAL checkpoint not taken', { error: String(e) });
          }
        }, minutes * 60_000)
      : null;
  timer?.unref();
  return {
    verification: () => status,
    wal: () => ({ ...wal }),
    stop: () => {
      job?.stop();
      if (timer) clearInterval(timer);
    },
  };
}
