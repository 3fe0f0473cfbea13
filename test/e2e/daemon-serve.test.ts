import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GameSummary, TournamentInfo } from '../../daemon/server/live-source.ts';
import { eventually, getJson, runCli, servingUrl, type Child } from '../runtime/daemon-child.ts';

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
