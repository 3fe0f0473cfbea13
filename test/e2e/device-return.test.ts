import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, getJson, runCli, servingUrl, stopChildren, waitForOutput, type Child } from '../runtime/daemon-child.ts';
import { socatAvailable } from './socat.ts';

// A board on a device path of its own that comes back is read at once (the daemon watches the
// path), not after the back-off a board that stays away has built up (it doubles up to 30 s).
const socat = socatAvailable('device return');
const root = mkdtempSync(join(tmpdir(), 'boardcast-device-return-'));
const children: Child[] = [];
afterAll(async () => {
  await stopChildren(children);
  rmSync(root, { recursive: true, force: true });
});

function run(args: string[]): Child {
  const c = runCli(args);
  children.push(c);
  return c;
}

async function emulator(dir: string): Promise<{ child: Child; path: string }> {
  const emu = run(['emulate', '--boards', '1', '--dir', dir, '--serial-base', '12040']);
  const path = await waitForOutput(emu, (out) => (out.split('\n').includes('ready') ? /^board 1: (\S+)/m.exec(out)?.[1] : undefined));
  return { child: emu, path };
}

type Health = { tables: { table: number; state: string }[] };

describe.skipIf(!socat)('a board plugged back in', () => {
  it('is live again within moments of its device path coming back, whatever the back-off had grown to', async () => {
    const dir = join(root, 'hall');
    const first = await emulator(dir);
    const d = run(['serve', '--port', '0', '--data', join(root, 'data'), '--no-viewer', '--board', `1=${first.path}`]);
    const url = await servingUrl(d);
    const state = async (): Promise<string | undefined> => (await getJson<Health>(`${url}/health`)).tables.find((t) => t.table === 1)?.state;
    await eventually(async () => ((await state()) === 'live' ? true : undefined), 15_000, 'table 1 live');

    first.child.proc.kill('SIGTERM');
    await first.child.exit;
    await eventually(async () => ((await state()) === 'retrying' ? true : undefined), 15_000, 'table 1 retrying');
    // The board stays away for 16 s (the scenario, not a wait for something): by then the back-off
    // has doubled past 8 s (0.5 + 1 + 2 + 4 + 8 s of failed attempts).
    await new Promise((r) => setTimeout(r, 16_000));
    expect(await state()).toBe('retrying');

    const back = await emulator(dir);
    expect(back.path).toBe(first.path);
    const plugged = Date.now();
    await eventually(async () => ((await state()) === 'live' ? true : undefined), 10_000, 'table 1 live again');
    // Without the watch the next try would come at 31.5 s (the back-off's sixth), 15 s from now; a
    // loaded machine (a full CI run) needs a few seconds for the handshake and the board's dump.
    expect(Date.now() - plugged).toBeLessThan(8_000);
    // Said once while away, not at every retry.
    expect((d.stdout() + d.stderr()).split('\n').filter((l) => l.includes('board not reachable')).length).toBe(1);
    d.proc.kill('SIGTERM');
    expect(await d.exit).toBe(0);
  }, 90_000);
});
