import { withReadOnly } from './integrity.ts';

/** What a store holds, read through a read-only connection (for `boardcast doctor`). */
export interface StoreSummary {
  schemaVersion: number;
  tournaments: number;
  rounds: number;
  games: { total: number; finished: number };
  rawEvents: number;
  /** Wall time of the last raw event (epoch ms), or null. */
  lastEventAt: number | null;
  amendments: number;
  fileBytes: number;
  walBytes: number;
}

export function summariseStore(file: string, sizes: { fileBytes: number; walBytes: number }): StoreSummary {
  return withReadOnly(file, (db) => {
    const n = (sql: string): number => (db.prepare(sql).pluck().get() as number | null) ?? 0;
    return {
      schemaVersion: db.pragma('user_version', { simple: true }) as number,
      tournaments: n('SELECT COUNT(*) FROM tournaments'),
      rounds: n('SELECT COUNT(*) FROM rounds'),
      games: { total: n('SELECT COUNT(*) FROM games'), finished: n("SELECT COUNT(*) FROM games WHERE status = 'finished'") },
      rawEvents: n('SELECT COUNT(*) FROM raw_events'),
      lastEventAt: (db.prepare('SELECT MAX(wall_ms) FROM raw_events').pluck().get() as number | null) ?? null,
      amendments: n('SELECT COUNT(*) FROM amendments'),
      ...sizes,
    };
  });
}
