import { describe, expect, it } from 'vitest';
import { parsePgn } from 'chessops/pgn';
import { MemoryLiveSource } from '../../daemon/runtime/memory-live-source.ts';
import { silencedRun } from './clock-silence.ts';
import { STANDARD_2018 } from './harness.ts';
import { playThroughSession } from './outage-rig.ts';
import { outageScript, type OutageCell } from './outages.ts';

// The times a spectator sees for the moves made while a USB board was off (the API's clockMs, the
// PGN's %clk): nobody read the clock at their presses, so a move inferred from the jump has a time
// only when a press reading confirms it, and then the clock's own. Before session 21 each inferred
// move took the clock as last read when the jump was found: in the games with a clock of seeds
// 1-120, 34 of 108 moves of the 4-ply pulls, 60 of 144 of the 6-ply ones and 72 of 224 of the
// 8-ply ones with a piece in the hand carried a time the clock never showed at any press, and most
// of the others a copy of another move's. Read through the real read model (MemoryLiveSource), as
// the API and the relay's PGN serve it.
const player = { name: 'P', title: null, rating: null, federation: null, fideId: null };
const CELL: OutageCell = { kind: 'power', plies: 6, pieceInHand: false };

function readModel(incrementMs: number): MemoryLiveSource {
  return new MemoryLiveSource({
    tournament: { id: 't', name: 'Outages', site: null, startDate: null, endDate: null, timeControl: '5400+30', variant: 'standard', roundCount: 1 },
    rounds: [{ round: 1, date: null, startsAt: null, status: 'live', gameCount: 1 }],
    games: [{ id: 'g', round: 1, table: 1, white: player, black: player, engine: { rules: STANDARD_2018, chess960: false, timeControl: { incrementMs } } }],
    eventTime: true,
  });
}

async function readModelGames(count: number) {
  const games = [];
  for (let seed = 1; games.length < count; seed++) {
    const made = outageScript(CELL, seed);
    if (!made?.script.clock || made.script.arbiter.length > 0) continue;
    const { script } = made;
    const run = await playThroughSession(script);
    const live = readModel(script.clock!.incrementMs);
    for (const ev of run.events) live.push('g', ev);
    games.push({ seed, script, run, game: live.game('g')!, pgn: live.pgn('g')! });
  }
  return games;
}

describe('the clock times of moves made while a USB board was off, as the API and the PGN give them', () => {
  it('are the clock readings at their presses or none, never the clock as it stood when the jump was found', async () => {
    let inferred = 0;
    let timed = 0;
    for (const { seed, script, run, game, pgn } of await readModelGames(4)) {
      const shown = { white: new Set(run.presses.map((p) => p.whiteMs)), black: new Set(run.presses.map((p) => p.blackMs)) };
      const { fromPly, plies } = script.outage!;
      for (const m of game.moves.slice(fromPly, fromPly + plies)) {
        inferred++;
        if (m.clockMs === null) continue;
        timed++;
        const mover = m.fenAfter.split(' ')[1] === 'b' ? 'white' : 'black';
        expect(shown[mover].has(m.clockMs), `seed ${seed} ${m.san} ${m.clockMs}`).toBe(true);
      }
      // The PGN gives a %clk exactly where the record has a time.
      const nodes = [...parsePgn(pgn)[0]!.moves.mainline()];
      expect(
        nodes.map((n) => (n.comments ?? []).some((c) => c.includes('%clk'))),
        `seed ${seed}`,
      ).toEqual(game.moves.map((m) => m.clockMs !== null));
    }
    expect(inferred).toBe(24);
    // Most have none: their presses were made while the board was off.
    expect(timed).toBeLessThan(inferred / 2);
  }, 60_000);
});

describe('the clock times of moves made while the clock went unread (its cable out, its battery flat)', () => {
  it("are none, not the times of the side's last move read", async () => {
    const PRESSES = 6;
    let games = 0;
    let silent = 0;
    let timed = 0;
    for (let seed = 1; games < 4; seed++) {
      const silenced = await silencedRun(seed, 'drawn', PRESSES);
      if (!silenced || silenced.script.arbiter.length > 0) continue;
      const { script, events, from, to } = silenced;
      const live = readModel(script.clock!.incrementMs);
      for (const ev of events) live.push('g', ev);
      games++;
      const moves = live.game('g')!.moves;
      moves.forEach((m) => {
        if (m.at < from || m.at >= to) return;
        silent++;
        if (m.clockMs === null) return;
        timed++;
      });
    }
    expect(silent).toBeGreaterThan(4 * (PRESSES - 2));
    // At most one a silence: a move made within 3 s of the last reading has that reading.
    expect(timed).toBeLessThanOrEqual(games);
  }, 60_000);
});
