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

// DGT bus lines (a board in bus mode on a real pseudo-terminal, at 9600 baud) read by the daemon.
//
// The first daemon is stopped for four plies and started again on the same store. The board logs on while
// nobody polls it; its first change list after the restart holds the four plies and the clock's
// time at each press, and the daemon reads them from it, as it reads a single board's EEPROM log.
// Before session 21 the line drained that list unread and went by the dump: the engine searched a
// four-ply jump (flagged, in either order of each side's two moves) with no clock times.
//
// The second is started on a fresh store after the players have made four plies on a board no
// host has read since it was powered: its first change list holds the game since the set-up, and
// the daemon broadcasts it from move 1, as it does a single board's (daemon-late-start). Before,
// the game began at the board as it stood, and waited for a start position it never showed.
const socat = socatAvailable('bus lines across a restart and a late start');
const root = mkdtempSync(join(tmpdir(), 'boardcast-bus-restart-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One bus line with one board (its clock 90+30), and the daemon that reads it. */
function busTable(serial: string, name: string) {
  const logLines: string[] = [];
  const board = new BoardEmulator({ serial, busMode: true, clock: { baseMs: 5_400_000, incrementMs: 30_000 } });
  const device = new PtyDevice(new EmulatedBus([board]), join(root, name), join(root, `${name}.emu`));
  const pos = Chess.default();
  /** The clock's time for each mover right after each press, as the board showed it. */
  const shown: number[] = [];
  let config: BoardcastConfig | null = null;
  const t = {
    board,
    device,
    logLines,
    shown,
    daemon: null as RunningDaemon | null,
    async act(a: Parameters<BoardEmulator['act']>[0]): Promise<void> {
      device.withDevice((_d, at) => board.act({ ...a, at }));
      await sleep(150);
    },
    async move(san: string): Promise<void> {
      const by: Color = pos.turn;
      for (const a of moveActions(pos, san, 0, 0).actions) await t.act(a);
      await sleep(300);
      await t.act({ kind: 'press', at: 0, by });
      const face = board.clockTimes();
      shown.push((by === 'white' ? face.left : face.right).ms);
    },
    async open(): Promise<void> {
      const opened = await device.open();
      if (!opened.ok) throw new Error(opened.error);
      const cfg = parseConfig(
        {
          event: { name: `Bus ${name}` },
          rounds: { count: 1 },
          timeControl: '90+30',
          rules: { edition: '2018', category: 'standard' },
          httpPort: 0,
          dataDir: join(root, `${name}-data`),
          tables: [{ number: 1, board: serial, bus: device.hostPath }],
        },
        null,
        root,
      );
      if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
      config = cfg.value;
    },
    async start(): Promise<void> {
      const started = await startDaemon({ config: config!, log: createLogger({ write: (_l, line) => logLines.push(line), pretty: false }), port: 0, host: '127.0.0.1' });
      if (!started.ok) throw new Error(started.error);
      t.daemon = started.value;
      await eventually(async () => ((await getJson<{ tables: { state: string }[] }>(`${t.daemon!.url}/health`)).tables[0]?.state === 'live' ? true : undefined), 20_000, 'the bus board live');
    },
    async stop(): Promise<void> {
      await t.daemon?.stop();
      t.daemon = null;
    },
    game: (): Promise<GameState> => getJson<GameState>(`${t.daemon!.url}/api/games/r1-t1`),
    plies: (n: number) => async (): Promise<GameState | undefined> => {
      const g = await t.game();
      return g.ply === n ? g : undefined;
    },
  };
  return t;
}

const restarted = busTable('12017', 'bus1');
const late = busTable('12018', 'bus2');

afterAll(async () => {
  for (const t of [restarted, late]) {
    await t.stop();
    await t.device.close();
  }
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!socat)('a bus line whose daemon is stopped for four plies and started again', () => {
  beforeAll(async () => {
    await restarted.open();
    await restarted.start();
  }, 60_000);

  it('reads the plies made meanwhile from the board, each with its clock time', async () => {
    const t = restarted;
    await t.act({ kind: 'press', at: 0, by: 'black' });
    for (const san of ['e4', 'e5']) await t.move(san);
    await eventually(t.plies(2), 15_000, 'two plies');
    // The last press read before the stop.
    await sleep(4_000);
    await t.stop();

    for (const san of ['Nf3', 'Nc6', 'Bb5', 'a6']) await t.move(san);
    // And a player straightens the rook on a1 again and again: 120 lifts and puts back, 480 bytes
    // more in the change list, half a second on the wire (more than the 300 ms a reply is given
    // to begin; it is given as long as its bytes keep coming).
    t.device.withDevice((_d, at) => {
      for (let i = 0; i < 120; i++) {
        t.board.act({ kind: 'lift', at: at + 20 * i, field: 56 });
        t.board.act({ kind: 'place', at: at + 20 * i + 10, field: 56, piece: PIECE.WROOK });
      }
    });
    await sleep(3_000);
    await t.start();
    const g = await eventually(t.plies(6), 30_000, 'six plies after the restart');
    expect(g.moves.map((m) => m.san)).toEqual(['e4', 'e5', 'Nf3', 'Nc6', 'Bb5', 'a6']);
    expect(g.moves.filter((m) => m.uncertain)).toEqual([]);
    expect(g.moves.slice(2).map((m) => m.clockMs)).toEqual(t.shown.slice(2));
    expect(t.logLines.join('\n')).toContain('caught up from its EEPROM log');
  }, 90_000);
});

describe.skipIf(!socat)('a bus line read first by a daemon started after the players began', () => {
  it('broadcasts the game from move 1, from the board it was set up on', async () => {
    const t = late;
    await t.open();
    await t.act({ kind: 'press', at: 0, by: 'black' });
    for (const san of ['d4', 'Nf6', 'c4', 'e6']) await t.move(san);
    await t.start();
    const g = await eventually(t.plies(4), 20_000, 'the four plies from the board');
    expect(g.moves.map((m) => m.san)).toEqual(['d4', 'Nf6', 'c4', 'e6']);
    expect(g.startFen).toBe('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1');
    expect(t.logLines.join('\n')).toContain('game already under way: read from its start in the EEPROM log');
  }, 60_000);
});
