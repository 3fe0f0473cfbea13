import { afterEach, describe, expect, it } from 'vitest';
import { Chess } from 'chessops/chess';
import type { BoardEvent } from '../../protocols/board-events.ts';
import type { PieceCode } from '../../protocols/dgt/index.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import type { PhysicalAction } from '../../daemon/simulation/emulator/physical.ts';
import { standardStartBoard } from '../../daemon/simulation/emulator/tabletop.ts';
import { BoardSession, type BoardSessionOptions, type SessionEvent } from '../../daemon/board/session.ts';
import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import { serialTransportFactory } from '../../daemon/transport/serial-transport.ts';
import { LONG_GAME, gameActions } from './catchup-helpers.ts';
import { EmulatedMockPort, ManualTimers, settle } from './helpers.ts';

const SEND_EE_MOVES = 0x49;

interface Rig {
  timers: ManualTimers;
  emulator: BoardEmulator;
  port: EmulatedMockPort;
  events: SessionEvent[];
  board(): BoardEvent[];
  /** Made on first use: the board plays on its own before any host reads it. */
  session(opts?: Partial<BoardSessionOptions>): BoardSession;
}

const sessions: BoardSession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.stop();
});

function rig(board?: PieceCode[]): Rig {
  const emulator = new BoardEmulator({ serial: '27182', clock: { baseMs: 600_000, incrementMs: 0 }, ...(board ? { board } : {}) });
  const timers = new ManualTimers();
  const port = new EmulatedMockPort(emulator, () => timers.now());
  timers.onAdvance = (now) => port.tick(now);
  const events: SessionEvent[] = [];
  return {
    timers,
    emulator,
    port,
    events,
    board: () => events.flatMap((e) => (e.type === 'board' ? [e.event] : [])),
    session: (opts = {}) => {
      const session = new BoardSession({
        transport: serialTransportFactory(port.path, port.factory),
        timers,
        dumpIntervalMs: 600_000,
        // The runtime's answer for a table whose store holds no event of this board.
        catchUp: () => 'unknown',
        ...opts,
      });
      sessions.push(session);
      session.on((e) => events.push(e));
      return session;
    },
  };
}

async function perform(r: Rig, actions: readonly PhysicalAction[]): Promise<void> {
  for (const a of actions) {
    const wait = a.at - r.timers.now();
    if (wait > 0) await r.timers.advance(wait, 250);
    r.emulator.act({ ...a, at: r.timers.now() } as PhysicalAction);
  }
  await r.timers.advance(50);
}

async function play(r: Rig, pos: Chess, sans: readonly string[]): Promise<void> {
  await perform(r, gameActions(pos, sans, r.timers.now() + 1_000, { press: true, stepMs: 300 }).actions);
}

function reconstruct(events: readonly BoardEvent[]): { sans: string[]; incidents: string[] } {
  const engine = new GameEngine({ rules: { edition: '2018', category: 'standard' } });
  for (const e of events) engine.push(e);
  const snap = engine.snapshot();
  return { sans: snap.moves.map((m) => m.san), incidents: snap.incidents.map((i) => i.kind) };
}

async function connect(r: Rig, session: BoardSession): Promise<void> {
  session.start();
  await settle();
  await r.timers.advance(3_000, 100);
  expect(session.state).toBe('live');
}

describe('BoardSession meeting a board it has never seen', () => {
  it('recovers the 20 plies played before the first connect: the engine ends with exactly them, then plays on', async () => {
    const r = rig();
    const pos = Chess.default();
    await play(r, pos, LONG_GAME.slice(0, 20)); // en passant, promotion, castling, captures
    expect(r.port.opens).toBe(0);
    const session = r.session();
    await connect(r, session);

    expect(r.port.written.filter((b) => b === SEND_EE_MOVES)).toHaveLength(1);
    const report = r.events.find((e) => e.type === 'catch-up');
    expect(report).toMatchObject({ outcome: 'caught-up', how: 'from-start', matched: 0 });
    const n = report?.type === 'catch-up' ? report.fields : 0;
    expect(n).toBeGreaterThanOrEqual(40);

    // The start position, the changes since, then (as on any connect) the connection and the dump.
    const b = r.board();
    expect(b[0]).toMatchObject({ type: 'dump', board: standardStartBoard() });
    expect(b.slice(1, 1 + n).every((e) => e.type === 'field')).toBe(true);
    expect(b[1 + n]).toMatchObject({ type: 'connection', connected: true });
    const dump = b[2 + n]!;
    expect(dump).toMatchObject({ type: 'dump', board: r.emulator.board() });
    const times = b.slice(0, 1 + n).map((e) => e.at);
    times.push(dump.at);
    for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThan(times[i - 1]!);
    // The dump keeps the time its frame came in.
    const dumpFrames = r.events.flatMap((e) => (e.type === 'frame' && e.message.type === 'board-dump' ? [e.at] : []));
    expect(dumpFrames[0]).toBe(dump.at);

    const caught = reconstruct(b);
    expect(caught.sans).toEqual(LONG_GAME.slice(0, 20));
    expect(caught.incidents).toEqual([]);

    await play(r, pos, LONG_GAME.slice(20, 24));
    expect(reconstruct(r.board()).sans).toEqual(LONG_GAME.slice(0, 24));
    expect(session.board).toEqual(r.emulator.board());
  });

  it('reads no log when the board it meets stands in a start position, either way round', async () => {
    for (const board of [standardStartBoard(), standardStartBoard().reverse()]) {
      const r = rig(board);
      const session = r.session();
      await connect(r, session);
      expect(r.port.written).not.toContain(SEND_EE_MOVES);
      expect(r.events.some((e) => e.type === 'catch-up')).toBe(false);
      expect(r.board().flatMap((e) => (e.type === 'clock' ? [] : [e.type]))).toEqual(['connection', 'dump']);
      await play(r, Chess.default(), []);
      await session.stop();
    }
    // And a board met in a start position, then played on: the game comes from the live stream.
    const r = rig();
    await connect(r, r.session());
    await play(r, Chess.default(), LONG_GAME.slice(0, 6));
    expect(reconstruct(r.board()).sans).toEqual(LONG_GAME.slice(0, 6));
  });

  it('reports a log without a start and goes live on the dump', async () => {
    // Powered up in the middle of a game: no start position anywhere in its log.
    const mid = Chess.default();
    const other = rig();
    await play(other, mid, LONG_GAME.slice(0, 8));
    const r = rig(other.emulator.board());
    await play(r, mid, LONG_GAME.slice(8, 10));
    await connect(r, r.session());
    expect(r.port.written).toContain(SEND_EE_MOVES);
    expect(r.events.find((e) => e.type === 'catch-up')).toMatchObject({ outcome: 'failed', fields: 0, detail: expect.stringMatching(/no start position/) });
    expect(r.board().flatMap((e) => (e.type === 'clock' ? [] : [e.type]))).toEqual(['connection', 'dump']);
  });
});
