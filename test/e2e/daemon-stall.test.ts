import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chess } from 'chessops/chess';
import type { GameState } from '../../protocols/feed/model.ts';
import { eventually, getJson } from '../runtime/daemon-child.ts';
import { oneBoardDaemon, sleep, type OneBoardDaemon } from './one-board-daemon.ts';
import { socatAvailable } from './socat.ts';

// The daemon's own event loop held up for 6 s (as by several boards' returns searched in one turn,
// or a table derived again for an arbiter's amendment) while a board's clock runs. The board goes
// on sending its readings every second; they wait in the pseudo-terminal. Node runs due timers
// before it reads them, so before session 21 the 4 s silence watchdog fired first: the board was
// taken for silent, handshaken again and its log read back, and the arbiter was told the board
// had been disconnected. Read by the daemon over a real pseudo-terminal (socat).
const socat = socatAvailable('a daemon held up');
let t: OneBoardDaemon | null = null;

afterAll(async () => {
  await t?.close();
});

const plies = (n: number) => async (): Promise<GameState | undefined> => {
  const g = await t!.game();
  return g.ply === n ? g : undefined;
};

describe.skipIf(!socat)("a daemon whose event loop is held up for longer than the board's silence limit", () => {
  beforeAll(async () => {
    t = await oneBoardDaemon({ name: 'daemon-stall', serial: '42031', clock: { baseMs: 5_400_000, incrementMs: 30_000 } });
  }, 60_000);

  it('does not take the board for silent: no disconnection, the game goes on', async () => {
    const pos = Chess.default();
    await t!.act([{ kind: 'press', at: 0, by: 'black' }]);
    await t!.play(pos, 'e4');
    await t!.act([{ kind: 'press', at: 0, by: 'white' }]);
    await eventually(plies(1), 10_000, 'e4');
    await sleep(1_500);

    // The daemon runs in this process: holding this thread holds its event loop.
    const until = Date.now() + 6_000;
    while (Date.now() < until) {
      // held up
    }
    // Time for what followed the hold-up to run (the readings read, any watchdog fired).
    await sleep(3_000);
    const health = await getJson<{ tables: { state: string }[] }>(`${t!.daemon.url}/health`);
    expect(health.tables[0]?.state).toBe('live');

    await t!.play(pos, 'e5');
    await t!.act([{ kind: 'press', at: 0, by: 'black' }]);
    const g = await eventually(plies(2), 10_000, 'e5');
    expect(g.moves.map((m) => m.san)).toEqual(['e4', 'e5']);
    expect(g.moves[1]!.clockMs).toEqual(expect.any(Number));
    expect((await t!.arbiterGame()).incidents.map((i) => i.kind)).toEqual([]);
  }, 60_000);
});
