import { describe, expect, it } from 'vitest';
import { Chess } from 'chessops/chess';
import type { BoardEvent } from '../../protocols/board-events.ts';
import type { HostAnchor } from '../../daemon/board/catch-up-events.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { EmulatedBus } from '../../daemon/simulation/emulator/emulated-bus.ts';
import { BusSession, type BusEvent } from '../../daemon/board/bus.ts';
import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import { serialTransportFactory } from '../../daemon/transport/serial-transport.ts';
import { STANDARD_2018 } from '../reconstruction/harness.ts';
import { EmulatedMockPort, ManualTimers, settle } from './helpers.ts';
import { gameActions } from './catchup-helpers.ts';

// A bus board keeps logging while nobody polls it (the daemon restarted, the line's adapter out):
// its first change list after that holds every change since the host last asked, with the clock's
// time at each press, as a single board's EEPROM log does. Before session 21 the line drained that
// list unread and took the dump: the engine got a jump to search.
describe('a bus board the line brings in again after the host was away', () => {
  it("gives the moves made meanwhile from its first change list, with the presses' logged times, before the dump", async () => {
    const timers = new ManualTimers();
    const board = new BoardEmulator({ serial: '01025', busMode: true, clock: { baseMs: 300_000, incrementMs: 0 } });
    const port = new EmulatedMockPort(new EmulatedBus([board]), () => timers.now());
    timers.onAdvance = (now) => port.tick(now);
    const events: BusEvent[] = [];
    const line = (catchUp?: () => HostAnchor) => {
      const s = new BusSession({ transport: serialTransportFactory(port.path, port.factory), timers, pollIntervalMs: 2_000, ...(catchUp ? { catchUp } : {}) });
      s.on((e) => events.push(e));
      return s;
    };
    const boardEvents = (from = 0): BoardEvent[] => events.slice(from).flatMap((e) => (e.type === 'board' ? [e.event] : []));
    const pos = Chess.default();
    const play = async (sans: string[]) => {
      const g = gameActions(pos, sans, timers.now() + 100, { press: true });
      for (const a of g.actions) board.act(a);
      await timers.advance(g.end - timers.now() + 3_000, 20);
    };

    const first = line();
    first.start();
    await settle();
    await timers.advance(1_500, 20);
    await play(['e4', 'e5']);
    const known = first.board(1025)!;
    await first.stop();
    const seen = boardEvents();
    const anchor: HostAnchor = {
      board: known,
      recentFields: seen.flatMap((e) => (e.type === 'field' ? [{ field: e.field, piece: e.piece }] : [])).slice(-16),
      lastAt: seen.at(-1)!.at,
      lastClock: seen.findLast((e) => e.type === 'clock') as Extract<BoardEvent, { type: 'clock' }>,
    };

    // Nobody polls: four plies, each pressed.
    await play(['Nf3', 'Nc6', 'Bb5', 'a6']);
    const from = events.length;
    const again = line(() => anchor);
    again.start();
    await settle();
    await timers.advance(5_000, 20);
    await again.stop();

    expect(events.slice(from).find((e) => e.type === 'catch-up')).toMatchObject({ outcome: 'caught-up', fields: 8 });
    const back = boardEvents(from);
    // The changes first, at their own times inside the gap, then the board live again.
    const live = back.findIndex((e) => e.type === 'connection');
    expect(back.slice(0, live).filter((e) => e.type === 'field')).toHaveLength(8);
    expect(back.slice(live, live + 2).map((e) => e.type)).toEqual(['connection', 'dump']);
    expect(back.slice(0, live).every((e) => e.at > anchor.lastAt && e.at < back[live]!.at)).toBe(true);
    // The engine reads the game from them, each move as played, not as a jump.
    const engine = new GameEngine({ rules: STANDARD_2018, chess960: false, timeControl: { incrementMs: 0 } });
    for (const e of [...seen, ...back]) engine.push(e);
    const moves = engine.snapshot().moves;
    expect(moves.map((m) => m.san)).toEqual(['e4', 'e5', 'Nf3', 'Nc6', 'Bb5', 'a6']);
    expect(engine.snapshot().incidents.filter((i) => i.kind === 'missed-moves')).toEqual([]);
    // Every press of the gap carries the log's time at it; the side that had not pressed since the
    // host's last reading keeps that reading's time (its clock stood).
    const logged = back.filter((e) => e.type === 'clock' && e.logged === true);
    expect(logged).toHaveLength(4);
    expect(moves.slice(2).map((m) => m.clockAfter)).toEqual(logged.map((e) => (e.type === 'clock' ? { whiteMs: e.whiteMs, blackMs: e.blackMs } : null)));
  });

  it('gives a board the table has never seen its game since power-up, from the start position', async () => {
    const timers = new ManualTimers();
    const board = new BoardEmulator({ serial: '01026', busMode: true, clock: { baseMs: 300_000, incrementMs: 0 } });
    const port = new EmulatedMockPort(new EmulatedBus([board]), () => timers.now());
    timers.onAdvance = (now) => port.tick(now);
    const pos = Chess.default();
    const g = gameActions(pos, ['d4', 'Nf6', 'c4'], 1_000, { press: true });
    for (const a of g.actions) board.act(a);
    await timers.advance(g.end + 1_000, 50);
    const events: BusEvent[] = [];
    const s = new BusSession({ transport: serialTransportFactory(port.path, port.factory), timers, pollIntervalMs: 2_000, catchUp: () => 'unknown' });
    s.on((e) => events.push(e));
    s.start();
    await settle();
    await timers.advance(5_000, 20);
    await s.stop();
    expect(events.find((e) => e.type === 'catch-up')).toMatchObject({ outcome: 'caught-up', how: 'from-start', fields: 6 });
    const engine = new GameEngine({ rules: STANDARD_2018, chess960: false });
    for (const e of events) if (e.type === 'board') engine.push(e.event);
    expect(engine.snapshot().moves.map((m) => m.san)).toEqual(['d4', 'Nf6', 'c4']);
  });
});
