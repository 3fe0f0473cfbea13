import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chess } from 'chessops/chess';
import type { Color } from 'chessops';
import type { GameState } from '../../protocols/feed/model.ts';
import { PIECE } from '../../protocols/dgt/squares.ts';
import { startDaemon, type RunningDaemon } from '../../daemon/app/daemon.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { EmulatedBus } from '../../daemon/simulation/emulator/emulated-bus.ts';
import { PtyDevice } from '../../daemon/simulation/pty-board.ts';
import { parseConfig, type BoardcastConfig } from '../../daemon/tournament/config.ts';
import { moveActions } from '../board/catchup-helpers.ts';
import { eventually, getJson } from '../runtime/daemon-child.ts';
import { socatAvailable } from './socat.ts';

// A DGT bus line (a board in bus mode on a real pseudo-terminal, at 9600 baud) read by the daemon,
// which is stopped for four plies and started again on the same store. The board logs on while
// nobody polls it; its first change list after the restart holds the four plies and the clock's
// time at each press, and the daemon reads them from it, as it reads a single board's EEPROM log.
// Before session 21 the line drained that list unread and went by the dump: the engine searched a
// four-ply jump (flagged, in either order of each side's two moves) with no clock times.
const socat = socatAvailable('a bus line across a restart');
const root = mkdtempSync(join(tmpdir(), 'boardcast-bus-restart-'));
const logLines: string[] = [];
const board = new BoardEmulator({ serial: '12017', busMode: true, clock: { baseMs: 5_400_000, incrementMs: 30_000 } });
const device = new PtyDevice(new EmulatedBus([board]), join(root, 'bus1'), join(root, 'bus1.emu'));
let daemon: RunningDaemon | null = null;
let config: BoardcastConfig;

afterAll(async () => {
  await daemon?.stop();
  await device.close();
  rmSync(root, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const act = async (a: Parameters<BoardEmulator['act']>[0]): Promise<void> => {
  device.withDevice((_d, at) => board.act({ ...a, at }));
  await sleep(150);
};
const pos = Chess.default();
/** The clock's time for each mover right after each press, as the board showed it. */
const shown: number[] = [];
const move = async (san: string): Promise<void> => {
  const by: Color = pos.turn;
  for (const a of moveActions(pos, san, 0, 0).actions) await act(a);
  await sleep(300);
  await act({ kind: 'press', at: 0, by });
  const face = board.clockTimes();
  shown.push((by === 'white' ? face.left : face.right).ms);
};

async function start(): Promise<RunningDaemon> {
  const started = await startDaemon({ config, log: createLogger({ write: (_l, line) => logLines.push(line), pretty: false }), port: 0, host: '127.0.0.1' });
  if (!started.ok) throw new Error(started.error);
  return started.value;
}
const game = async (): Promise<GameState> => getJson<GameState>(`${daemon!.url}/api/games/r1-t1`);
const plies = (n: number) => async (): Promise<GameState | undefined> => {
  const g = await game();
  return g.ply === n ? g : undefined;
};

describe.skipIf(!socat)('a bus line whose daemon is stopped for four plies and started again', () => {
  beforeAll(async () => {
    const opened = await device.open();
    if (!opened.ok) throw new Error(opened.error);
    const cfg = parseConfig(
      {
        event: { name: 'Bus restart' },
        rounds: { count: 1 },
        timeControl: '90+30',
        rules: { edition: '2018', category: 'standard' },
        httpPort: 0,
        dataDir: join(root, 'data'),
        tables: [{ number: 1, board: '12017', bus: device.hostPath }],
      },
      null,
      root,
    );
    if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
    config = cfg.value;
    daemon = await start();
    await eventually(async () => ((await getJson<{ tables: { state: string }[] }>(`${daemon!.url}/health`)).tables[0]?.state === 'live' ? true : undefined), 20_000, 'the bus board live');
  }, 60_000);

  it('reads the plies made meanwhile from the board, each with its clock time', async () => {
    await act({ kind: 'press', at: 0, by: 'black' });
    for (const san of ['e4', 'e5']) await move(san);
    await eventually(plies(2), 15_000, 'two plies');
    // The last press read before the stop.
    await sleep(4_000);
    await daemon!.stop();
    daemon = null;

    for (const san of ['Nf3', 'Nc6', 'Bb5', 'a6']) await move(san);
    // And a player straightens the rook on a1 again and again: 120 lifts and puts back, 480 bytes
    // more in the change list, half a second on the wire (more than the 300 ms a reply is given
    // to begin; it is given as long as its bytes keep coming).
    device.withDevice((_d, at) => {
      for (let i = 0; i < 120; i++) {
        board.act({ kind: 'lift', at: at + 20 * i, field: 56 });
        board.act({ kind: 'place', at: at + 20 * i + 10, field: 56, piece: PIECE.WROOK });
      }
    });
    await sleep(3_000);
    daemon = await start();
    const g = await eventually(plies(6), 30_000, 'six plies after the restart');
    expect(g.moves.map((m) => m.san)).toEqual(['e4', 'e5', 'Nf3', 'Nc6', 'Bb5', 'a6']);
    expect(g.moves.filter((m) => m.uncertain)).toEqual([]);
    expect(g.moves.slice(2).map((m) => m.clockMs)).toEqual(shown.slice(2));
    expect(logLines.join('\n')).toContain('caught up from its EEPROM log');
  }, 90_000);
});
