import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GameState } from '../../protocols/feed/model.ts';
import { randomGame } from '../../daemon/simulation/games/random.ts';
import { playNoisy } from '../../daemon/simulation/noisy-player/player.ts';
import { eventually, getJson, runCli, servingUrl, stopChildren, waitForOutput, type Child } from '../runtime/daemon-child.ts';
import { socatAvailable } from './socat.ts';

const socat = socatAvailable('daemon-serial');

const root = mkdtempSync(join(tmpdir(), 'boardcast-serial-'));
const children: Child[] = [];
afterAll(async () => {
  await stopChildren(children);
  rmSync(root, { recursive: true, force: true });
});

interface HealthTable {
  table: number;
  board: string;
  serial: string | null;
  device: string | null;
  state: string;
}

/** A clean game of a few plies, starting once the daemon had time to find and connect the boards. */
function scriptFile(name: string, seed: number): { file: string; sans: string[] } {
  const s = playNoisy(randomGame(seed, { maxPlies: 6 }), { model: 'clean', seed, clock: { baseMs: 600_000, incrementMs: 0 }, reversed: false });
  const file = join(root, name);
  writeFileSync(file, JSON.stringify({ board: s.board, clock: s.clock, actions: s.actions.map((a) => ({ ...a, at: Math.round(7000 + a.at / 4) })) }));
  return { file, sans: s.expected.sans };
}

async function emulate(dir: string, boards: number, serialBase: number, script: string): Promise<string[]> {
  return (await emulator(dir, boards, serialBase, script)).paths;
}

async function emulator(dir: string, boards: number, serialBase: number, script: string): Promise<{ child: Child; paths: string[] }> {
  const emu = runCli(['emulate', '--boards', String(boards), '--dir', dir, '--serial-base', String(serialBase), '--script', script]);
  children.push(emu);
  const paths = await waitForOutput(emu, (out) => (out.split('\n').includes('ready') ? [...out.matchAll(/^board \d+: (\S+)/gm)].map((m) => m[1]!) : undefined));
  return { child: emu, paths };
}

describe.skipIf(!socat)('serve finds boards configured by serial number (real ptys, emulators in their own processes)', () => {
  it('attaches each table to the port its board is on, crossed serials included; moves reach the right table; a re-plugged board is found on its new path', async () => {
    const a = scriptFile('a.json', 11);
    const b = scriptFile('b.json', 12);
    expect(a.sans).not.toEqual(b.sans);
    // Two boards playing game A (serials 12001, 12002), one board elsewhere playing game B (12003).
    const hall = join(root, 'hall');
    const other = join(root, 'other');
    const [pathA1, pathA2] = await emulate(hall, 2, 12001, a.file);
    const emuB = await emulator(other, 1, 12003, b.file);
    const [pathB1] = emuB.paths;
    expect([pathA1, pathA2, pathB1]).toEqual([join(hall, 'board1'), join(hall, 'board2'), join(other, 'board1')]);

    const config = join(root, 'hall.json');
    writeFileSync(
      config,
      JSON.stringify({
        event: { name: 'Serial Open', site: 'Lab' },
        rounds: { count: 1 },
        timeControl: '10+0',
        rules: { edition: '2018', category: 'standard' },
        tables: [
          { number: 1, board: '12002' },
          { number: 2, board: '12001' },
          { number: 3, board: '12003' },
          // Never attached: /health must say it is still being searched for.
          { number: 4, board: '12099' },
        ],
        httpPort: 8080,
        dataDir: './data',
      }),
    );
    // `board?` and not the whole directory: the emulator's own ends (boardN.emu) sit next to the boards'.
    const serve = runCli(['serve', '--config', config, '--port', '0', '--no-viewer'], {
      BOARDCAST_DEVICE_DIRS: `${join(hall, 'board?')}:${join(other, 'board?')}:${join(root, 'moved', 'board?')}`,
    });
    children.push(serve);
    const url = await servingUrl(serve);

    const health = await eventually(
      async () => {
        const h = await getJson<{ boardsLive: number; tables: HealthTable[] }>(`${url}/health`);
        return h.boardsLive === 3 ? h : undefined;
      },
      30_000,
      'three boards live',
    );
    const byTable = new Map(health.tables.map((t) => [t.table, t]));
    expect(byTable.get(1)).toMatchObject({ board: '12002', device: pathA2, state: 'live' });
    expect(byTable.get(2)).toMatchObject({ board: '12001', device: pathA1, state: 'live' });
    expect(byTable.get(3)).toMatchObject({ board: '12003', device: pathB1, state: 'live' });
    expect(byTable.get(4)).toMatchObject({ board: '12099', device: null, serial: null, state: 'searching' });
    // The serial the session read from the board itself (its long, zero-padded form).
    expect(byTable.get(1)!.serial).toMatch(/^0*12002$/);
    expect(byTable.get(2)!.serial).toMatch(/^0*12001$/);
    expect(byTable.get(3)!.serial).toMatch(/^0*12003$/);

    const games = await eventually(
      async () => {
        const gs = await Promise.all([1, 2, 3].map((t) => getJson<GameState>(`${url}/api/games/r1-t${t}`)));
        return gs[0]!.ply >= a.sans.length && gs[1]!.ply >= a.sans.length && gs[2]!.ply >= b.sans.length ? gs : undefined;
      },
      30_000,
      'the scripted games on tables 1-3',
    );
    expect(games[0]!.moves.map((m) => m.san)).toEqual(a.sans);
    expect(games[1]!.moves.map((m) => m.san)).toEqual(a.sans);
    expect(games[2]!.moves.map((m) => m.san)).toEqual(b.sans);

    const log = serve.stdout() + serve.stderr();
    expect(log).toMatch(/board found.*"table":1.*board2/);
    expect(log).toMatch(/boards not found yet.*table 4: 12099/);
    expect(log).not.toMatch(/not the configured one/);

    // Re-plugged elsewhere: board 12003 vanishes from its port and comes back on another path.
    emuB.child.proc.kill('SIGTERM');
    expect(await emuB.child.exit).toBe(0);
    const [moved] = await emulate(join(root, 'moved'), 1, 12003, b.file);
    expect(moved).toBe(join(root, 'moved', 'board1'));
    const again = await eventually(
      async () => {
        const h = await getJson<{ tables: HealthTable[] }>(`${url}/health`);
        const t3 = h.tables.find((t) => t.table === 3);
        return t3 && t3.device === moved && t3.state === 'live' ? h : undefined;
      },
      45_000,
      'table 3 live again on the new path',
    );
    expect(again.tables.find((t) => t.table === 1)).toMatchObject({ device: pathA2, state: 'live' });
    expect(serve.stdout() + serve.stderr()).toMatch(/board device gone.*"table":3/);
  }, 150_000);
});
