import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GameState } from '../../protocols/feed/model.ts';
import { openStore } from '../../daemon/store/store.ts';
import { eventually, getJson, runCli, servingUrl, stopChildren, type Child } from '../runtime/daemon-child.ts';

const root = mkdtempSync(join(tmpdir(), 'boardcast-pairings-e2e-'));
const children: Child[] = [];
afterAll(async () => {
  await stopChildren(children);
  rmSync(root, { recursive: true, force: true });
});

describe('pairings imported while the daemon runs', () => {
  it("reach the games already on the boards: players in the API and the PGN, the store's game rows linked", async () => {
    const config = join(root, 'hall.json');
    writeFileSync(
      config,
      JSON.stringify({
        event: { name: 'Pairings e2e' },
        rounds: { count: 3 },
        timeControl: '15+10',
        rules: { category: 'rapid' },
        httpPort: 0,
        dataDir: './data',
        emulate: { count: 2, games: 'random', seed: 5 },
      }),
    );
    const daemon = runCli(['serve', '--config', config, '--pace', '20', '--no-viewer']);
    children.push(daemon);
    const url = await servingUrl(daemon);
    await eventually(async () => ((await getJson<GameState>(`${url}/api/games/r1-t2`)).ply >= 2 ? true : undefined), 20_000, 'moves on table 2');

    const csv = join(root, 'round1.csv');
    writeFileSync(csv, 'board,white,black,white_fed,white_rating,black_fed,black_rating\n1,"Petrov, Ivan","Kovač, Ana",SRB,2390,SVK,2288\n2,"Zajc, Tina","Oblak, Jan",SLO,2101,SLO,2166\n');
    const imported = runCli(['import-pairings', '--config', config, '--round', '1', csv]);
    children.push(imported);
    expect(await imported.exit, imported.stderr()).toBe(0);

    const game = await eventually(
      async () => {
        const g = await getJson<GameState>(`${url}/api/games/r1-t2`);
        return g.white.name === 'Zajc, Tina' ? g : undefined;
      },
      15_000,
      'the imported players on table 2',
    );
    expect(game.black).toMatchObject({ name: 'Oblak, Jan', federation: 'SLO', rating: 2166 });
    expect(game.ply).toBeGreaterThanOrEqual(2);
    const pgn = await (await fetch(`${url}/api/games/r1-t1/pgn`)).text();
    expect(pgn).toContain('[White "Petrov, Ivan"]');
    expect(pgn).toContain('[WhiteFed "SRB"]');

    daemon.proc.kill('SIGTERM');
    expect(await daemon.exit).toBe(0);
    const store = openStore(join(root, 'data', 'boardcast.sqlite'));
    if (!store.ok) throw new Error(store.error.message);
    const s = store.value;
    const rows = s.gamesOfRound(s.round(s.tournamentByName('Pairings e2e')!.id, 1)!.id);
    expect(rows.map((g) => [g.table, g.white?.name, g.black?.name])).toEqual([
      [1, 'Petrov, Ivan', 'Kovač, Ana'],
      [2, 'Zajc, Tina', 'Oblak, Jan'],
    ]);
    s.close();
  }, 60_000);
});
