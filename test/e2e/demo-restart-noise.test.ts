import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../daemon/store/store.ts';
import { demoSourceGame, resolveGameSource } from '../../daemon/runtime/demo-games.ts';
import { Prng } from '../../daemon/simulation/games/prng.ts';
import { runCli, servingUrl, stopChildren, type Child } from '../runtime/daemon-child.ts';
import { withSql } from '../store/helpers.ts';

const root = mkdtempSync(join(tmpdir(), 'boardcast-demo-restarts-'));
const children: Child[] = [];
afterAll(async () => {
  await stopChildren(children);
  rmSync(root, { recursive: true, force: true });
});

const TABLES = 8;
const RESTARTS = 8;

/** Which game of the table's score list a stored game plays: the one whose moves it follows longest. */
function sourceIndex(sans: readonly string[], table: number, candidates: number, source: Exclude<ReturnType<typeof resolveGameSource>, string>): number {
  let best = -1;
  let bestLen = 0;
  for (let k = 0; k < candidates; k++) {
    const want = demoSourceGame(source, TABLES, table, k).sans;
    let n = 0;
    while (n < sans.length && n < want.length && sans[n] === want[n]) n++;
    if (n > bestLen) [best, bestLen] = [k, n];
  }
  return best;
}

// Issue 9, item 9: restarting the demo hall under noise 'mixed' opened a second game replaying the
// running one from move 1 (4 splits in 10 SIGKILL restarts). The hall is killed (SIGKILL) or
// stopped (SIGTERM) at seeded random moments and started again each time; afterwards every table's
// games must be its score list in order, each game once.
describe('the demo hall under mixed noise, restarted at random moments', () => {
  it(`${RESTARTS} restarts (SIGKILL and SIGTERM): one game per game on every table`, async () => {
    const config = join(root, 'hall.json');
    const dataDir = join(root, 'data');
    writeFileSync(config, JSON.stringify({ event: { name: 'restarts' }, rounds: { count: 1 }, timeControl: '90+30', dataDir, emulate: { count: TABLES, games: 'random', seed: 1, noise: 'mixed' } }));
    const rng = new Prng(9);
    const signals: string[] = [];
    for (let k = 0; k <= RESTARTS; k++) {
      const child = runCli(['serve', '--config', config, '--port', '0', '--pace', '10', '--no-viewer']);
      children.push(child);
      await servingUrl(child);
      await new Promise((r) => setTimeout(r, rng.int(2_000, 7_000)));
      const signal = k === RESTARTS || rng.chance(0.3) ? 'SIGTERM' : 'SIGKILL';
      signals.push(signal);
      child.proc.kill(signal);
      await child.exit;
    }
    expect(signals.filter((s) => s === 'SIGKILL').length).toBeGreaterThan(0);
    expect(signals.slice(0, -1).filter((s) => s === 'SIGTERM').length).toBeGreaterThan(0);

    const source = resolveGameSource('random', 1);
    if (typeof source === 'string') throw new Error(source);
    const store = openStore(join(dataDir, 'boardcast.sqlite'));
    if (!store.ok) throw new Error(store.error.message);
    const rows = withSql(store.value.file, (db) => db.prepare('SELECT id, table_number AS t FROM games ORDER BY table_number, id').all()) as { id: number; t: number }[];
    const played = new Map<number, number[]>();
    for (const r of rows) {
      const sans = store.value.moves(r.id).map((m) => m.san);
      played.set(r.t, [...(played.get(r.t) ?? []), sans.length < 2 ? -1 : sourceIndex(sans, r.t, rows.length + 2, source)]);
    }
    store.value.close();
    expect([...played.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: TABLES }, (_, i) => i + 1));
    for (const [table, games] of played) {
      // Game k of a table plays its k-th score: never the same score twice (a split), never out of order.
      const scored = games.filter((k) => k >= 0);
      expect(scored, `table ${table}: games follow scores ${JSON.stringify(games)}`).toEqual(scored.map((_, i) => i));
    }
    // Every start after the first began from checkpoints and snapshots: a whole replay of the store
    // gives what they hold, SIGKILLs and all.
    const doctor = runCli(['doctor', '--config', config, '--replay', '--json']);
    expect(await doctor.exit, doctor.stdout() + doctor.stderr()).toBe(0);
    const report = JSON.parse(doctor.stdout()) as { replay: { games: number; differences: unknown[] } };
    expect(report.replay.differences).toEqual([]);
  }, 170_000);
});
