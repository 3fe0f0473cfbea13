import type { Logger } from '../log/logger.ts';
import type { ClockRow } from '../runtime/derived-rows.ts';
import type { HallRouter } from '../runtime/hall-router.ts';
import { replayStore } from '../runtime/store-replay.ts';
import type { Store } from '../store/store.ts';

export interface Rebuilt {
  /** Raw events replayed. */
  events: number;
  games: number;
  ms: number;
  /** Clock readings the store holds raw but not derived (a crash came between): to be written. */
  missedClocks: ClockRow[];
}

/** The live state rebuilt by replaying the stored raw events of the hall's tables. */
export function rebuildFromStore(store: Store, router: HallRouter, tables: readonly number[], log: Logger): Rebuilt {
  const t0 = performance.now();
  // Clock readings a crash kept from the store (they follow the last stored one) are written below.
  const lastClockRaw = store.lastClockRawEventId();
  const missedClocks: ClockRow[] = [];
  const events = replayStore(store, router, tables, (step) => {
    const ev = step.event.event;
    if (ev?.type !== 'clock' || step.event.id <= lastClockRaw || step.gameId === null) return;
    const game = router.live.progress(step.gameId);
    if (game) missedClocks.push({ game, rawEventId: step.event.id, wallMs: step.event.wallMs, reading: ev });
  });
  const rebuilt = { events, games: router.tracks().reduce((n, t) => n + t.games.length, 0), ms: performance.now() - t0, missedClocks };
  log.info('live state rebuilt from the store', { rawEvents: events, games: rebuilt.games, ms: Math.round(rebuilt.ms) });
  return rebuilt;
}
