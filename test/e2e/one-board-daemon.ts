import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Chess } from 'chessops/chess';
import type { GameState } from '../../protocols/feed/model.ts';
import { startDaemon, type RunningDaemon } from '../../daemon/app/daemon.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import type { PhysicalAction } from '../../daemon/simulation/emulator/physical.ts';
import { PtyDevice } from '../../daemon/simulation/pty-board.ts';
import { parseConfig } from '../../daemon/tournament/config.ts';
import { moveActions } from '../board/catchup-helpers.ts';
import { eventually, getJson } from '../runtime/daemon-child.ts';

/**
 * One emulated board on a real pseudo-terminal (socat), read by an in-process daemon with an
 * arbiter token, for the tests that play a single game by hand: the table is r1-t1.
 */
export interface OneBoardDaemon {
  readonly daemon: RunningDaemon;
  readonly board: BoardEmulator;
  /** The board's end of the pseudo-terminal (for outages: `remove`, `recreate`). */
  readonly device: PtyDevice;
  /** Physical actions at the table, 150 ms apart (their `at` is the device's now). */
  act(actions: readonly PhysicalAction[]): Promise<void>;
  /** One legal move played by hand on `pos` (no press), and a pause. */
  play(pos: Chess, san: string): Promise<void>;
  /** The game as the public API shows it. */
  game(): Promise<GameState>;
  /** The game as the arbiter reads it: with its incidents. */
  arbiterGame(): Promise<GameState>;
  /** An arbiter's POST to /api/arbiter/games/r1-t1/<action>. */
  arbiterPost(action: string, body: unknown): Promise<Response>;
  close(): Promise<void>;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface OneBoardOptions {
  name: string;
  serial: string;
  clock: ConstructorParameters<typeof BoardEmulator>[0]['clock'];
  /**
   * What the board lived through before the daemon saw it (earlier games, filling its log), played
   * on it in emulated time from 0; returns when it ended. The device's time goes on from there.
   */
  history?: (board: BoardEmulator) => number;
  /** What of the host's bytes reach the board (PtyDeviceOptions.hostLine). */
  hostLine?: (bytes: Uint8Array) => Uint8Array;
}

export async function oneBoardDaemon(opts: OneBoardOptions): Promise<OneBoardDaemon> {
  const token = `${opts.name}-arbiter-token`;
  const tokenBefore = process.env.BOARDCAST_ARBITER_TOKEN;
  process.env.BOARDCAST_ARBITER_TOKEN = token;
  const root = mkdtempSync(join(tmpdir(), `boardcast-${opts.name}-`));
  const board = new BoardEmulator({ serial: opts.serial, clock: opts.clock });
  const lived = opts.history?.(board) ?? 0;
  const bornAt = performance.now();
  const device = new PtyDevice(board, join(root, 'board1'), join(root, 'board1.emu'), {
    now: () => lived + performance.now() - bornAt,
    ...(opts.hostLine ? { hostLine: opts.hostLine } : {}),
  });
  let daemon: RunningDaemon | undefined;
  const close = async (): Promise<void> => {
    if (tokenBefore === undefined) delete process.env.BOARDCAST_ARBITER_TOKEN;
    else process.env.BOARDCAST_ARBITER_TOKEN = tokenBefore;
    await daemon?.stop();
    await device.close();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    return await start();
  } catch (e) {
    await close();
    throw e;
  }

  async function start(): Promise<OneBoardDaemon> {
    const opened = await device.open();
    if (!opened.ok) throw new Error(opened.error);
    const cfg = parseConfig(
      {
        event: { name: opts.name },
        rounds: { count: 1 },
        timeControl: '90+30',
        rules: { edition: '2018', category: 'standard' },
        httpPort: 0,
        dataDir: join(root, 'data'),
        tables: [{ number: 1, board: device.hostPath }],
      },
      null,
      root,
    );
    if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
    const started = await startDaemon({ config: cfg.value, log: createLogger({ write: () => {}, pretty: false }), port: 0, host: '127.0.0.1' });
    if (!started.ok) throw new Error(started.error);
    daemon = started.value;
    const running = daemon;
    const url = running.url;
    const live = async (): Promise<true | undefined> => ((await getJson<{ tables: { state: string }[] }>(`${url}/health`)).tables[0]?.state === 'live' ? true : undefined);
    await eventually(live, 20_000, 'the board live');
    const act = async (actions: readonly PhysicalAction[]): Promise<void> => {
      for (const a of actions) {
        device.withDevice((_d, at) => board.act({ ...a, at }));
        await sleep(150);
      }
    };
    const auth = { authorization: `Bearer ${token}` };
    return {
      daemon: running,
      board,
      device,
      act,
      async play(pos, san) {
        await act(moveActions(pos, san, 0, 0).actions);
        await sleep(300);
      },
      game: () => getJson<GameState>(`${url}/api/games/r1-t1`),
      arbiterGame: async () => (await fetch(`${url}/api/games/r1-t1`, { headers: auth })).json() as Promise<GameState>,
      arbiterPost: (action, body) => fetch(`${url}/api/arbiter/games/r1-t1/${action}`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) }),
      close,
    };
  }
}
