import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chess } from 'chessops/chess';
import type { Color } from 'chessops';
import type { GameState } from '../../protocols/feed/model.ts';
import { eventually } from '../runtime/daemon-child.ts';
import { oneBoardDaemon, sleep, type OneBoardDaemon } from './one-board-daemon.ts';
import { socatAvailable } from './socat.ts';

// The clock's cable comes out of the board mid-game (kicked loose, or pulled to change the
// clock's batteries) and goes back: the clock runs on and its lever works, but the board reads no
// clock meanwhile. Black moves and presses unread, White replies at once, and the cable goes back
// before White presses: the first reading the daemon gets shows Black's press with White's reply
// already on the board. Before session 20 that press was judged as made then, and Black was held
// to have pressed without moving (7.5.3, an illegal move under 7.5.5). Read by the daemon over a
// real pseudo-terminal (socat): the API's record and the arbiter's incidents.
const socat = socatAvailable("a clock's cable out");
let t: OneBoardDaemon | null = null;

afterAll(async () => {
  await t?.close();
});

const press = (by: Color): Promise<void> => t!.act([{ kind: 'press', at: 0, by }]);
const plies = (n: number) => async (): Promise<GameState | undefined> => {
  const g = await t!.game();
  return g.ply === n ? g : undefined;
};

describe.skipIf(!socat)("a clock's cable out of the board and back, read by the daemon over a real pseudo-terminal", () => {
  beforeAll(async () => {
    t = await oneBoardDaemon({ name: 'clock-cable', serial: '42011', clock: { baseMs: 5_400_000, incrementMs: 30_000 } });
  }, 60_000);

  it('a press read only when the cable is back, the reply already made, is no press without a move; the record follows the board', async () => {
    const pos = Chess.default();
    // The clock is started, and the first moves are pressed and read.
    await press('black');
    for (const [san, by] of [
      ['e4', 'white'],
      ['e5', 'black'],
      ['Nf3', 'white'],
    ] as const) {
      await t!.play(pos, san);
      await press(by);
    }
    await eventually(plies(3), 10_000, 'three plies');

    // The cable out: Black moves and presses unread, White replies; more than the clock's
    // unread limit passes before the cable is back.
    await t!.act([{ kind: 'clock-cable-out', at: 0 }]);
    await t!.play(pos, 'Nc6');
    await press('black');
    await t!.play(pos, 'Bb5');
    await sleep(3_500);
    await t!.act([{ kind: 'clock-cable-in', at: 0 }]);
    await sleep(1_500);
    await press('white');
    for (const [san, by] of [
      ['a6', 'black'],
      ['Ba4', 'white'],
    ] as const) {
      await t!.play(pos, san);
      await press(by);
    }

    const g = await eventually(plies(7), 10_000, 'seven plies');
    expect(g.moves.map((m) => m.san)).toEqual(['e4', 'e5', 'Nf3', 'Nc6', 'Bb5', 'a6', 'Ba4']);
    // Nothing held against a player: the press was Black's, for Nc6.
    const incidents = (await t!.arbiterGame()).incidents;
    expect(incidents.map((i) => i.kind)).toEqual([]);
    // The moves pressed while the clock was read carry its readings.
    for (const i of [0, 1, 2, 4, 5, 6]) expect(g.moves[i]!.clockMs, g.moves[i]!.san).toEqual(expect.any(Number));
  }, 90_000);
});
