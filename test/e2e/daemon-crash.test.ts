import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../daemon/store/store.ts';
import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import type { GameEvent } from '../../daemon/reconstruction/game-events.ts';
import type { GameState } from '../../protocols/feed/model.ts';
import { randomGame } from '../../daemon/simulation/games/random.ts';
import { playNoisy, sessionEvents, type NoisyScript } from '../../daemon/simulation/noisy-player/player.ts';
import { eventually, getJson, runCli, servingUrl, stopChildren, waitForOutput, type Child } from '../runtime/daemon-child.ts';
import { withSql } from '../store/helpers.ts';

/*
 * Crash and restart mid-round on real pseudo-terminals: `boardcast emulate` plays a scripted game
 * on two boards in its own process, so the boards keep going while the daemon is down. The daemon
 * is SIGKILLed mid-game and restarted at once; after the script ends, every game's moves must be
 * those an uninterrupted engine run finds.
 *
 * A quick restart (about a second of Node + tsx start-up, a ply about every 0.9 s) misses at most
 * two plies; a long outage misses many more, and the board's EEPROM log, read on the handshake from
 * where the stored events left off, gives them back (daemon/board/session.ts catch-up).
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

/** Runs the scripted round, SIGKILLs the daemon mid-game, waits `outageMs`, restarts; returns the second daemon's output. */
async function crashAndRestart(dir: string, outageMs: number): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const s = script();
  const expected = uninterrupted(s);
  expect(expected).toEqual(s.expected.sans);
  const scriptFile = join(dir, 'script.json');
  writeFileSync(scriptFile, JSON.stringify({ board: s.board, clock: s.clock, actions: s.actions }));

  const emu = runCli(['emulate', '--boards', '2', '--dir', join(dir, 'dev'), '--script', scriptFile]);
  children.push(emu);
  const paths = await waitForOutput(emu, (out) => {
    if (!out.split('\n').includes('ready')) return undefined;
    return [...out.matchAll(/^board \d+: (\S+)/gm)].map((m) => m[1]!);
  });
  expect(paths).toHaveLength(2);

  const config = join(dir, 'hall.json');
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
  // The boards play on meanwhile.
  await new Promise((r) => setTimeout(r, outageMs));

  const second = serve();
  url = await servingUrl(second);
  const rebuilt = await getJson<GameState>(`${url}/api/games/r1-t1`);
  expect(rebuilt.ply).toBeGreaterThanOrEqual(8);
  expect(rebuilt.ply).toBeLessThan(expected.length);

  const finals = await eventually(
    async () => {
      const games = await Promise.all([1, 2].map((t) => getJson<GameState>(`${url}/api/games/r1-t${t}`)));
      return games.every((g) => g.ply >= expected.length) ? games : undefined;
    },
    60_000,
    `all ${expected.length} plies on both tables`,
  ).catch(async (e: Error) => {
    // Say what the games and the restarted daemon showed, in the failure itself.
    const games = await Promise.all([1, 2].map((t) => getJson<GameState>(`${url}/api/games/r1-t${t}`)));
    const shown = JSON.stringify(games.map((g) => [g.ply, g.status, g.moves.map((m) => m.san).join(' '), g.incidents.map((i) => `${i.kind}:${i.message}`)]));
    const warnings = (second.stdout() + second.stderr())
      .split('\n')
      .filter((l) => /catch|derived|warn|error/i.test(l))
      .join('\n')
      .slice(0, 4000);
    throw new Error(`${e.message}\nwanted: ${expected.join(' ')}\ngames: ${shown}\nrestarted daemon: ${warnings}`);
  });
  // The last clock presses confirm the last moves: compare once both games have them.
  await eventually(
    async () => {
      const games = await Promise.all([1, 2].map((t) => getJson<GameState>(`${url}/api/games/r1-t${t}`)));
      return games.every((g) => sansOf(g).join(' ') === expected.join(' ') && g.moves.at(-1)?.clockMs !== null) ? true : undefined;
    },
    10_000,
    'the last moves confirmed by their clock presses',
  );
  for (const t of [1, 2]) {
    const g = await getJson<GameState>(`${url}/api/games/r1-t${t}`);
    expect(sansOf(g), `table ${t}`).toEqual(expected);
  }
  expect(finals).toHaveLength(2);

  second.proc.kill('SIGTERM');
  expect(await second.exit).toBe(0);

  // The derived rows in the store agree with the replay: the same moves, none twice.
  const store = openStore(join(dir, 'data', 'boardcast.sqlite'));
  if (!store.ok) throw new Error(store.error.message);
  for (const t of [1, 2]) {
    const games = withSql(store.value.file, (db) => db.prepare('SELECT id FROM games WHERE table_number = ?').pluck().all(t)) as number[];
    expect(games, `store games at table ${t}`).toHaveLength(1);
    expect(
      store.value.moves(games[0]!).map((m) => m.san),
      `stored moves at table ${t}`,
    ).toEqual(expected);
  }
  store.value.close();
  emu.proc.kill('SIGTERM');
  await emu.exit;
  return second.stdout() + second.stderr();
}

describe('daemon crash and restart mid-round (real ptys, emulator in its own process)', () => {
  it('SIGKILL mid-game and restart: every game ends with the same moves as an uninterrupted run', async () => {
    const dir = join(root, 'quick');
    await crashAndRestart(dir, 0);
  }, 120_000);

  it('a long outage (about eight plies played while the daemon is down): the EEPROM log fills them in, no move lost', async () => {
    const log = await crashAndRestart(join(root, 'long'), 7_000);
    expect(log).toContain('caught up from its EEPROM log');
  }, 120_000);
});
