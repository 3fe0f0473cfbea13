import { existsSync, mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GameState } from '../../protocols/feed/model.ts';
import { eventually, getJson, runCli, servingUrl, stopChildren, type Child } from '../runtime/daemon-child.ts';

// A round close takes an online backup; a store lost afterwards comes back with `boardcast restore`,
// which checks the backup, refuses while a daemon runs, and keeps the store it replaces.
const root = mkdtempSync(join(tmpdir(), 'boardcast-backup-'));
const children: Child[] = [];
const TOKEN = 'backup-test-token';
afterAll(async () => {
  await stopChildren(children);
  rmSync(root, { recursive: true, force: true });
});

function cli(args: string[]): Child {
  const c = runCli(args, { BOARDCAST_ARBITER_TOKEN: TOKEN });
  children.push(c);
  return c;
}

describe('backups and restore', () => {
  it('backs up at round close, and restores a checked backup once the daemon is stopped', async () => {
    const data = join(root, 'data');
    const config = join(root, 'hall.json');
    writeFileSync(
      config,
      JSON.stringify({ event: { name: 'Backup Open' }, rounds: { count: 2 }, timeControl: '90+30', httpPort: 0, dataDir: data, backup: { everyMinutes: 0, keep: 3 }, emulate: { count: 1, seed: 3 } }),
    );
    const d = cli(['serve', '--config', config, '--no-viewer', '--pace', '30']);
    const url = await servingUrl(d);
    await eventually(async () => ((await getJson<GameState>(`${url}/api/games/r1-t1`)).ply >= 4 ? true : undefined), 20_000, 'four plies');
    const closed = await fetch(`${url}/api/arbiter/rounds/1/close`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: '{"force":true}' });
    expect(closed.status).toBe(200);
    const backup = await eventually(
      async () => (await getJson<{ store: { backup: { last: { file: string } | null } } }>(`${url}/health`)).store.backup.last ?? undefined,
      20_000,
      'the backup taken at round close',
    );
    expect(readdirSync(join(data, 'backups'))).toContain(backup.file);
    const kept = (await getJson<GameState>(`${url}/api/games/r1-t1`)).moves.map((m) => m.san);

    // While the daemon runs, restore is refused and changes nothing.
    const busy = cli(['restore', '--data', data, '--latest']);
    expect(await busy.exit).toBe(1);
    expect(busy.stderr()).toContain('in use by another boardcast');
    d.proc.kill('SIGTERM');
    expect(await d.exit).toBe(0);

    // The store is lost; serve refuses it; restore brings the backup back and keeps what it replaced.
    truncateSync(join(data, 'boardcast.sqlite'), 0);
    const refused = cli(['serve', '--config', config, '--no-viewer']);
    expect(await refused.exit).toBe(1);
    const listed = cli(['restore', '--data', data, '--list']);
    expect(await listed.exit).toBe(0);
    expect(listed.stdout()).toContain(backup.file);
    const restored = cli(['restore', '--data', data, '--latest']);
    expect(await restored.exit).toBe(0);
    expect(restored.stdout()).toContain(`restored ${backup.file}`);
    expect(readdirSync(data).some((n) => n.startsWith('boardcast.sqlite.replaced-'))).toBe(true);

    const again = cli(['serve', '--config', config, '--no-viewer', '--pace', '30']);
    const url2 = await servingUrl(again);
    // The backup holds the game as it stood at the round close; the board (an emulated one, on the
    // same script) plays on from there, so the game comes back with the same moves as before.
    const game = await eventually(
      async () => {
        const g = await getJson<GameState>(`${url2}/api/games/r1-t1`);
        return g.moves.length >= kept.length ? g : undefined;
      },
      30_000,
      'the restored game back to where it was',
    );
    expect(game.moves.map((m) => m.san).slice(0, kept.length)).toEqual(kept);
    again.proc.kill('SIGTERM');
    expect(await again.exit).toBe(0);
  }, 90_000);

  it('refuses a damaged backup and changes nothing', async () => {
    const data = join(root, 'bad');
    const bad = join(root, 'bad-backup.sqlite');
    writeFileSync(bad, 'SQLite format 3\u0000 this is not a database');
    const r = cli(['restore', '--data', data, '--from', bad]);
    expect(await r.exit).toBe(1);
    expect(r.stderr()).toContain('is not sound, nothing was changed');
    expect(existsSync(join(data, 'boardcast.sqlite'))).toBe(false);
  });
});
