import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { restoreHall } from '../../daemon/app/rebuild.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { CLOCK_HEARTBEAT_MS, ClockThinning } from '../../daemon/runtime/clock-thinning.ts';
import type { ClockRow } from '../../daemon/runtime/derived-rows.ts';
import { hallPairings } from '../../daemon/runtime/hall-pairings.ts';
import { openStore } from '../../daemon/store/store.ts';
import { loadConfig, tournamentSetup, type BoardcastConfig } from '../../daemon/tournament/config.ts';
import { writeHallStore } from '../bench/hall-store.ts';
import { withSql } from '../store/helpers.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const game = { id: 'r1-t1', round: 1, table: 1, startFen: '' };
const reading = (at: number, running: 'white' | 'black' | null, extra: Partial<ClockRow['reading']> = {}): ClockRow => ({
  game,
  rawEventId: at,
  wallMs: at,
  reading: { type: 'clock', at, whiteMs: 600_000 - at, blackMs: 600_000, running, whiteFlag: false, blackFlag: false, ...extra },
});

describe('clock reading rows', () => {
  it('keep the first reading, every press, stop and flag, log readings, and one a minute between', () => {
    const t = new ClockThinning();
    const kept = (r: ClockRow) => t.keep(r);
    expect(kept(reading(0, null))).toBe(true);
    expect(kept(reading(1000, null))).toBe(false);
    expect(kept(reading(2000, 'white'))).toBe(true);
    expect(kept(reading(3000, 'white'))).toBe(false);
    expect(kept(reading(2000 + CLOCK_HEARTBEAT_MS - 1, 'white'))).toBe(false);
    expect(kept(reading(2000 + CLOCK_HEARTBEAT_MS, 'white'))).toBe(true);
    expect(kept(reading(70_000, 'black'))).toBe(true);
    expect(kept(reading(71_000, 'black', { blackFlag: true }))).toBe(true);
    expect(kept(reading(72_000, 'black', { blackFlag: true, logged: true }))).toBe(true);
    // Another game's readings are its own.
    expect(t.keep({ ...reading(73_000, 'black', { blackFlag: true }), game: { ...game, id: 'r1-t2' } })).toBe(true);
  });

  it('are the same rows after a crash lost some of them: the start writes back exactly those', () => {
    const dir = mkdtempSync(join(tmpdir(), 'boardcast-thinning-'));
    dirs.push(dir);
    const file = join(dir, 'boardcast.sqlite');
    const cfg = loadConfig();
    if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
    const config: BoardcastConfig = { ...cfg.value, emulate: null, rounds: { ...cfg.value.rounds, start: 'board', count: 2 } };
    const start = () => {
      const s = openStore(file);
      if (!s.ok) throw new Error(s.error.message);
      restoreHall(s.value, config, {
        tables: [1, 2],
        tournamentId: s.value.upsertTournament(tournamentSetup(config)),
        pairings: hallPairings(s.value, config, null),
        log: createLogger({ write: () => {} }),
      });
      s.value.close();
    };
    const s = openStore(file);
    if (!s.ok) throw new Error(s.error.message);
    const { rawEvents } = writeHallStore(s.value, { tables: 2, rounds: 2, thinkMs: 30_000, maxPlies: 50, lastRoundPlayed: 0.5, seed: 5 });
    s.value.close();
    start();
    const rows = () => withSql(file, (db) => db.prepare('SELECT raw_event_id FROM clock_readings ORDER BY raw_event_id').pluck().all() as number[]);
    const all = rows();
    const readings = withSql(file, (db) => db.prepare("SELECT COUNT(*) FROM raw_events WHERE kind = 'clock'").pluck().get() as number);
    expect(readings).toBeGreaterThan(rawEvents * 0.8);
    // A few hundred rows a game, not one per second.
    expect(all.length).toBeGreaterThan(50);
    expect(all.length).toBeLessThan(readings / 5);
    // The last rows of the live games never reached the store (a crash between raw and derived writes).
    withSql(file, (db) => db.prepare('DELETE FROM clock_readings WHERE raw_event_id > ?').run(all[all.length - 30]!));
    expect(rows().length).toBe(all.length - 29);
    start();
    expect(rows()).toEqual(all);
  });
});
