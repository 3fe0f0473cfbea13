import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../daemon/store/store.ts';
import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import type { GameEvent } from '../../daemon/reconstruction/game-events.ts';
import type { GameState } from '../../daemon/server/live-source.ts';
import { randomGame } from '../../protocols/games/random.ts';
import { playNoisy, sessionEvents, type NoisyScript } from '../../protocols/noisy-player/player.ts';
import { eventually, getJson, runCli, servingUrl, stopChildren, waitForOutput, type Child } from '../runtime/daemon-child.ts';

/*
 * Crash and restart mid-round on real pseudo-terminals: `boardcast emulate` plays a scripted game
 * on two boards in its own process, so the boards keep going while the daemon is down. The daemon
 * is SIGKILLed mid-game and restarted at once; after the script ends, every game's moves must be
 * those an uninterrupted engine run finds.
 *
 * Why not the EEPROM log: the restart takes about a second (Node + tsx start-up) and the script
 * plays a ply about every 0.9 s, so at most two plies happen unseen, well inside the engine's
 * missed-move search (<= 3 plies from the handshake dump). The rebuilt engine (stored raw events
 * replayed) plus the fresh dump is then enough; reading the EEPROM would only be needed for longer
 * outages.
 */

const root = mkdtempSync(join(tmpdir(), 'boardcast-crash-'));
const children: Child[] = [];
afterAll(async () => {
  await stopChildren(children);
  rmSync(root, { recursive: true, force: true });
});

/** Blitz hands, sped up 2.5×, starting after the daemon had time to connect. */
function script(): NoisyScript {
  const game = randomGame(7, { maxPlies: 30 });
  const s = playNoisy(game, { model: 'blitz', seed: 3, clock: { baseMs: 600_000, incrementMs: 0 }, reversed: false });
  return { ...s, actions: s.actions.map((a) => ({ ...a, at: Math.round(6000 + a.at / 2.5) })) };
}

/** The moves an engine that saw everything concludes (what an uninterrupted daemon would store). */
function uninterrupted(s: NoisyScript): string[] {
  const engine = new GameEngine({ rules: { edition: '2018', category: 'standard' } });
  const sans: string[] = [];
  const apply = (e: GameEvent): void => {
    if (e.type === 'game-started') sans.length = 0;
    else if (e.type === 'move-made') {
      sans.length = e.ply - 1;
      sans.push(e.san);
    } else if (e.type === 'move-amended') sans[e.ply - 1] = e.san;
    else if (e.type === 'takeback') sans.length = e.toPly;
  };
  for (const ev of sessionEvents(s)) for (const ge of engine.push(ev)) apply(ge);
  return sans;
}

const sansOf = (g: GameState): string[] => g.moves.map((m) => m.san);

describe('daemon crash and restart mid-round (real ptys, emulator in its own process)', () => {
  it('SIGKILL mid-game and restart: every game ends with the same moves as an uninterrupted run', async () => {
    const s = script();
    const expected = uninterrupted(s);
    expect(expected).toEqual(s.expected.sans);
    const scriptFile = join(root, 'script.json');
    writeFileSync(scriptFile, JSON.stringify({ board: s.board, clock: s.clock, actions: s.actions }));

    const emu = runCli(['emulate', '--boards', '2', '--dir', join(root, 'dev'), '--script', scriptFile]);
    children.push(emu);
    const paths = await waitForOutput(emu, (out) => {
      if (!out.split('\n').includes('ready')) return undefined;
      return [...out.matchAll(/^board \d+: (\S+)/gm)].map((m) => m[1]!);
    });
    expect(paths).toHaveLength(2);

    const config = join(root, 'hall.json');
    writeFileSync(
      config,
      JSON.stringify({
        event: { name: 'Crash Open', site: 'Lab' },
        rounds: { count: 1 },
        timeControl: '10+0',
        rules: { edition: '2018', category: 'standard' },
        // The schema takes /dev paths only: the ptys replace these placeholders with --board below.
        tables: paths.map((_, i) => ({ number: i + 1, board: `/dev/boardcast-placeholder-${i + 1}`, whiteOnClock: 'left' })),
        httpPort: 8080,
        dataDir: './data',
      }),
    );
    const serve = (): Child => {
      const c = runCli(['serve', '--config', config, '--port', '0', '--no-viewer', ...paths.flatMap((p, i) => ['--board', `${i + 1}=${p}`])]);
      children.push(c);
      return c;
    };

    const first = serve();
    let url = await servingUrl(first);
    // Kill while both games are in the middle.
    await eventually(
      async () => {
        const games = await Promise.all([1, 2].map((t) => getJson<GameState>(`${url}/api/games/r1-t${t}`)));
        return games.every((g) => g.ply >= 8) ? true : undefined;
      },
      30_000,
      'eight plies on both tables',
    );
    first.proc.kill('SIGKILL');
    await first.exit;

    const second = serve();
    url = await servingUrl(second);
    const rebuilt = await getJson<GameState>(`${url}/api/games/r1-t1`);
    expect(rebuilt.ply).toBeGreaterThanOrEqual(8);

    const finals = await eventually(
      async () => {
        const games = await Promise.all([1, 2].map((t) => getJson<GameState>(`${url}/api/games/r1-t${t}`)));
        return games.every((g) => g.ply >= expected.length) ? games : undefined;
      },
      60_000,
      `all ${expected.length} plies on both tables`,
    );
    // Let the last clock presses land, then compare.
    await new Promise((r) => setTimeout(r, 1500));
    for (const t of [1, 2]) {
      const g = await getJson<GameState>(`${url}/api/games/r1-t${t}`);
      expect(sansOf(g), `table ${t}`).toEqual(expected);
    }
    expect(finals).toHaveLength(2);

    second.proc.kill('SIGTERM');
    expect(await second.exit).toBe(0);

    // The derived rows in the store agree with the replay: the same moves, none twice.
    const store = openStore(join(root, 'data', 'boardcast.sqlite'));
    if (!store.ok) throw new Error(store.error.message);
    for (const t of [1, 2]) {
      const games = store.value.db.prepare('SELECT id FROM games WHERE table_number = ?').pluck().all(t) as number[];
      expect(games, `store games at table ${t}`).toHaveLength(1);
      expect(store.value.moves(games[0]!).map((m) => m.san), `stored moves at table ${t}`).toEqual(expected);
    }
    store.value.close();
    emu.proc.kill('SIGTERM');
    await emu.exit;
  }, 120_000);
});
