import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { restoreHall } from '../../daemon/app/rebuild.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { gameActionHandler } from '../../daemon/runtime/arbiter-actions.ts';
import { hallPairings } from '../../daemon/runtime/hall-pairings.ts';
import type { MemoryLiveSource } from '../../daemon/runtime/memory-live-source.ts';
import { hallRouter, newLiveSource, replayStore } from '../../daemon/runtime/store-replay.ts';
import { openStore, type Store } from '../../daemon/store/store.ts';
import { loadConfig, tournamentSetup, type BoardcastConfig } from '../../daemon/tournament/config.ts';
import { writeHallStore } from '../bench/hall-store.ts';
import { withSql } from '../store/helpers.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const TABLES = [1, 2, 3];

function setup(): { file: string; config: BoardcastConfig } {
  const dir = mkdtempSync(join(tmpdir(), 'boardcast-checkpoints-'));
  dirs.push(dir);
  const file = join(dir, 'boardcast.sqlite');
  const cfg = loadConfig();
  if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
  const config: BoardcastConfig = { ...cfg.value, emulate: null, rounds: { ...cfg.value.rounds, start: 'board', count: 3 } };
  const store = open(file);
  // Three tables, three rounds each, the last round's games cut half-way (still live).
  writeHallStore(store, { tables: TABLES.length, rounds: 3, thinkMs: 4000, maxPlies: 60, lastRoundPlayed: 0.5, seed: 7 });
  store.close();
  return { file, config };
}

function open(file: string): Store {
  const r = openStore(file);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const warnings: string[] = [];
const log = createLogger({ write: (level, line) => (level === 'warn' || level === 'error' ? warnings.push(line) : undefined) });

/** What `serve` does at start with the store: rebuild the hall and write what a crash left out. */
function start(file: string, config: BoardcastConfig) {
  const store = open(file);
  const tournamentId = store.upsertTournament(tournamentSetup(config));
  const hall = restoreHall(store, config, { tables: TABLES, tournamentId, pairings: hallPairings(store, config, null), log });
  return { store, tournamentId, ...hall };
}

/** Every game of the hall as the read model holds it. */
function games(live: MemoryLiveSource): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of live.rounds()) for (const g of live.games(r.round) ?? []) out[g.id] = live.game(g.id);
  return out;
}

/** The hall replayed from every table's first event (what a restart must equal). */
function wholeReplay(file: string, config: BoardcastConfig): { games: Record<string, unknown>; events: number } {
  const store = open(file);
  const live = newLiveSource(config, store);
  const events = replayStore(store, hallRouter(config, live, hallPairings(store, config, null)), TABLES);
  store.close();
  return { games: games(live), events };
}

describe('restart from game boundaries (issue 14)', () => {
  it('puts finished games back from their snapshots and replays only the live ones, equal to a whole replay', () => {
    const { file, config } = setup();
    const first = start(file, config);
    expect(first.rebuilt.fromCheckpoint).toBe(0);
    const whole = wholeReplay(file, config);
    expect(games(first.live)).toEqual(whole.games);
    first.store.close();

    const second = start(file, config);
    expect(second.rebuilt.fromCheckpoint).toBe(TABLES.length);
    expect(second.rebuilt.restoredGames).toBe(TABLES.length * 2);
    // Only the third round's games were replayed: far fewer events than the whole store.
    expect(second.rebuilt.events).toBeLessThan(whole.events / 3);
    expect(Object.keys(games(second.live)).sort()).toEqual(Object.keys(whole.games).sort());
    expect(games(second.live)).toEqual(whole.games);
    second.store.close();
  });

  it('rebuilds a restored game from the store when the arbiter decides on it, and the next start includes the decision', () => {
    const { file, config } = setup();
    start(file, config).store.close();
    const hall = start(file, config);
    expect(hall.live.hasEngine('r1-t2')).toBe(false);
    const decide = gameActionHandler({ store: hall.store, tournamentId: hall.tournamentId, router: hall.router, reconcile: hall.derived.reconcile });
    const decided = decide('r1-t2', { kind: 'result', result: '0-1', reason: 'test: a result corrected after the round', arbiter: 'A. Arbiter' });
    expect(decided.ok).toBe(true);
    expect(hall.live.hasEngine('r1-t2')).toBe(true);
    expect(hall.live.game('r1-t2')?.result).toBe('0-1');
    const after = games(hall.live);
    hall.store.close();

    expect(after).toEqual(wholeReplay(file, config).games);
    const next = start(file, config);
    // The snapshot was written again with the decision: the table still starts from its checkpoint.
    expect(next.rebuilt.fromCheckpoint).toBe(TABLES.length);
    expect(next.live.game('r1-t2')?.result).toBe('0-1');
    expect(games(next.live)).toEqual(after);
    next.store.close();
  });

  it('replays a table whole when a snapshot was altered, and says so', () => {
    const { file, config } = setup();
    start(file, config).store.close();
    const whole = wholeReplay(file, config);
    withSql(file, (db) => db.prepare(`UPDATE game_snapshots SET state_json = replace(state_json, '"result":"', '"result":"1-0') WHERE live_id = 'r2-t3'`).run());
    warnings.length = 0;
    const hall = start(file, config);
    expect(hall.rebuilt.fromCheckpoint).toBe(TABLES.length - 1);
    expect(warnings.join('\n')).toMatch(/r2-t3 does not match its digest/);
    expect(games(hall.live)).toEqual(whole.games);
    hall.store.close();
  });
});
