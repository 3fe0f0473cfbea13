import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chess } from 'chessops/chess';
import type { Color } from 'chessops';
import type { GameState } from '../../protocols/feed/model.ts';
import { PIECE } from '../../protocols/dgt/squares.ts';
import type { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { EEPROM_SIZE } from '../../daemon/simulation/emulator/eeprom-log.ts';
import { standardStartBoard } from '../../daemon/simulation/emulator/tabletop.ts';
import { LONG_GAME, gameActions } from '../board/catchup-helpers.ts';
import { eventually } from '../runtime/daemon-child.ts';
import { oneBoardDaemon, sleep, type OneBoardDaemon } from './one-board-daemon.ts';
import { socatAvailable } from './socat.ts';

// Two boards on real pseudo-terminals (socat), each read by its own in-process daemon at the
// line's speed (9600 baud), each losing its serial link for four plies while it stays powered.
//
// The first has been in use all day: its cyclic log is full (0x1f00 bytes), and a real board sends
// it whole when asked: 8.3 s on the wire. The players go on meanwhile. Every move comes back, with
// the clock's own time at each press, and what was played while the log was on the wire is
// recorded after it. Before the emulator paced its bytes the log arrived in a millisecond, and no
// test saw a catch-up that takes longer than the clock's second.
//
// The second has no clock, and the host's request for the log is garbled on the line: the board
// never answers, and the catch-up gives up after 3 s. White castles meanwhile. What the board said
// while the daemon waited (the dump, the castling's changes) must then reach the engine, which
// bridges the four plies by its search and records O-O. Before the frame pairing was mended (a
// frame's event only in its own turn), the last change held (the rook put on f1) was filled into
// its frame's row after that row was committed, and never stored.
const socat = socatAvailable('a slow serial line');
let t: OneBoardDaemon | null = null;
let u: OneBoardDaemon | null = null;

afterAll(async () => {
  await t?.close();
  await u?.close();
});

/** Earlier games on the board, without the clock, each set up again after: until the log is full. */
function earlierGames(board: BoardEmulator): number {
  let at = 1_000;
  const start = standardStartBoard();
  while (board.eeprom().length < EEPROM_SIZE) {
    const game = gameActions(Chess.default(), LONG_GAME, at, { moveMs: 1_000, stepMs: 200 });
    for (const a of game.actions) board.act(a);
    at = game.end;
    board.board().forEach((piece, field) => {
      if (piece !== PIECE.EMPTY) board.act({ kind: 'lift', at: (at += 200), field });
    });
    start.forEach((piece, field) => {
      if (piece !== PIECE.EMPTY) board.act({ kind: 'place', at: (at += 200), field, piece });
    });
  }
  return at + 5_000;
}

/** What the clock shows for `by` right after their press (the time the record should carry). */
const shown = (by: Color): number => {
  const face = t!.board.clockTimes();
  return (by === 'white' ? face.left : face.right).ms;
};

const plies = (n: number) => async (): Promise<GameState | undefined> => {
  const g = await t!.game();
  return g.ply === n ? g : undefined;
};

describe.skipIf(!socat)('a board with a full log, its link lost for four plies, read back at 9600 baud', () => {
  beforeAll(async () => {
    t = await oneBoardDaemon({ name: 'slow-line', serial: '42027', clock: { baseMs: 5_400_000, incrementMs: 30_000 }, history: earlierGames });
  }, 60_000);

  it('brings back every move with its clock time, and records what was played while the log was on the wire', async () => {
    expect(t!.board.eeprom()).toHaveLength(EEPROM_SIZE);
    const pos = Chess.default();
    const clockAfter: number[] = [];
    const move = async (san: string): Promise<void> => {
      const by = pos.turn;
      await t!.play(pos, san);
      await t!.act([{ kind: 'press', at: 0, by }]);
      clockAfter.push(shown(by));
    };
    await t!.act([{ kind: 'press', at: 0, by: 'black' }]);
    for (const san of ['e4', 'e5', 'Nf3', 'Nc6']) await move(san);
    await eventually(plies(4), 10_000, 'four plies');

    // The link drops (the board keeps its power and logs on); four plies are played.
    await t!.device.remove('link-down');
    for (const san of ['Bb5', 'a6', 'Ba4', 'Nf6']) await move(san);
    const asked = t!.device.hostBytes.length;
    await t!.device.recreate();

    // The daemon asks for the log (SEND_EE_MOVES, 0x49); while it crosses the line, White castles
    // and presses, and Black replies.
    await eventually(async () => (t!.device.hostBytes.slice(asked).includes(0x49) ? true : undefined), 20_000, 'the log asked for');
    await sleep(1_000);
    await move('O-O');
    await move('Be7');

    // A move is recorded as its piece lands, with the clock as it then stood (the increment not
    // yet added); its press's reading, a moment later, gives it its time. Wait for Be7's.
    const pressed = async (): Promise<GameState | undefined> => {
      const g = await t!.game();
      const last = g.moves[9]?.clockMs;
      return g.ply === 10 && last !== null && last !== undefined && Math.abs(last - clockAfter[9]!) <= 1_000 ? g : undefined;
    };
    const g = await eventually(pressed, 30_000, "ten plies, Be7 with its press's time");
    expect(g.moves.map((m) => m.san)).toEqual(['e4', 'e5', 'Nf3', 'Nc6', 'Bb5', 'a6', 'Ba4', 'Nf6', 'O-O', 'Be7']);
    expect(g.moves.some((m) => m.uncertain)).toBe(false);
    // The outage is reported; nothing is held against a player.
    const incidents = (await t!.arbiterGame()).incidents;
    expect(incidents.map((i) => i.kind)).toEqual(['board-disconnected', 'board-resynchronised']);
    expect(incidents.filter((i) => 'by' in i)).toEqual([]);
    // Each move's time is the clock's at its press, the outage's from the log (whole seconds).
    g.moves.forEach((m, i) => expect(Math.abs((m.clockMs ?? Number.NaN) - clockAfter[i]!), m.san).toBeLessThanOrEqual(1_000));
  }, 120_000);
});

/** The line garbles the host's next SEND_EE_MOVES (0x49) once armed: the board never sees it. */
let garbleNextLogRequest = false;
const noisyLine = (bytes: Uint8Array): Uint8Array => {
  const i = garbleNextLogRequest ? bytes.indexOf(0x49) : -1;
  if (i < 0) return bytes;
  garbleNextLogRequest = false;
  const garbled = bytes.slice();
  garbled[i] = 0x00;
  return garbled;
};

describe.skipIf(!socat)('a board without a clock, its link lost for four plies, the request for its log lost on the line', () => {
  beforeAll(async () => {
    u = await oneBoardDaemon({ name: 'lost-request', serial: '42028', clock: null, hostLine: noisyLine });
  }, 60_000);

  it('gives up on the log and bridges the plies from the board as it came back; the game goes on', async () => {
    const pos = Chess.default();
    const game = (n: number) => async (): Promise<GameState | undefined> => {
      const g = await u!.game();
      return g.ply === n ? g : undefined;
    };
    for (const san of ['e4', 'e5', 'Nf3', 'Nc6']) await u!.play(pos, san);
    await eventually(game(4), 10_000, 'four plies');

    await u!.device.remove('link-down');
    for (const san of ['Bb5', 'a6', 'Ba4', 'Nf6']) await u!.play(pos, san);
    garbleNextLogRequest = true;
    const asked = u!.device.hostBytes.length;
    await u!.device.recreate();
    // The daemon asks for the log; the board hears nothing of it. White castles at once, while
    // the daemon still waits for the log (3 s): the daemon holds those changes back meanwhile.
    await eventually(async () => (u!.device.hostBytes.slice(asked).includes(0x49) ? true : undefined), 20_000, 'the log asked for');
    expect(garbleNextLogRequest).toBe(false);
    await u!.play(pos, 'O-O');
    await eventually(game(9), 15_000, 'the four plies bridged, and O-O');
    await u!.play(pos, 'Be7');

    const g = await eventually(game(10), 15_000, 'ten plies');
    expect(g.moves.some((m) => m.gap)).toBe(false);
    expect(g.fen.split(' ')[0]).toBe('r1bqk2r/1pppbppp/p1n2n2/4p3/B3P3/5N2/PPPP1PPP/RNBQ1RK1');
    expect(g.moves.slice(8).map((m) => m.san)).toEqual(['O-O', 'Be7']);
    const incidents = (await u!.arbiterGame()).incidents;
    expect(incidents.filter((i) => 'by' in i)).toEqual([]);
    expect(incidents.map((i) => i.kind)).not.toContain('illegal-position');
  }, 120_000);
});
