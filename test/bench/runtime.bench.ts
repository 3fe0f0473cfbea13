import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DerivedRows } from '../../daemon/runtime/derived-rows.ts';
import { hallRouter, newLiveSource, replayStore, storedTables } from '../../daemon/runtime/store-replay.ts';
import { openStore } from '../../daemon/store/store.ts';
import type { RawEventInput } from '../../daemon/store/types.ts';
import { loadConfig } from '../../daemon/tournament/config.ts';
import { randomGame } from '../../daemon/simulation/games/random.ts';
import { playNoisy, sessionEvents } from '../../daemon/simulation/noisy-player/player.ts';

// Start-up rebuild: the daemon replays every table's stored raw events through fresh engines
// before it serves. 200 tables, each with one game in progress (cut between ply 30 and the end of
// a "mixed"-noise game with a clock), stored as the runtime stores them; we time opening the
// store and the replay, as `serve` does it. Target: < 1 s.

const TABLES = 200;

export default async function runtimeBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'boardcast-bench-runtime-'));
  try {
    const file = join(dir, 'boardcast.sqlite');
    const setup = openStore(file);
    if (!setup.ok) throw new Error(setup.error.message);
    let total = 0;
    let plies = 0;
    for (let t = 1; t <= TABLES; t++) {
      const game = randomGame(t, { maxPlies: 120 });
      const script = playNoisy(game, { model: 'mixed', seed: t, clock: { baseMs: 5_400_000, incrementMs: 30_000 }, reversed: false });
      const events = sessionEvents(script);
      const cut = Math.floor(events.length * (0.4 + (0.5 * ((t * 37) % 100)) / 100));
      const batch: RawEventInput[] = events.slice(0, cut).map((e) => ({
        tableNumber: t,
        boardSerial: String(10000 + t),
        monoMs: e.at,
        wallMs: 1_783_152_000_000 + e.at,
        event: e,
        raw: Uint8Array.from([0x8e, 0, 5, 0, 0]),
      }));
      setup.value.appendRawEvents(batch);
      total += batch.length;
      plies += script.expected.sans.length;
    }
    setup.value.close();

    const cfg = loadConfig();
    if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
    const runs: number[] = [];
    const checks: number[] = [];
    let games = 0;
    let moves = 0;
    for (let run = 0; run < 3; run++) {
      const t0 = performance.now();
      const opened = openStore(file);
      if (!opened.ok) throw new Error(opened.error.message);
      const live = newLiveSource(cfg.value, opened.value);
      const router = hallRouter(cfg.value, live);
      replayStore(opened.value, router, storedTables(opened.value));
      runs.push(performance.now() - t0);
      // The derived-row check that follows the replay at start (the first run writes the rows).
      const t1 = performance.now();
      const derived = new DerivedRows(opened.value);
      for (const g of live.games(1) ?? []) derived.reconcile(live.game(g.id)!, 0);
      checks.push(performance.now() - t1);
      games = router.tracks().reduce((n, t) => n + t.games.length, 0);
      moves = (live.games(1) ?? []).reduce((n, g) => n + g.ply, 0);
      opened.value.close();
    }
    console.log(`stored: ${TABLES} tables, ${total} raw events (the full games have ${plies} plies in all)`);
    console.log(`rebuilt: ${games} live games, ${moves} moves`);
    console.log(`rebuild time (open store + replay), 3 runs: ${runs.map((r) => `${r.toFixed(0)} ms`).join(', ')}; best ${Math.min(...runs).toFixed(0)} ms (target < 1000 ms)`);
    console.log(`derived-row reconcile after it, 3 runs: ${checks.map((r) => `${r.toFixed(0)} ms`).join(', ')} (the first writes every game's rows, later ones only check)`);
    console.log(`per raw event: ${((Math.min(...runs) * 1000) / total).toFixed(1)} µs`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
