import { afterEach, describe, expect, it } from 'vitest';
import type { BoardEvent } from '../../protocols/board-events.ts';
import { PIECE, encodeClockCommand, encodeMessage } from '../../protocols/dgt/index.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { BoardSession, ClockCommandError, type BoardSessionOptions, type SessionEvent } from '../../daemon/board/session.ts';
import { serialTransportFactory } from '../../daemon/transport/serial-transport.ts';
import { EmulatedMockPort, ManualTimers, settle } from './helpers.ts';

const HANDSHAKE = [0x40, 0x45, 0x55, 0x4d, 0x42, 0x4b];
const E2 = 52;
const E4 = 36;

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

function rig(opts: Partial<BoardSessionOptions> = {}, emulator = new BoardEmulator({ serial: '12345', version: { major: 1, minor: 9 } })): Rig {
  const timers = new ManualTimers();
  const port = new EmulatedMockPort(emulator, () => timers.now());
  timers.onAdvance = (now) => port.tick(now);
  const session = new BoardSession({ transport: serialTransportFactory(port.path, port.factory), timers, ...opts });
  sessions.push(session);
  const events: SessionEvent[] = [];
  session.on((e) => events.push(e));
  return {
    timers,
    emulator,
    port,
    session,
    events,
    board: () => events.flatMap((e) => (e.type === 'board' ? [e.event] : [])),
  };
}

function countSeq(haystack: readonly number[], needle: readonly number[]): number {
  let n = 0;
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    n++;
  }
  return n;
}

async function started(r: Rig): Promise<void> {
  r.session.start();
  await settle();
  await r.timers.advance(50);
}

describe('BoardSession over the mock binding with the board emulator', () => {
  it('handshakes with exactly RESET, serial, long serial, version, dump, UPDATE_NICE and goes live', async () => {
    const r = rig();
    await started(r);
    expect(r.port.written.slice(0, 6)).toEqual(HANDSHAKE);
    expect(r.session.state).toBe('live');
    expect(r.emulator.mode).toBe('update-nice');
    const states = r.events.flatMap((e) => (e.type === 'state' ? [e.state] : []));
    expect(states).toEqual(['connecting', 'handshaking', 'live']);
    const b = r.board();
    expect(b[0]).toEqual({ type: 'connection', at: expect.any(Number), connected: true });
    expect(b[1]).toMatchObject({ type: 'dump', board: r.emulator.board() });
    expect(r.session.serialNumber).toBe('0000012345');
    expect(r.events.filter((e) => e.type === 'serial').map((e) => (e.type === 'serial' ? [e.serial, e.long] : []))).toEqual([
      ['12345', false],
      ['0000012345', true],
    ]);
    expect(r.events.find((e) => e.type === 'version')).toMatchObject({ major: 1, minor: 9 });
    // Every decoded frame comes with the exact bytes it was decoded from.
    const dumpFrame = r.events.find((e) => e.type === 'frame' && e.message.type === 'board-dump');
    expect(dumpFrame?.type === 'frame' && [...dumpFrame.raw]).toEqual([...encodeMessage({ type: 'board-dump', board: r.emulator.board() })]);
  });

  it('turns field updates into field events and keeps the tracked board', async () => {
    const r = rig();
    await started(r);
    const t = r.timers.now();
    r.emulator.act({ kind: 'lift', at: t, field: E2 });
    r.emulator.act({ kind: 'place', at: t + 10, field: E4, piece: PIECE.WPAWN });
    await r.timers.advance(50);
    const fields = r.board().filter((e) => e.type === 'field');
    expect(fields.map((e) => (e.type === 'field' ? [e.field, e.piece] : []))).toEqual([
      [E2, PIECE.EMPTY],
      [E4, PIECE.WPAWN],
    ]);
    expect(r.session.board).toEqual(r.emulator.board());
  });

  it.each(['left', 'right'] as const)('resolves clock sides to colours with White on the %s', async (side) => {
    const emulator = new BoardEmulator({ serial: '00007', whiteOnClock: side, clock: { baseMs: 300_000, incrementMs: 0 } });
    const r = rig({ whiteOnClock: side }, emulator);
    await started(r);
    // Black presses to start White's clock (the usual start), then White moves and presses.
    emulator.act({ kind: 'press', at: r.timers.now(), by: 'black' });
    await r.timers.advance(3_000, 250);
    emulator.act({ kind: 'press', at: r.timers.now(), by: 'white' });
    await r.timers.advance(2_000, 250);
    const clocks = r.board().filter((e) => e.type === 'clock');
    expect(clocks.length).toBeGreaterThan(2);
    const whiteRunning = clocks.filter((c) => c.type === 'clock' && c.running === 'white');
    const blackRunning = clocks.filter((c) => c.type === 'clock' && c.running === 'black');
    expect(whiteRunning.length).toBeGreaterThan(0);
    expect(blackRunning.length).toBeGreaterThan(0);
    const last = clocks.at(-1)!;
    // White used about 3 s, Black about 2 s: the colour with less time left is White.
    expect(last).toMatchObject({ running: 'black', whiteFlag: false, blackFlag: false });
    if (last.type !== 'clock') throw new Error('not a clock event');
    expect(last.whiteMs).toBeLessThan(last.blackMs);
    expect(last.whiteMs).toBeLessThanOrEqual(297_000);
    expect(last.blackMs).toBeGreaterThanOrEqual(297_000);
  });

  it('sends clock commands one at a time, each waiting for its ACK', async () => {
    const r = rig({ clockAckTimeoutMs: 2_000 });
    await started(r);
    const before = r.port.written.length;
    const beep = r.session.sendClock({ type: 'beep', units: 2 });
    const text = r.session.sendClock({ type: 'ascii', text: 'HELLO   ', beep: 0 });
    await r.timers.advance(100);
    const ackBeep = await beep;
    const ackText = await text;
    expect(ackBeep).toMatchObject({ kind: 'command', ackedCommand: 0x0b, error: false });
    expect(ackText).toMatchObject({ kind: 'command', ackedCommand: 0x0c, error: false });
    const sent = r.port.written.slice(before);
    const beepBytes = [...encodeClockCommand({ type: 'beep', units: 2 })];
    const textBytes = [...encodeClockCommand({ type: 'ascii', text: 'HELLO   ', beep: 0 })];
    expect(sent).toEqual([...beepBytes, ...textBytes]);
    expect(r.emulator.clockDisplay()).toMatchObject({ kind: 'text', text: 'HELLO   ' });
  });

  it('times a clock command out when no ACK comes, then moves on to the next', async () => {
    const emulator = new BoardEmulator({ serial: '00042', clock: null });
    const r = rig({ clockAckTimeoutMs: 2_000 }, emulator);
    await started(r);
    const before = r.port.written.length;
    const first = r.session.sendClock({ type: 'beep', units: 1 });
    const second = r.session.sendClock({ type: 'end' });
    const firstResult = first.catch((e: unknown) => e);
    const secondResult = second.catch((e: unknown) => e);
    await r.timers.advance(1_000);
    // Only the first is on the wire while it waits for its ACK.
    expect(r.port.written.slice(before).filter((b) => b === 0x2b)).toHaveLength(1);
    await r.timers.advance(1_100);
    const err = await firstResult;
    expect(err).toBeInstanceOf(ClockCommandError);
    expect((err as ClockCommandError).reason).toBe('timeout');
    expect(r.port.written.slice(before).filter((b) => b === 0x2b)).toHaveLength(2);
    await r.timers.advance(2_100);
    expect(((await secondResult) as ClockCommandError).reason).toBe('timeout');
  });

  it('asks for a full dump periodically; one that differs from the tracked board puts the session out of step and it hand-shakes again', async () => {
    const r = rig({ dumpIntervalMs: 30_000 });
    await started(r);
    const dumpsBefore = r.board().filter((e) => e.type === 'dump').length;
    // A field update the board never sent (line noise forming a valid frame): the tracked board drifts.
    r.port.inject(encodeMessage({ type: 'field-update', field: 27, piece: PIECE.BQUEEN }));
    await r.timers.advance(100);
    expect(r.session.board?.[27]).toBe(PIECE.BQUEEN);
    const handshakesBefore = countSeq(r.port.written, HANDSHAKE);
    await r.timers.advance(30_000, 1_000);
    expect(r.events.find((e) => e.type === 'drift')).toMatchObject({ fields: [27] });
    // Out of step: the differing dump is not passed on; live updates are turned on again and the
    // handshake's dump is.
    expect(countSeq(r.port.written, HANDSHAKE)).toBe(handshakesBefore + 1);
    const states = r.events.flatMap((e) => (e.type === 'state' ? [e.state] : []));
    expect(states).toEqual(['connecting', 'handshaking', 'live', 'out-of-step', 'live']);
    expect(r.events.find((e) => e.type === 'state' && e.state === 'out-of-step')).toMatchObject({ detail: expect.stringMatching(/differs .* 1 square/) });
    const b = r.board();
    expect(b.slice(-3).map((e) => e.type)).toEqual(['connection', 'connection', 'dump']);
    expect(b.filter((e) => e.type === 'dump').length).toBe(dumpsBefore + 1);
    expect(r.session.board).toEqual(r.emulator.board());
    expect(r.session.state).toBe('live');
    // In step again: the next periodic dump agrees and changes nothing.
    await r.timers.advance(30_000, 1_000);
    expect(r.board().filter((e) => e.type === 'dump').length).toBe(dumpsBefore + 2);
    expect(r.session.state).toBe('live');
  });

  it('gives up a link that stays open but stops answering the periodic dump', async () => {
    const r = rig({ dumpIntervalMs: 10_000, handshakeTimeoutMs: 2_000, reconnectBaseMs: 500 });
    await started(r);
    // The board goes silent (Bluetooth out of range) while the port stays open.
    r.emulator.act({ kind: 'link-down', at: r.timers.now() });
    await r.timers.advance(11_000, 500);
    expect(r.session.state).toBe('live');
    await r.timers.advance(1_500, 100);
    expect(r.events.find((e) => e.type === 'state' && e.state === 'retrying')).toMatchObject({
      detail: expect.stringMatching(/no answer to a board dump request/),
    });
    expect(
      r
        .board()
        .filter((e) => e.type === 'connection')
        .map((e) => (e.type === 'connection' ? e.connected : null)),
    ).toEqual([true, false]);
    // A retry may already be waiting for its handshake dump: allow it to time out once.
    r.emulator.act({ kind: 'link-up', at: r.timers.now() });
    await r.timers.advance(4_000, 100);
    expect(r.session.state).toBe('live');
    const events = r.board();
    const back = events.findLastIndex((e) => e.type === 'connection');
    expect(events[back]).toMatchObject({ connected: true });
    expect(events[back + 1]).toMatchObject({ type: 'dump', board: r.emulator.board() });
  });

  it('survives garbage on the line and counts it', async () => {
    const r = rig();
    await started(r);
    r.port.inject([0x01, 0x7f, 0x33, 0x8e, 0x00]); // noise, then a cut-off FIELD_UPDATE header
    r.port.inject([0x99, 0x99, 0x05]); // an id byte with an impossible length
    r.emulator.act({ kind: 'lift', at: r.timers.now(), field: E2 });
    await r.timers.advance(50);
    r.port.inject([0x12, 0x13]);
    r.emulator.act({ kind: 'place', at: r.timers.now(), field: E4, piece: PIECE.WPAWN });
    await r.timers.advance(50);
    const fields = r.board().filter((e) => e.type === 'field');
    expect(fields.map((e) => (e.type === 'field' ? e.field : -1))).toEqual([E2, E4]);
    const stats = r.session.decoderStats();
    expect(stats?.discardedBytes).toBeGreaterThan(0);
    expect(r.events.some((e) => e.type === 'decoder-stats' && e.stats.discardedBytes > 0)).toBe(true);
    expect(r.session.state).toBe('live');
  });

  it('reconnects with capped exponential back-off after the device disappears, then re-handshakes and re-dumps', async () => {
    const r = rig({ reconnectBaseMs: 500, reconnectMaxMs: 2_000 });
    await started(r);
    const opensBefore = r.port.opens;
    r.emulator.act({ kind: 'unplug', at: r.timers.now() });
    r.port.remove();
    await settle();
    await r.timers.advance(6_000, 100);
    const lost = r.board().filter((e) => e.type === 'connection');
    expect(lost.map((e) => (e.type === 'connection' ? e.connected : null))).toEqual([true, false]);
    const delays = r.events.flatMap((e) => (e.type === 'state' && e.state === 'retrying' ? [e.retryInMs] : []));
    expect(delays.slice(0, 4)).toEqual([500, 1_000, 2_000, 2_000]);
    expect(r.session.state).not.toBe('live');
    // Pieces move while the board is away; the re-dump must show them.
    r.emulator.act({ kind: 'lift', at: r.timers.now(), field: E2 });
    r.emulator.act({ kind: 'place', at: r.timers.now(), field: E4, piece: PIECE.WPAWN });
    r.emulator.act({ kind: 'plug', at: r.timers.now() });
    r.port.recreate();
    const writtenBefore = r.port.written.length;
    await r.timers.advance(2_500, 100);
    expect(r.session.state).toBe('live');
    expect(r.port.opens).toBe(opensBefore + 1);
    expect(r.port.written.slice(writtenBefore, writtenBefore + 6)).toEqual(HANDSHAKE);
    const after = r.board().slice(r.board().findIndex((e) => e.type === 'connection' && !e.connected));
    expect(after.slice(0, 3).map((e) => e.type)).toEqual(['connection', 'connection', 'dump']);
    expect(after[1]).toMatchObject({ connected: true });
    expect(after[2]).toMatchObject({ board: r.emulator.board() });
    expect(r.session.board?.[E4]).toBe(PIECE.WPAWN);
    // Live again: later moves arrive as field updates.
    r.emulator.act({ kind: 'lift', at: r.timers.now(), field: 51 });
    await r.timers.advance(50);
    expect(r.board().at(-1)).toMatchObject({ type: 'field', field: 51, piece: PIECE.EMPTY });
    // After a good handshake the back-off starts again from the base delay.
    r.port.remove();
    await settle();
    await r.timers.advance(100);
    const lastRetry = r.events.filter((e) => e.type === 'state' && e.state === 'retrying').at(-1);
    expect(lastRetry).toMatchObject({ retryInMs: 500 });
  });

  it('treats a failed write as a lost link and reconnects', async () => {
    const r = rig({ reconnectBaseMs: 400 });
    await started(r);
    r.port.failWrites = true;
    expect(await r.session.requestDump()).toBe(false);
    await settle();
    expect(r.session.state).toBe('retrying');
    expect(
      r
        .board()
        .filter((e) => e.type === 'connection')
        .map((e) => (e.type === 'connection' ? e.connected : null)),
    ).toEqual([true, false]);
    expect(r.events.find((e) => e.type === 'state' && e.state === 'retrying')).toMatchObject({ detail: expect.stringMatching(/EIO/), retryInMs: 400 });
    r.port.failWrites = false;
    await r.timers.advance(500);
    expect(r.session.state).toBe('live');
    expect(r.board().filter((e) => e.type === 'dump')).toHaveLength(2);
  });

  it('gives a silent device up after the handshake timeout and retries', async () => {
    const emulator = new BoardEmulator({ serial: '00001' });
    emulator.act({ kind: 'unplug', at: 0 });
    const r = rig({ handshakeTimeoutMs: 1_000, reconnectBaseMs: 500 }, emulator);
    await started(r);
    await r.timers.advance(1_100);
    const retry = r.events.find((e) => e.type === 'state' && e.state === 'retrying');
    expect(retry).toMatchObject({ detail: expect.stringMatching(/no board dump/) });
    expect(r.board().filter((e) => e.type === 'connection')).toEqual([]);
    emulator.act({ kind: 'plug', at: r.timers.now() });
    await r.timers.advance(700);
    expect(r.session.state).toBe('live');
  });

  it('ignores the all-zero BWTIME and readings that say no clock is connected', async () => {
    const r = rig({}, new BoardEmulator({ serial: '00009', clock: null }));
    await started(r);
    const side = { hours: 0, minutes: 5, seconds: 0, ms: 300_000, flagFallenBlocked: false, timePerMove: false, flagFallenShown: false };
    const status = { running: true, rightLeverHigh: false, batteryLow: false, rightToMove: false, leftToMove: true, noClock: false };
    r.port.inject(encodeMessage({ type: 'clock-zero' }));
    r.port.inject(encodeMessage({ type: 'clock-times', left: side, right: side, status: { ...status, noClock: true } }));
    r.port.inject(encodeMessage({ type: 'clock-times', left: { ...side, ms: 299_000, seconds: 59, minutes: 4 }, right: side, status }));
    await r.timers.advance(50);
    const clocks = r.board().filter((e) => e.type === 'clock');
    expect(clocks).toEqual([{ type: 'clock', at: expect.any(Number), whiteMs: 299_000, blackMs: 300_000, running: 'white', whiteFlag: false, blackFlag: false }]);
    expect(r.events.filter((e) => e.type === 'frame' && e.message.type.startsWith('clock'))).toHaveLength(3);
  });

  it('rejects clock commands while not connected, as a value with a reason', async () => {
    const r = rig();
    const err = await r.session.sendClock({ type: 'end' }).catch((e: unknown) => e);
    expect((err as ClockCommandError).reason).toBe('not-connected');
  });
});
