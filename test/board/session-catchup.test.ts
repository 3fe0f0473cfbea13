import { afterEach, describe, expect, it } from 'vitest';
import { Chess } from 'chessops/chess';
import type { BoardEvent } from '../../protocols/board-events.ts';
import type { CatchUpAnchor } from '../../protocols/dgt/ee-catchup.ts';
import { encodeMessage, type PieceCode } from '../../protocols/dgt/index.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { standardStartBoard } from '../../daemon/simulation/emulator/tabletop.ts';
import type { PhysicalAction } from '../../daemon/simulation/emulator/physical.ts';
import { BoardSession, type BoardSessionOptions, type SessionEvent } from '../../daemon/board/session.ts';
import { clockEvent } from '../../daemon/board/clock-sides.ts';
import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import { serialTransportFactory } from '../../daemon/transport/serial-transport.ts';
import { LONG_GAME, gameActions } from './catchup-helpers.ts';
import { EmulatedMockPort, ManualTimers, settle } from './helpers.ts';

const SEND_EE_MOVES = 0x49;

/**
 * What the runtime hands the session: the board, last fields and last time of the stream it
 * stored for this table (here: every board event the session emitted so far).
 */
function storedAnchor(events: readonly BoardEvent[]): CatchUpAnchor | null {
  let board: PieceCode[] | null = null;
  const fields: { field: number; piece: PieceCode }[] = [];
  for (const e of events) {
    if (e.type === 'dump') board = e.board.slice();
    if (e.type === 'field') {
      if (board) board[e.field] = e.piece;
      fields.push({ field: e.field, piece: e.piece });
    }
  }
  if (!board) return null;
  return { board, recentFields: fields.slice(-16), lastAt: events.at(-1)!.at };
}

interface Rig {
  timers: ManualTimers;
  emulator: BoardEmulator;
  port: EmulatedMockPort;
  session: BoardSession;
  events: SessionEvent[];
  board(): BoardEvent[];
}

const sessions: BoardSession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.stop();
});

function rig(opts: Partial<BoardSessionOptions> = {}, setUp?: PieceCode[], clock: { baseMs: number; incrementMs: number } | null = { baseMs: 600_000, incrementMs: 0 }): Rig {
  const emulator = new BoardEmulator({ serial: '31415', clock, ...(setUp ? { board: setUp } : {}) });
  const timers = new ManualTimers();
  const port = new EmulatedMockPort(emulator, () => timers.now());
  timers.onAdvance = (now) => port.tick(now);
  const events: SessionEvent[] = [];
  const board = (): BoardEvent[] => events.flatMap((e) => (e.type === 'board' ? [e.event] : []));
  const session = new BoardSession({
    transport: serialTransportFactory(port.path, port.factory),
    timers,
    reconnectBaseMs: 500,
    reconnectMaxMs: 2_000,
    // Long enough not to interfere: drift is not what these tests are about.
    dumpIntervalMs: 600_000,
    catchUp: () => storedAnchor(board()),
    ...opts,
  });
  sessions.push(session);
  session.on((e) => events.push(e));
  return { timers, emulator, port, session, events, board };
}

/**
 * Plays actions at their times on the session's clock, letting the session read as it goes.
 * Returns the clock's reading (white, black ms as the face shows them) right after each press.
 */
async function perform(r: Rig, actions: readonly PhysicalAction[]): Promise<{ whiteMs: number; blackMs: number }[]> {
  const readings: { whiteMs: number; blackMs: number }[] = [];
  for (const a of actions) {
    const wait = a.at - r.timers.now();
    if (wait > 0) await r.timers.advance(wait, 250);
    r.emulator.act({ ...a, at: r.timers.now() } as PhysicalAction);
    if (a.kind === 'press') {
      const c = clockEvent(r.emulator.clockTimes(), 'left', 0)!;
      readings.push({ whiteMs: c.whiteMs, blackMs: c.blackMs });
    }
  }
  await r.timers.advance(50);
  return readings;
}

async function play(r: Rig, pos: Chess, sans: readonly string[], stepMs = 300): Promise<{ whiteMs: number; blackMs: number }[]> {
  return perform(r, gameActions(pos, sans, r.timers.now() + 1_000, { press: true, stepMs }).actions);
}

/** The link to the board goes (its device node with it) while the board keeps its power and logs on. */
async function unplug(r: Rig): Promise<void> {
  r.emulator.act({ kind: 'link-down', at: r.timers.now() });
  r.port.remove();
  await settle();
  await r.timers.advance(100);
}

async function plugBack(r: Rig, waitMs: number): Promise<void> {
  r.emulator.act({ kind: 'link-up', at: r.timers.now() });
  r.port.recreate();
  await r.timers.advance(waitMs, 100);
}

function reconstruct(events: readonly BoardEvent[]): { sans: string[]; incidents: string[] } {
  const engine = new GameEngine({ rules: { edition: '2018', category: 'standard' } });
  for (const e of events) engine.push(e);
  const snap = engine.snapshot();
  return { sans: snap.moves.map((m) => m.san), incidents: snap.incidents.map((i) => i.kind) };
}

/** Drops EE_MOVES messages from the board's output: a board (or firmware) that ignores SEND_EE_MOVES. */
function withoutLog(bytes: Uint8Array, kept?: number[]): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < bytes.length;) {
    if (bytes[i] === 0x8f && i + 2 < bytes.length) {
      const size = (bytes[i + 1]! << 7) | bytes[i + 2]!;
      kept?.push(...bytes.subarray(i, i + size));
      i += size;
      continue;
    }
    out.push(bytes[i]!);
    i++;
  }
  return Uint8Array.from(out);
}

describe('BoardSession catch-up from the EEPROM log', () => {
  it('recovers 22 plies played while the link was down, with the clock times the log holds: the engine ends with exactly the game', async () => {
    const r = rig();
    r.session.start();
    await settle();
    await r.timers.advance(50);
    expect(r.session.state).toBe('live');
    // The first connect has no stored stream: no log is read.
    expect(r.port.written).not.toContain(SEND_EE_MOVES);

    const pos = Chess.default();
    await play(r, pos, LONG_GAME.slice(0, 8));
    const anchor = storedAnchor(r.board())!;
    await unplug(r);
    expect(r.session.state).not.toBe('live');
    const before = r.board().length;
    const pressed = await play(r, pos, LONG_GAME.slice(8, 30));
    expect(r.board().length).toBe(before); // the session saw nothing of them
    const opens = r.port.opens;
    await plugBack(r, 3_000);
    expect(r.port.opens).toBe(opens + 1);
    expect(r.session.state).toBe('live');
    await play(r, pos, LONG_GAME.slice(30));

    // The log was asked for once, and its frame kept with its exact bytes.
    expect(r.port.written.filter((b) => b === SEND_EE_MOVES)).toHaveLength(1);
    const logFrame = r.events.find((e) => e.type === 'frame' && e.message.type === 'ee-moves');
    if (logFrame?.type !== 'frame' || logFrame.message.type !== 'ee-moves') throw new Error('no EE_MOVES frame');
    expect([...logFrame.raw]).toEqual([...encodeMessage(logFrame.message)]);
    // The board logged the moves it saw while the link was down (it kept its power).
    expect(logFrame.message.entries.filter((e) => e.type === 'field-update').length).toBeGreaterThan(32 + 8 * 2 + 22 * 2);

    const report = r.events.find((e) => e.type === 'catch-up');
    expect(report).toMatchObject({ outcome: 'caught-up', how: 'anchored', matched: 16 });
    const n = report?.type === 'catch-up' ? report.fields : 0;
    expect(n).toBeGreaterThanOrEqual(22 * 2);

    // After the loss: n caught-up field events and the 22 presses' clock readings, then the
    // connection and the held dump.
    const b = r.board();
    const lost = b.findIndex((e) => e.type === 'connection' && !e.connected);
    const back = b.findIndex((e, i) => i > lost && e.type === 'connection' && e.connected);
    const caught = b.slice(lost + 1, back);
    expect(caught.filter((e) => e.type === 'field')).toHaveLength(n);
    expect(caught.every((e) => e.type === 'field' || e.type === 'clock')).toBe(true);
    // Every press's reading is the clock's own at that press (the log's halted times), not an estimate.
    const readings = caught.flatMap((e) => (e.type === 'clock' ? [{ whiteMs: e.whiteMs, blackMs: e.blackMs }] : []));
    expect(readings).toEqual(pressed);
    expect(pressed).toHaveLength(22);
    const dump = b[back + 1]!;
    expect(dump.type).toBe('dump');
    const times = [anchor.lastAt, ...caught.map((e) => e.at), dump.at];
    for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThan(times[i - 1]!);
    // The dump event keeps the time its frame came in; the log came after it.
    const dumpFrames = r.events.flatMap((e) => (e.type === 'frame' && e.message.type === 'board-dump' ? [e] : []));
    expect(dumpFrames.at(-1)!.at).toBe(dump.at);
    expect(logFrame.at).toBeGreaterThanOrEqual(dump.at);

    const game = reconstruct(b);
    expect(game.sans).toEqual(LONG_GAME);
    expect(game.incidents.filter((k) => k !== 'board-disconnected' && k !== 'board-resynchronised')).toEqual([]);
    expect(r.session.board).toEqual(r.emulator.board());
  });

  it('recovers fast hands (quick log entries) and moves made while the daemon was down', async () => {
    const r = rig();
    r.session.start();
    await settle();
    await r.timers.advance(50);
    const pos = Chess.default();
    await play(r, pos, LONG_GAME.slice(0, 10), 60);
    // The daemon goes away; the board stays powered and keeps streaming to no one.
    await r.session.stop();
    const stored = r.board();
    await play(r, pos, LONG_GAME.slice(10, 24), 60);
    const fresh = new BoardSession({
      transport: serialTransportFactory(r.port.path, r.port.factory),
      timers: r.timers,
      dumpIntervalMs: 600_000,
      catchUp: () => storedAnchor(stored),
    });
    sessions.push(fresh);
    const events: SessionEvent[] = [];
    fresh.on((e) => events.push(e));
    fresh.start();
    await settle();
    await r.timers.advance(100);
    expect(fresh.state).toBe('live');
    await play(r, pos, LONG_GAME.slice(24), 60);
    const report = events.find((e) => e.type === 'catch-up');
    expect(report).toMatchObject({ outcome: 'caught-up', how: 'anchored' });
    const log = events.find((e) => e.type === 'frame' && e.message.type === 'ee-moves');
    expect(log?.type === 'frame' && log.message.type === 'ee-moves' && log.message.entries.some((e) => e.type === 'field-update' && e.quick)).toBe(true);
    const restarted = events.flatMap((e) => (e.type === 'board' ? [e.event] : []));
    // The engine is rebuilt from the stored stream, then fed the new session's events.
    const game = reconstruct([...stored, ...restarted]);
    expect(game.sans).toEqual(LONG_GAME);
    expect(game.incidents.filter((k) => k !== 'board-disconnected' && k !== 'board-resynchronised')).toEqual([]);
  });

  it("a restarted host: every press of the gap keeps the log's time (the log's earlier presses tell the other side's)", async () => {
    const r = rig();
    r.session.start();
    await settle();
    await r.timers.advance(50);
    const pos = Chess.default();
    await perform(r, [{ kind: 'press', at: r.timers.now() + 500, by: 'black' }]);
    await play(r, pos, LONG_GAME.slice(0, 4));
    await r.session.stop();
    const stored = r.board();
    const lastClock = stored.findLast((e) => e.type === 'clock') as Extract<BoardEvent, { type: 'clock' }>;
    const pressed = await play(r, pos, LONG_GAME.slice(4, 8));
    // A new process: it has read nothing; the anchor is the stored events', with their last reading.
    const fresh = new BoardSession({
      transport: serialTransportFactory(r.port.path, r.port.factory),
      timers: r.timers,
      dumpIntervalMs: 600_000,
      catchUp: () => ({ ...storedAnchor(stored)!, lastClock }),
    });
    sessions.push(fresh);
    const events: SessionEvent[] = [];
    fresh.on((e) => events.push(e));
    fresh.start();
    await settle();
    await r.timers.advance(100);
    const engine = new GameEngine({ rules: { edition: '2018', category: 'standard' } });
    for (const e of [...stored, ...events.flatMap((x) => (x.type === 'board' ? [x.event] : []))]) engine.push(e);
    const moves = engine.snapshot().moves;
    expect(moves.map((m) => m.san)).toEqual(LONG_GAME.slice(0, 8));
    expect(moves.slice(4).map((m) => m.clockAfter)).toEqual(pressed);
  });

  it('goes live on the dump without a log when the board does not answer SEND_EE_MOVES', async () => {
    const r = rig({ catchUpTimeoutMs: 3_000 });
    r.port.tamper = withoutLog;
    r.session.start();
    await settle();
    await r.timers.advance(50);
    const pos = Chess.default();
    await play(r, pos, LONG_GAME.slice(0, 6));
    await unplug(r);
    await play(r, pos, LONG_GAME.slice(6, 8)); // two plies: the engine's own search finds them
    await plugBack(r, 1_500);
    expect(r.port.written).toContain(SEND_EE_MOVES);
    expect(r.session.state).toBe('handshaking');
    // Moves made while the session waits are kept and come after the dump.
    await play(r, pos, LONG_GAME.slice(8, 9));
    await r.timers.advance(3_000, 100);
    expect(r.session.state).toBe('live');
    expect(r.events.find((e) => e.type === 'catch-up')).toMatchObject({ outcome: 'no-answer', fields: 0 });
    await play(r, pos, LONG_GAME.slice(9, 12));

    const b = r.board();
    const lost = b.findIndex((e) => e.type === 'connection' && !e.connected);
    expect(b.slice(lost + 1, lost + 3).map((e) => e.type)).toEqual(['connection', 'dump']);
    const dumpAt = b[lost + 2]!.at;
    expect(b.slice(lost + 3).every((e) => e.at >= dumpAt)).toBe(true);
    expect(b.slice(lost + 3).some((e) => e.type === 'field')).toBe(true);
    const game = reconstruct(b);
    expect(game.sans).toEqual(LONG_GAME.slice(0, 12));
    expect(game.incidents).toContain('missed-moves');
    expect(r.session.board).toEqual(r.emulator.board());
  });

  it('waits for a long log that trickles in at serial speed, beyond the bare answer timeout', async () => {
    const r = rig({ catchUpTimeoutMs: 3_000 });
    // A knight fidgeted with before the game: the log is full (0x1f00 bytes, 8 s at 9600 baud).
    for (let i = 0; i < 2_000; i++) {
      r.emulator.act({ kind: 'lift', at: 0, field: 62 });
      r.emulator.act({ kind: 'place', at: 0, field: 62, piece: 3 });
    }
    const log: number[] = [];
    r.port.tamper = (bytes) => withoutLog(bytes, log);
    r.session.start();
    await settle();
    await r.timers.advance(50);
    const pos = Chess.default();
    await play(r, pos, LONG_GAME.slice(0, 4));
    await unplug(r);
    await play(r, pos, LONG_GAME.slice(4, 12));
    await plugBack(r, 1_000);
    expect(r.session.state).toBe('handshaking');
    expect(log.length).toBeGreaterThan(0x1f00);
    // The header and a first part now, the rest 6 s later, as the serial line carries it; what the
    // board has to say meanwhile waits until the message is through.
    const queued: number[] = [];
    r.port.tamper = (bytes) => {
      queued.push(...bytes);
      return new Uint8Array(0);
    };
    r.port.inject(log.slice(0, 50));
    await r.timers.advance(6_000, 100);
    expect(r.session.state).toBe('handshaking');
    r.port.inject(log.slice(50));
    r.port.inject(queued);
    r.port.tamper = null;
    await r.timers.advance(100);
    expect(r.session.state).toBe('live');
    expect(r.events.find((e) => e.type === 'catch-up')).toMatchObject({ outcome: 'caught-up', how: 'anchored' });
    expect(reconstruct(r.board()).sans).toEqual(LONG_GAME.slice(0, 12));
  });

  it('reads no log when the board comes back as the host left it, nor without the option', async () => {
    const r = rig();
    r.session.start();
    await settle();
    await r.timers.advance(50);
    await play(r, Chess.default(), LONG_GAME.slice(0, 2));
    await unplug(r);
    await plugBack(r, 3_000);
    expect(r.session.state).toBe('live');
    expect(r.port.written).not.toContain(SEND_EE_MOVES);
    expect(r.events.some((e) => e.type === 'catch-up')).toBe(false);

    const plain = rig({ catchUp: undefined });
    plain.session.start();
    await settle();
    await plain.timers.advance(50);
    const pos = Chess.default();
    await play(plain, pos, LONG_GAME.slice(0, 2));
    await unplug(plain);
    await play(plain, pos, LONG_GAME.slice(2, 4));
    await plugBack(plain, 3_000);
    expect(plain.session.state).toBe('live');
    expect(plain.port.written).not.toContain(SEND_EE_MOVES);
  });

  it('takes the game since the last set-up when the stored board is from another game', async () => {
    const r = rig({
      // A stored board from another game (yesterday's): the board has been set up since.
      catchUp: () => ({ board: new Array<PieceCode>(64).fill(9 as PieceCode), recentFields: [], lastAt: 0 }),
    });
    await play(r, Chess.default(), ['e4', 'c5', 'Nf3']);
    r.session.start();
    await settle();
    await r.timers.advance(3_000, 100);
    expect(r.session.state).toBe('live');
    expect(r.events.find((e) => e.type === 'catch-up')).toMatchObject({ outcome: 'caught-up', how: 'from-start' });
    expect(r.board()[0]).toMatchObject({ type: 'dump', board: standardStartBoard() });
    const engine = new GameEngine({ rules: { edition: '2018', category: 'standard' } });
    for (const e of r.board()) engine.push(e);
    expect(engine.snapshot().moves.map((m) => m.san)).toEqual(['e4', 'c5', 'Nf3']);
  });

  it("keeps to the host's game when it stopped with a piece in the hand (a board the log never shows)", async () => {
    let anchor: CatchUpAnchor | null = null;
    const r = rig({ catchUp: () => anchor });
    r.session.start();
    await settle();
    await r.timers.advance(50);
    const pos = Chess.default();
    await play(r, pos, LONG_GAME.slice(0, 8));
    const stored = storedAnchor(r.board())!;
    // The host's last event: a1's rook lifted, then the link lost before it was put back.
    const board = stored.board.slice();
    board[56] = 0 as PieceCode;
    anchor = { ...stored, board, recentFields: [...stored.recentFields.slice(1), { field: 56, piece: 0 as PieceCode }] };
    await unplug(r);
    await play(r, pos, LONG_GAME.slice(8, 10));
    await plugBack(r, 3_000);
    const report = r.events.find((e) => e.type === 'catch-up');
    // Not a new game from the set-up: the log's game holds the host's last changes.
    expect(report).toBeDefined();
    expect(report).not.toMatchObject({ how: 'from-start' });
  });

  it('reports a log that does not explain the dump and goes live on it', async () => {
    // A stored board from another game, and a board that has shown no start position since it
    // powered up (e2 empty from the first): nothing in its log leads to the dump.
    const odd = standardStartBoard();
    odd[52] = 0 as PieceCode;
    const r = rig({ catchUp: () => ({ board: new Array<PieceCode>(64).fill(9 as PieceCode), recentFields: [], lastAt: 0 }) }, odd);
    r.session.start();
    await settle();
    await r.timers.advance(50);
    expect(r.session.state).toBe('live');
    expect(r.events.find((e) => e.type === 'catch-up')).toMatchObject({ outcome: 'failed', detail: expect.stringMatching(/square/) });
    expect(r.board().map((e) => e.type)).toEqual(['connection', 'dump']);
  });

  it('a power blip with the serial link kept open (board idle, clock running): silent within 4 s, hand-shaken again, the idle moves caught up with their clock times', async () => {
    const r = rig();
    r.session.start();
    await settle();
    await r.timers.advance(50);
    const pos = Chess.default();
    await play(r, pos, LONG_GAME.slice(0, 10));
    r.emulator.act({ kind: 'power-off', at: r.timers.now() });
    await r.timers.advance(800, 100);
    r.emulator.act({ kind: 'power-on', at: r.timers.now() });
    expect(r.emulator.mode).toBe('idle');
    const blipAt = r.timers.now();
    // The players play on; the board logs but, idle, sends nothing. Its clock goes quiet too.
    const pressed = await play(r, pos, LONG_GAME.slice(10, 12), 300);
    const silent = r.events.find((e) => e.type === 'state' && e.state === 'silent');
    if (silent?.type !== 'state') throw new Error('the session never found the board silent');
    expect(silent.at - blipAt).toBeLessThanOrEqual(4_000 + 1_000);
    await r.timers.advance(3_000, 100);
    expect(r.session.state).toBe('live');
    expect(r.emulator.mode).toBe('update-nice');
    await play(r, pos, LONG_GAME.slice(12, 20));
    const game = reconstruct(r.board());
    expect(game.sans).toEqual(LONG_GAME.slice(0, 20));
    expect(game.incidents.filter((k) => k !== 'board-disconnected' && k !== 'board-resynchronised')).toEqual([]);
    // The presses made while the board was idle reached the engine with the clock's own readings.
    const clocks = r.board().filter((e) => e.type === 'clock');
    for (const p of pressed) expect(clocks.some((c) => c.type === 'clock' && c.whiteMs === p.whiteMs && c.blackMs === p.blackMs)).toBe(true);
  });

  it('a power blip with the link kept open and no clock: the next periodic dump differs, the session is out of step and catches up', async () => {
    const r = rig({ dumpIntervalMs: 10_000 }, undefined, null);
    r.session.start();
    await settle();
    await r.timers.advance(50);
    const pos = Chess.default();
    await perform(r, gameActions(pos, LONG_GAME.slice(0, 6), r.timers.now() + 1_000).actions);
    const blip = r.timers.now();
    r.emulator.act({ kind: 'power-off', at: blip });
    await r.timers.advance(500, 100);
    r.emulator.act({ kind: 'power-on', at: r.timers.now() });
    await perform(r, gameActions(pos, LONG_GAME.slice(6, 10), r.timers.now() + 500).actions);
    await r.timers.advance(12_000, 250);
    const outOfStep = r.events.find((e) => e.type === 'state' && e.state === 'out-of-step');
    if (outOfStep?.type !== 'state') throw new Error('the session never went out of step');
    // Within one dump period of the blip (and of the first idle move).
    expect(outOfStep.at - blip).toBeLessThanOrEqual(10_000 + 10_000);
    expect(r.session.state).toBe('live');
    expect(r.events.find((e) => e.type === 'catch-up')).toMatchObject({ outcome: 'caught-up' });
    await perform(r, gameActions(pos, LONG_GAME.slice(10, 14), r.timers.now() + 1_000).actions);
    expect(reconstruct(r.board()).sans).toEqual(LONG_GAME.slice(0, 14));
    expect(r.session.board).toEqual(r.emulator.board());
  });
});
