import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { restoreHall } from '../../daemon/app/rebuild.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { hallPairings } from '../../daemon/runtime/hall-pairings.ts';
import { hallRouter, newLiveSource, replayStore } from '../../daemon/runtime/store-replay.ts';
import { openStore, type Store } from '../../daemon/store/store.ts';
import { loadConfig, tournamentSetup, type BoardcastConfig } from '../../daemon/tournament/config.ts';
import { writeHallStore } from './hall-store.ts';
import { liveSnapshotWriter } from '../../daemon/app/live-snapshot-writer.ts';

// Restart time against rounds stored (issue 14). A 50-table open at a classical pace (the clock's
// 1 Hz readings as DGT clocks send them: several thousand raw events per game), each round's
// events committed in time order across the tables as a running daemon commits them, round after
// round: after each round is stored, one daemon start runs on it (writing the checkpoints and
// snapshots a running daemon writes at each game boundary), then a restart is timed the way
// `serve` does it before it answers: open the store, rebuild the hall, write what a crash left
// out. The last line is the same store replayed from every table's first event (the old start).
// RESTART_TABLES and RESTART_ROUNDS scale it (defaults 50 and 9). Then the Olympiad-sized hall
// (RESTART_LARGE_TABLES, default 1000; 0 skips it): see `large`.

const TABLES = Number(process.env.RESTART_TABLES ?? 50);
const ROUNDS = Number(process.env.RESTART_ROUNDS ?? 9);
const LARGE_TABLES = Number(process.env.RESTART_LARGE_TABLES ?? 1000);
const quiet = createLogger({ write: () => {} });

function open(file: string): Store {
  const r = openStore(file);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/**
 * A daemon start on the store, as `serve` does it before serving; returns its figures. `live`:
 * serve the live games from their live snapshots (then `catchUpMs` is the background catch-up of
 * their tables that follows), and write the live snapshots at the end as a clean stop does.
 */
function start(
  file: string,
  config: BoardcastConfig,
  tables: number[],
  live = false,
): { ms: number; events: number; games: number; restored: number; deferred: number; catchUpMs: number; catchUpEvents: number } {
  const t0 = performance.now();
  const store = open(file);
  const tournamentId = store.upsertTournament(tournamentSetup(config));
  const { rebuilt, catchUp, router } = restoreHall(store, config, { tables, tournamentId, pairings: hallPairings(store, config, null), log: quiet, serveLiveSnapshots: live });
  const ms = performance.now() - t0;
  const t1 = performance.now();
  for (const t of tables) catchUp.settle(t);
  const catchUpMs = performance.now() - t1;
  if (live) liveSnapshotWriter(store, router, quiet)();
  store.close();
  return { ms, events: rebuilt.events, games: rebuilt.games, restored: rebuilt.restoredGames, deferred: rebuilt.deferred.length, catchUpMs, catchUpEvents: catchUp.state().events };
}

export default async function restartBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'boardcast-bench-restart-'));
  try {
    const file = join(dir, 'boardcast.sqlite');
    const cfg = loadConfig();
    if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
    const config: BoardcastConfig = { ...cfg.value, emulate: null, rounds: { ...cfg.value.rounds, start: 'board', count: ROUNDS } };
    const tables = Array.from({ length: TABLES }, (_, i) => i + 1);
    let stored = 0;
    console.log(`${TABLES} tables, classical pace with 1 Hz clock readings; restart = open store + rebuild + derived-row check (best of 2)`);
    console.log('rounds stored | raw events stored | store MB | events replayed | games (from snapshots) | restart ms');
    for (let round = 1; round <= ROUNDS; round++) {
      const setup = open(file);
      stored += writeHallStore(setup, { tables: TABLES, firstRound: round, rounds: round, seed: 3, interleaved: true }).rawEvents;
      setup.close();
      start(file, config, tables); // the daemon that ran during the round
      const runs = [start(file, config, tables), start(file, config, tables)];
      const best = runs.reduce((a, b) => (a.ms <= b.ms ? a : b));
      const mb = (statSync(file).size + walSize(file)) / 1e6;
      console.log(`${round} | ${stored} | ${mb.toFixed(0)} | ${best.events} | ${best.games} (${best.restored}) | ${best.ms.toFixed(0)}`);
    }
    const t0 = performance.now();
    const store = open(file);
    const live = newLiveSource(config, store);
    const events = replayStore(store, hallRouter(config, live, hallPairings(store, config, null)), tables);
    store.close();
    console.log(`the same store replayed from every table's first event (the start before checkpoints): ${events} events, ${(performance.now() - t0).toFixed(0)} ms`);
    if (LARGE_TABLES > 0) large(join(dir, 'large.sqlite'), config);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * An Olympiad-sized hall: LARGE_TABLES tables (default 1,000) with 10 finished rounds (quick
 * games, their snapshots are what a restart loads) and the 11th round live, every game half-way
 * at a classical pace (its raw events are what a restart replays).
 */
function large(file: string, base: BoardcastConfig): void {
  const config: BoardcastConfig = { ...base, rounds: { ...base.rounds, count: 11 } };
  const tables = Array.from({ length: LARGE_TABLES }, (_, i) => i + 1);
  const setup = open(file);
  let stored = writeHallStore(setup, { tables: LARGE_TABLES, rounds: 10, thinkMs: 0, maxPlies: 80, seed: 9, interleaved: true }).rawEvents;
  stored += writeHallStore(setup, { tables: LARGE_TABLES, firstRound: 11, rounds: 11, lastRoundPlayed: 0.5, seed: 9, interleaved: true }).rawEvents;
  setup.close();
  // The first start replays the whole store (writing the checkpoints and snapshots) and stops
  // cleanly (writing the live snapshots).
  const first = start(file, config, tables, true);
  const again = start(file, config, tables);
  const served = [start(file, config, tables, true), start(file, config, tables, true)].reduce((a, b) => (a.ms <= b.ms ? a : b));
  const mb = (statSync(file).size + walSize(file)) / 1e6;
  console.log(
    `${LARGE_TABLES} tables, 10 finished rounds and the 11th live (half-way, classical pace): ${stored} raw events, ${mb.toFixed(0)} MB; ` +
      `first start (whole replay, writes the checkpoints) ${first.ms.toFixed(0)} ms; restart replaying the live games before serving ${again.ms.toFixed(0)} ms: ${again.restored} games from snapshots, ${again.events} raw events of the live games replayed, ${again.games} games in all`,
  );
  console.log(
    `restart serving the live games from their live snapshots (best of 2): ${served.ms.toFixed(0)} ms to serve, ${served.deferred} tables served from live snapshots, ${served.restored + served.deferred} games from snapshots, ${served.events} raw events replayed before serving; ` +
      `then the background catch-up of those tables: ${served.catchUpMs.toFixed(0)} ms, ${served.catchUpEvents} raw events`,
  );
}

function walSize(file: string): number {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}
