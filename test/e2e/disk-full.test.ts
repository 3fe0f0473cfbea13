import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GameState } from '../../protocols/feed/model.ts';
import { eventually, getJson, runCli, servingUrl, stopChildren, type Child } from '../runtime/daemon-child.ts';

// A full disk mid-round, for real: the data directory on a small tmpfs, filled up while the boards
// play. The daemon keeps reading the boards, holds what it cannot commit, says so (503), broadcasts
// nothing it has not stored, and commits everything once space returns.
const root = mkdtempSync(join(tmpdir(), 'boardcast-disk-full-'));
const mnt = join(root, 'mnt');
const children: Child[] = [];
let mounted = false;
afterAll(async () => {
  await stopChildren(children);
  if (mounted) execFileSync('umount', [mnt]);
  rmSync(root, { recursive: true, force: true });
});

type Health = { ok: boolean; tables: { table: number; sinceLastEventMs: number | null }[]; store: { pendingRawEvents: number; lastError: string | null } };

/** Writes zeros into `file` until the filesystem is full. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(16 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
}

describe('a full disk mid-round', () => {
  it('holds the events, says so, broadcasts nothing unstored, and commits everything once space returns', async () => {
    mkdirSync(mnt);
    // A real small filesystem needs root (CI and the project's machines run as root).
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mnt]);
    mounted = true;
    const data = join(mnt, 'data');
    const serve = (): Child => {
      const c = runCli(['serve', '--port', '0', '--data', data, '--no-viewer', '--pace', '20']);
      children.push(c);
      return c;
    };
    const d = serve();
    const url = await servingUrl(d);
    const game = () => getJson<GameState>(`${url}/api/games/r1-t1`);
    await eventually(async () => ((await game()).ply >= 4 ? true : undefined), 20_000, 'four plies');

    const filler = join(mnt, 'filler');
    fill(filler);
    const full = await eventually(
      async () => {
        const res = await fetch(`${url}/health`);
        return res.status === 503 ? ((await res.json()) as Health) : undefined;
      },
      20_000,
      '/health to answer 503',
    );
    expect(full.ok).toBe(false);
    expect(full.store.lastError).toMatch(/full|disk/i);
    const frozenAt = (await game()).ply;
    // The boards are still read (their events keep coming) while nothing new is broadcast.
    const held = await eventually(
      async () => {
        const h = (await (await fetch(`${url}/health`)).json()) as Health;
        return h.store.pendingRawEvents >= 200 ? h : undefined;
      },
      30_000,
      'board events held while the disk is full',
    );
    expect(held.tables.every((t) => (t.sinceLastEventMs ?? Infinity) < 5_000)).toBe(true);
    expect((await game()).ply).toBe(frozenAt);

    rmSync(filler);
    const back = await eventually(
      async () => {
        const res = await fetch(`${url}/health`);
        const h = (await res.json()) as Health;
        return res.status === 200 && h.ok && h.store.pendingRawEvents < 50 ? h : undefined;
      },
      20_000,
      'the store writing again',
    );
    expect(back.store.lastError).toBeNull();
    const after = await eventually(
      async () => {
        const g = await game();
        return g.ply > frozenAt ? g : undefined;
      },
      20_000,
      'the game going on',
    );
    d.proc.kill('SIGTERM');
    expect(await d.exit).toBe(0);

    // Nothing half-written: the store is sound, and a restart rebuilds the same game.
    const doctor = runCli(['doctor', '--data', data]);
    children.push(doctor);
    expect(await doctor.exit).toBe(0);
    const again = serve();
    const url2 = await servingUrl(again);
    const rebuilt = await getJson<GameState>(`${url2}/api/games/r1-t1`);
    expect(rebuilt.moves.map((m) => m.san).slice(0, after.ply)).toEqual(after.moves.map((m) => m.san));
    expect(rebuilt.incidents).toEqual([]);
    again.proc.kill('SIGTERM');
    expect(await again.exit).toBe(0);
  }, 120_000);
});
