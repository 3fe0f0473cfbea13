import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GameState, GameSummary, TournamentInfo } from '../../protocols/feed/model.ts';
import { openStore } from '../../daemon/store/store.ts';
import { eventually, getJson, runCli, servingUrl, type Child } from '../runtime/daemon-child.ts';
import { withSql } from '../store/helpers.ts';

const root = mkdtempSync(join(tmpdir(), 'boardcast-serve-'));
const children: Child[] = [];
afterAll(() => {
  for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

describe('boardcast serve with the embedded default', () => {
  it('serves /health and /api/tournament, moves appear, and SIGTERM shuts down cleanly with exit 0', async () => {
    const data = join(root, 'data');
    const child = runCli(['serve', '--port', '0', '--data', data, '--pace', '30', '--no-viewer']);
    children.push(child);
    const url = await servingUrl(child);
    const health = await eventually(
      async () => {
        const h = await getJson<{ ok: boolean; boardsLive: number; tables: { table: number; state: string; board: string }[] }>(`${url}/health`);
        return h.boardsLive === 8 ? h : undefined;
      },
      20_000,
      'all 8 emulated boards live in /health',
    );
    expect(health.ok).toBe(true);
    expect(health.tables.map((t) => t.table)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(health.tables.every((t) => t.state === 'live' && t.board.startsWith('emulated:'))).toBe(true);
    const t = await getJson<TournamentInfo>(`${url}/api/tournament`);
    expect(t.name).toBe('boardcast demo');
    expect(t.timeControl).toBe('5400+30');
    // Eight emulated tables; every one shows moves within a bounded time.
    const games = await eventually(
      async () => {
        const g = await getJson<GameSummary[]>(`${url}/api/rounds/1/games`);
        return g.length === 8 && g.every((x) => x.ply >= 2) ? g : undefined;
      },
      20_000,
      'moves on all 8 tables',
    );
    expect(games.map((g) => g.table)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);

    // The polled bridges on the same port: round PGN and LiveChess Cloud-style JSON.
    const pgn = await (await fetch(`${url}/relay/round-1.pgn`)).text();
    expect(pgn.match(/^\[Event "boardcast demo"\]/gm)).toHaveLength(8);
    const lcc = await fetch(`${url}/lcc/tournament.json`);
    expect(lcc.status).toBe(200);
    expect((await fetch(`${url}/api/nothing`)).status).toBe(404);

    // A second daemon on the same data directory is refused at start, naming the first.
    const second = runCli(['serve', '--port', '0', '--data', data, '--no-viewer']);
    children.push(second);
    expect(await second.exit).toBe(1);
    expect(second.stderr()).toContain(`pid ${child.proc.pid}`);
    child.proc.kill('SIGTERM');
    expect(await child.exit).toBe(0);
    expect(child.stdout()).toContain('"message":"stopped"');
  }, 60_000);
});

describe('restart of the embedded demo', () => {
  it('after SIGKILL, a restart (at another pace) rebuilds every game and the boards carry on: no move lost, none twice', async () => {
    const data = join(root, 'restart');
    const first = runCli(['serve', '--port', '0', '--data', data, '--pace', '30', '--no-viewer']);
    children.push(first);
    let url = await servingUrl(first);
    await eventually(async () => ((await getJson<GameSummary[]>(`${url}/api/rounds/1/games`)).every((g) => g.ply >= 6) ? true : undefined), 20_000, 'six plies on every table');
    first.proc.kill('SIGKILL');
    await first.exit;
    const store = openStore(join(data, 'boardcast.sqlite'));
    if (!store.ok) throw new Error(store.error.message);
    const before = new Map<number, string[]>();
    for (const row of withSql(store.value.file, (db) => db.prepare('SELECT id, table_number FROM games WHERE round_id IS NOT NULL').all()) as { id: number; table_number: number }[]) {
      before.set(
        row.table_number,
        store.value.moves(row.id).map((m) => m.uci),
      );
    }
    store.value.close();
    expect(before.size).toBe(8);

    const second = runCli(['serve', '--port', '0', '--data', data, '--pace', '10', '--no-viewer']);
    children.push(second);
    url = await servingUrl(second);
    const after = await eventually(
      async () => {
        const games = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((t) => getJson<GameState>(`${url}/api/games/r1-t${t}`)));
        return games.every((g) => g.ply >= (before.get(g.table)?.length ?? 0) + 2 || g.status === 'finished') ? games : undefined;
      },
      30_000,
      'two more plies on every table after the restart',
    );
    for (const g of after) {
      const prior = before.get(g.table)!;
      expect(
        g.moves.slice(0, prior.length).map((m) => m.uci),
        `table ${g.table}`,
      ).toEqual(prior);
      expect(g.incidents.filter((i) => i.kind === 'illegal-move')).toEqual([]);
    }
    second.proc.kill('SIGTERM');
    expect(await second.exit).toBe(0);
    const again = openStore(join(data, 'boardcast.sqlite'));
    if (!again.ok) throw new Error(again.error.message);
    expect(withSql(again.value.file, (db) => db.prepare('SELECT COUNT(*) FROM moves WHERE superseded_by IS NOT NULL').pluck().get())).toBe(0);
    expect(withSql(again.value.file, (db) => db.prepare('SELECT COUNT(*) FROM games WHERE round_id IS NOT NULL').pluck().get())).toBe(8);
    again.value.close();
  }, 90_000);
});
