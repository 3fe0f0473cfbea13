import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GameState } from '../../protocols/feed/model.ts';
import { eventually, getJson, runCli, servingUrl, stopChildren, type Child } from '../runtime/daemon-child.ts';

// A store that is damaged, emptied or gone is refused by `serve` and never written; `doctor` says
// what is wrong without writing either; `--new` is the explicit way to start afresh.
const root = mkdtempSync(join(tmpdir(), 'boardcast-store-guard-'));
const children: Child[] = [];
afterAll(async () => {
  await stopChildren(children);
  rmSync(root, { recursive: true, force: true });
});

function cli(args: string[]): Child {
  const c = runCli(args);
  children.push(c);
  return c;
}

async function recordSomeGame(data: string): Promise<void> {
  const d = cli(['serve', '--port', '0', '--data', data, '--no-viewer', '--pace', '30']);
  const url = await servingUrl(d);
  await eventually(async () => ((await getJson<GameState>(`${url}/api/games/r1-t1`)).ply >= 4 ? true : undefined), 20_000, 'four plies');
  d.proc.kill('SIGTERM');
  expect(await d.exit).toBe(0);
}

describe('serve and doctor on a damaged store', () => {
  it('doctor reports a sound store and what it holds; a damaged one is refused by both, byte for byte untouched', async () => {
    const data = join(root, 'damaged');
    await recordSomeGame(data);
    const file = join(data, 'boardcast.sqlite');
    const ok = cli(['doctor', '--data', data, '--json']);
    expect(await ok.exit).toBe(0);
    const found = JSON.parse(ok.stdout()) as { ok: boolean; rawEvents: number; games: { total: number } };
    expect(found.ok).toBe(true);
    expect(found.rawEvents).toBeGreaterThan(10);
    expect(found.games.total).toBeGreaterThan(0);

    const bytes = readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    bytes.fill(0x5a, pageSize * 3, pageSize * 4);
    writeFileSync(file, bytes);
    const refused = cli(['serve', '--port', '0', '--data', data, '--no-viewer']);
    expect(await refused.exit).toBe(1);
    expect(refused.stderr()).toMatch(/damage.*left untouched.*boardcast restore/s);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);

    const sick = cli(['doctor', '--data', data]);
    expect(await sick.exit).toBe(1);
    expect(sick.stdout()).toMatch(/damage/);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  }, 60_000);

  it('an emptied store is refused unless --new starts a new event', async () => {
    const data = join(root, 'emptied');
    await recordSomeGame(data);
    const file = join(data, 'boardcast.sqlite');
    truncateSync(file, 0);
    const refused = cli(['serve', '--port', '0', '--data', data, '--no-viewer']);
    expect(await refused.exit).toBe(1);
    expect(refused.stderr()).toContain('the file is empty (0 bytes)');
    expect(readFileSync(file).length).toBe(0);
    const fresh = cli(['serve', '--port', '0', '--data', data, '--no-viewer', '--new']);
    await servingUrl(fresh);
    fresh.proc.kill('SIGTERM');
    expect(await fresh.exit).toBe(0);
    expect(readFileSync(file).length).toBeGreaterThan(0);
  }, 60_000);
});
