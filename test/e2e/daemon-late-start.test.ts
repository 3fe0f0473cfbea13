import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GameState } from '../../protocols/feed/model.ts';
import { randomGame } from '../../daemon/simulation/games/random.ts';
import { playNoisy, type NoisyScript } from '../../daemon/simulation/noisy-player/player.ts';
import { eventually, getJson, runCli, servingUrl, stopChildren, waitForOutput, type Child } from '../runtime/daemon-child.ts';
import { socatAvailable } from './socat.ts';

/*
 * The daemon meets a board for the first time in the middle of a game (fresh data directory: it
 * was started late, or its disk was replaced). The board's EEPROM log holds the game since the
 * pieces were set up; the daemon reads it on the handshake and broadcasts the game from move 1.
 */

const socat = socatAvailable('daemon-late-start');
const root = mkdtempSync(join(tmpdir(), 'boardcast-late-start-'));
const children: Child[] = [];
afterAll(async () => {
  await stopChildren(children);
  rmSync(root, { recursive: true, force: true });
});

/** Blitz hands, sped up 2.5×, from one second after the emulator starts. */
function script(): NoisyScript {
  const s = playNoisy(randomGame(21, { maxPlies: 28 }), { model: 'blitz', seed: 4, clock: { baseMs: 300_000, incrementMs: 2_000 }, reversed: false });
  return { ...s, actions: s.actions.map((a) => ({ ...a, at: Math.round(1000 + a.at / 2.5) })) };
}

describe.skipIf(!socat)('a daemon started while a game is under way', () => {
  it('reads the game since the set-up from the board and goes on live: every move, from the first', async () => {
    mkdirSync(join(root, 'dev'));
    const s = script();
    const file = join(root, 'script.json');
    writeFileSync(file, JSON.stringify({ board: s.board, clock: s.clock, actions: s.actions }));
    const emu = runCli(['emulate', '--boards', '1', '--dir', join(root, 'dev'), '--script', file]);
    children.push(emu);
    const path = await waitForOutput(emu, (out) => (out.split('\n').includes('ready') ? /^board 1: (\S+)/m.exec(out)?.[1] : undefined));
    const started = Date.now();
    const config = join(root, 'hall.json');
    writeFileSync(
      config,
      JSON.stringify({
        event: { name: 'Late Start Blitz' },
        rounds: { count: 1 },
        timeControl: '5+2',
        rules: { category: 'blitz' },
        tables: [{ number: 1, board: '/dev/boardcast-placeholder' }],
        httpPort: 0,
        dataDir: './data',
      }),
    );
    // Let ten plies (ten clock presses) be played before the daemon exists.
    const presses = s.actions.filter((a) => a.kind === 'press');
    expect(presses.length).toBeGreaterThan(20);
    const tenthPress = presses[9]!.at;
    await new Promise((r) => setTimeout(r, Math.max(0, tenthPress + 300 - (Date.now() - started))));

    const daemon = runCli(['serve', '--config', config, '--no-viewer', '--board', `1=${path}`]);
    children.push(daemon);
    const url = await servingUrl(daemon);
    const first = await eventually(
      async () => {
        const g = await getJson<GameState>(`${url}/api/games/r1-t1`).catch(() => undefined);
        return g && g.ply >= 10 ? g : undefined;
      },
      15_000,
      'the moves played before the daemon started',
    );
    expect(first.moves.map((m) => m.san)).toEqual(s.expected.sans.slice(0, first.ply));

    const done = await eventually(
      async () => {
        const g = await getJson<GameState>(`${url}/api/games/r1-t1`);
        return g.ply >= s.expected.sans.length ? g : undefined;
      },
      40_000,
      `all ${s.expected.sans.length} plies`,
    );
    // The last plies can still be amended as their clock presses come in: compare once they have.
    await eventually(
      async () => {
        const g = await getJson<GameState>(`${url}/api/games/r1-t1`);
        return g.moves.map((m) => m.san).join(' ') === s.expected.sans.join(' ') && g.moves.at(-1)?.clockMs !== null ? true : undefined;
      },
      10_000,
      'the last move confirmed',
    );
    expect((await getJson<GameState>(`${url}/api/games/r1-t1`)).moves.map((m) => m.san)).toEqual(s.expected.sans);
    expect(done.white.name).toBe('White (table 1)');
    expect(daemon.stdout()).toContain('read from its start in the EEPROM log');
    daemon.proc.kill('SIGTERM');
    expect(await daemon.exit).toBe(0);
  }, 90_000);
});
