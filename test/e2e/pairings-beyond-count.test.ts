import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../daemon/store/store.ts';
import type { RoundInfo } from '../../protocols/feed/model.ts';
import { eventually, getJson, runCli, servingUrl, stopChildren, type Child } from '../runtime/daemon-child.ts';

/**
 * Issue 10, item 8: `rounds.count` 1 while the boards play round 3 (the emulated hall goes on to
 * the next round when its games end) refused `import-pairings --round 2`. Now round 2 gets its
 * place in the store with the games its boards played, and its players.
 */

const root = mkdtempSync(join(tmpdir(), 'boardcast-beyond-count-e2e-'));
const children: Child[] = [];
afterAll(async () => {
  await stopChildren(children);
  rmSync(root, { recursive: true, force: true });
});

const GAMES = ['1. f3 e5 2. g4 Qh4# 0-1', '1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0'];
const pgnFile = GAMES.map((moves, i) => `[Event "Beyond"]\n[White "W${i}"]\n[Black "B${i}"]\n[Result "${moves.split(' ').at(-1)}"]\n\n${moves}\n`).join('\n');

describe('pairings for a round past rounds.count', () => {
  it('imports round 2 while the boards play round 3, the games of round 2 get their players', async () => {
    writeFileSync(join(root, 'games.pgn'), pgnFile);
    const config = join(root, 'hall.json');
    writeFileSync(
      config,
      JSON.stringify({
        event: { name: 'Beyond Count' },
        rounds: { count: 1 },
        timeControl: '15+10',
        httpPort: 0,
        dataDir: './data',
        emulate: { count: 2, games: 'games.pgn', seed: 2 },
      }),
    );
    const daemon = runCli(['serve', '--config', config, '--pace', '40', '--no-viewer']);
    children.push(daemon);
    const url = await servingUrl(daemon);
    await eventually(async () => ((await getJson<RoundInfo[]>(`${url}/api/rounds`)).some((r) => r.round >= 3) ? true : undefined), 60_000, 'the boards at round 3');

    const csv = join(root, 'round2.csv');
    writeFileSync(csv, 'board,white,black,white_fed,white_rating,black_fed,black_rating\n1,"Petrov, Ivan","Kovač, Ana",SRB,2390,SVK,2288\n2,"Zajc, Tina","Oblak, Jan",SLO,2101,SLO,2166\n');
    const imported = runCli(['import-pairings', '--config', config, '--round', '2', csv]);
    children.push(imported);
    expect(await imported.exit, imported.stderr()).toBe(0);
    expect(imported.stdout()).toContain('round 2: 2 games imported');

    daemon.proc.kill('SIGTERM');
    expect(await daemon.exit).toBe(0);
    const store = openStore(join(root, 'data', 'boardcast.sqlite'));
    if (!store.ok) throw new Error(store.error.message);
    const s = store.value;
    const t = s.tournamentByName('Beyond Count')!;
    const rows = s.gamesOfRound(s.round(t.id, 2)!.id);
    expect(rows.map((g) => [g.table, g.white?.name, g.black?.name])).toEqual([
      [1, 'Petrov, Ivan', 'Kovač, Ana'],
      [2, 'Zajc, Tina', 'Oblak, Jan'],
    ]);
    s.close();

    // A round the boards have not reached is still refused, saying how far they are.
    const ahead = runCli(['import-pairings', '--config', config, '--round', '40', csv]);
    children.push(ahead);
    expect(await ahead.exit).toBe(1);
    expect(ahead.stderr()).toMatch(/round 40: Beyond Count has 1 rounds \(rounds\.count\) and the boards have played up to round \d+/);
  }, 120_000);
});
