import { afterEach, describe, expect, it } from 'vitest';
import { PIECE, busChecksum, encodeBusCommand, type PieceCode } from '../../protocols/dgt/index.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { EmulatedBus } from '../../daemon/simulation/emulator/emulated-bus.ts';
import { BusSession, type BusEvent, type BusSessionOptions } from '../../daemon/board/bus.ts';
import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import { serialTransportFactory } from '../../daemon/transport/serial-transport.ts';
import { EmulatedMockPort, ManualTimers, settle } from './helpers.ts';

const E2 = 52;
const E4 = 36;
const UPDATE_REPLY = 0x85;

const sessions: BusSession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.stop();
});

function rig(opts: Partial<BusSessionOptions> = {}, whiteOnClockA: 'left' | 'right' = 'left') {
  const timers = new ManualTimers();
  const a = new BoardEmulator({ serial: '01025', busMode: true, whiteOnClock: whiteOnClockA, clock: { baseMs: 300_000, incrementMs: 0 } });
  const b = new BoardEmulator({ serial: '00300', busMode: true });
  const bus = new EmulatedBus([a, b]);
  const port = new EmulatedMockPort(bus, () => timers.now());
  timers.onAdvance = (now) => port.tick(now);
  const session = new BusSession({ transport: serialTransportFactory(port.path, port.factory), timers, pollIntervalMs: 2_000, ...opts });
  sessions.push(session);
  const events: BusEvent[] = [];
  session.on((e) => events.push(e));
  /** Host commands as [code, address] pairs (every bus command is 4 bytes). */
  const commands = (from = 0): [number, number][] => {
    const out: [number, number][] = [];
    const w = port.written.slice(from);
    for (let i = 0; i + 3 < w.length; i += 4) out.push([w[i]!, (w[i + 1]! << 7) | w[i + 2]!]);
    return out;
  };
  const boardEvents = (address: number) => events.flatMap((e) => (e.type === 'board' && e.address === address ? [e.event] : []));
  return { timers, a, b, port, session, events, commands, boardEvents };
}

async function running(r: ReturnType<typeof rig>): Promise<void> {
  r.session.start();
  await settle();
  await r.timers.advance(1_500, 20);
}

describe('BusSession over the mock binding with emulated boards on one line', () => {
  it('discovers boards by PING to address 0, dumps each, then polls SEND_CHANGES per board', async () => {
    const r = rig();
    await running(r);
    expect(r.events.find((e) => e.type === 'discovered')).toMatchObject({ addresses: [300, 1025] });
    expect([...r.port.written.slice(0, 4)]).toEqual([...encodeBusCommand({ type: 'ping' }, 0)]);
    // Each board's clock is read once after its first dump.
    expect(r.boardEvents(1025).map((e) => e.type)).toEqual(['connection', 'dump', 'clock']);
    expect(r.boardEvents(300).map((e) => e.type)).toEqual(['connection', 'dump', 'clock']);
    const from = r.port.written.length;
    const t = r.timers.now();
    r.a.act({ kind: 'lift', at: t, field: E2 });
    r.a.act({ kind: 'place', at: t + 20, field: E4, piece: PIECE.WPAWN });
    await r.timers.advance(2_500, 20);
    expect(r.commands(from).slice(0, 2)).toEqual([
      [0x83, 300],
      [0x83, 1025],
    ]);
    const fields = r.boardEvents(1025).filter((e) => e.type === 'field');
    expect(fields.map((e) => (e.type === 'field' ? [e.field, e.piece] : []))).toEqual([
      [E2, PIECE.EMPTY],
      [E4, PIECE.WPAWN],
    ]);
    expect(r.boardEvents(300).filter((e) => e.type === 'field')).toEqual([]);
    expect(r.session.board(1025)).toEqual(r.a.board());
  });

  it('answers a bad checksum with REPEAT_CHANGES, never a second SEND_CHANGES, and loses nothing', async () => {
    const r = rig();
    await running(r);
    let corrupted = 0;
    r.port.tamper = (bytes) => {
      // Damage the first non-empty change list: one data byte off, checksum left as it was.
      if (corrupted === 0 && bytes[0] === UPDATE_REPLY && bytes.length > 6) {
        corrupted++;
        const copy = bytes.slice();
        copy[5] = copy[5]! ^ 0x01;
        return copy;
      }
      return bytes;
    };
    const from = r.port.written.length;
    r.a.act({ kind: 'lift', at: r.timers.now(), field: E2 });
    await r.timers.advance(2_500, 20);
    expect(corrupted).toBe(1);
    const toA = r
      .commands(from)
      .filter(([, addr]) => addr === 1025)
      .map(([code]) => code);
    expect(toA.slice(0, 2)).toEqual([0x83, 0x84]);
    expect(r.events.find((e) => e.type === 'bad-reply')).toMatchObject({ address: 1025, reason: 'checksum', repeat: 1 });
    const fields = r.boardEvents(1025).filter((e) => e.type === 'field');
    expect(fields).toEqual([{ type: 'field', at: expect.any(Number), field: E2, piece: PIECE.EMPTY }]);
    // Next poll: back to SEND_CHANGES.
    const next = r.port.written.length;
    await r.timers.advance(2_500, 50);
    expect(r.commands(next).filter(([, addr]) => addr === 1025)[0]).toEqual([0x83, 1025]);
  });

  it('re-dumps a board whose dump disagrees with the board built from its changes', async () => {
    const r = rig({ verifyEveryPolls: 1 });
    await running(r);
    let forged = false;
    r.port.tamper = (bytes) => {
      // A change list that passes its checksum but reports the wrong piece: only the dump can tell.
      if (!forged && bytes[0] === UPDATE_REPLY && bytes.length > 6) {
        forged = true;
        const copy = bytes.slice();
        copy[5] = 0x40 | PIECE.BQUEEN;
        copy[copy.length - 1] = busChecksum(copy, 0, copy.length - 1);
        return copy;
      }
      return bytes;
    };
    r.a.act({ kind: 'place', at: r.timers.now(), field: 27, piece: PIECE.WKNIGHT });
    await r.timers.advance(2_500, 20);
    expect(forged).toBe(true);
    expect(r.boardEvents(1025).find((e) => e.type === 'field')).toMatchObject({ field: 27, piece: PIECE.BQUEEN });
    expect(r.events.find((e) => e.type === 'drift')).toMatchObject({ address: 1025, fields: [27] });
    const last = r
      .boardEvents(1025)
      .filter((e) => e.type === 'dump')
      .at(-1);
    expect(last?.type === 'dump' && last.board[27]).toBe(PIECE.WKNIGHT);
    expect(r.session.board(1025)).toEqual(r.a.board());
    expect(r.events.filter((e) => e.type === 'drift')).toHaveLength(1);
  });

  it('reads the clock when a change list logs a lever press, resolving sides per board', async () => {
    const r = rig({ whiteOnClock: (address) => (address === 1025 ? 'right' : 'left') }, 'right');
    await running(r);
    r.a.act({ kind: 'press', at: r.timers.now(), by: 'black' });
    await r.timers.advance(3_000, 50);
    r.a.act({ kind: 'press', at: r.timers.now(), by: 'white' });
    await r.timers.advance(2_500, 50);
    const clocks = r.boardEvents(1025).filter((e) => e.type === 'clock');
    expect(clocks.length).toBeGreaterThan(0);
    const last = clocks.at(-1);
    expect(last).toMatchObject({ running: 'black' });
    if (last?.type !== 'clock') throw new Error('no clock event');
    // White's clock ran ~3 s, Black's ~0: with the sides mixed up these would be swapped.
    expect(last.whiteMs).toBeLessThan(last.blackMs);
  });

  it('keeps every lever press of a poll in order with its move, so fast moves each get their clock time', async () => {
    const r = rig({}, 'left');
    await running(r);
    // Start the clock (Black presses: White to move), let the host read it once.
    r.a.act({ kind: 'press', at: r.timers.now(), by: 'black' });
    await r.timers.advance(2_500, 50);
    const from = r.boardEvents(1025).length;
    // Three moves with their presses, all inside one polling interval.
    const t = r.timers.now();
    const moves: [number, number, PieceCode, 'white' | 'black'][] = [
      [52, 36, PIECE.WPAWN, 'white'], // e2-e4
      [12, 28, PIECE.BPAWN, 'black'], // e7-e5
      [62, 45, PIECE.WKNIGHT, 'white'], // g1-f3
    ];
    moves.forEach(([f, to, piece, by], i) => {
      const at = t + i * 400;
      r.a.act({ kind: 'lift', at, field: f });
      r.a.act({ kind: 'place', at: at + 100, field: to, piece });
      r.a.act({ kind: 'press', at: at + 200, by });
    });
    await r.timers.advance(1_500, 20);
    await r.timers.advance(2_500, 50);
    const seen = r
      .boardEvents(1025)
      .slice(from)
      .map((e) => (e.type === 'clock' ? `clock:${e.running}` : e.type));
    // Each press lies between its move's changes and the next move's.
    expect(seen.slice(0, 9)).toEqual(['field', 'field', 'clock:black', 'field', 'field', 'clock:white', 'field', 'field', 'clock:black']);
    const engine = new GameEngine({ rules: { edition: '2018', category: 'standard' } });
    for (const e of r.boardEvents(1025)) engine.push(e);
    const snap = engine.snapshot();
    expect(snap.moves.map((m) => m.san)).toEqual(['e4', 'e5', 'Nf3']);
    expect(snap.moves.every((m) => m.clockAfter !== undefined)).toBe(true);
  });

  it('reports a board that stops answering as disconnected and brings it back with a fresh dump', async () => {
    const r = rig({ lostAfterPolls: 2 });
    await running(r);
    r.b.act({ kind: 'unplug', at: r.timers.now() });
    // Each silent poll costs a timed-out SEND_CHANGES and the dump retries, then the poll pause.
    await r.timers.advance(10_000, 50);
    const conn = (address: number) => r.boardEvents(address).flatMap((e) => (e.type === 'connection' ? [e.connected] : []));
    expect(conn(300)).toEqual([true, false]);
    expect(conn(1025)).toEqual([true]);
    r.b.act({ kind: 'lift', at: r.timers.now(), field: E2 });
    r.b.act({ kind: 'plug', at: r.timers.now() });
    await r.timers.advance(4_000, 50);
    expect(conn(300)).toEqual([true, false, true]);
    const last = r
      .boardEvents(300)
      .filter((e) => e.type === 'dump')
      .at(-1);
    expect(last?.type === 'dump' && last.board[E2]).toBe(PIECE.EMPTY);
    expect(r.session.board(300)).toEqual(r.b.board());
    // The change log since power-up was drained, not replayed as moves.
    expect(r.boardEvents(300).filter((e) => e.type === 'field')).toEqual([]);
  });

  it('stopped while the last board is being resynchronised: stays stopped, and never opens the line again', async () => {
    let opens = 0;
    const r = rig();
    const open = serialTransportFactory(r.port.path, r.port.factory);
    const counted = new BusSession({
      transport: () => {
        opens++;
        return open();
      },
      timers: r.timers,
      pollIntervalMs: 2_000,
    });
    sessions.push(counted);
    const states: string[] = [];
    let stopping: Promise<void> | undefined;
    counted.on((e) => {
      if (e.type === 'state') states.push(e.state);
      // The last board's dump: its resync goes on (its clock is read next) when the stop comes.
      if (e.type === 'board' && e.address === 1025 && e.event.type === 'dump' && !stopping) stopping = counted.stop();
    });
    counted.start();
    await settle();
    await r.timers.advance(3_000, 20);
    expect(stopping).toBeDefined();
    await stopping;
    await r.timers.advance(10_000, 50);
    expect(counted.state).toBe('stopped');
    expect(states.at(-1)).toBe('stopped');
    expect(opens).toBe(1);
  });

  it('reconnects the line after the device disappears and rediscovers its boards', async () => {
    const r = rig({ reconnectBaseMs: 500, reconnectMaxMs: 1_000 });
    await running(r);
    r.port.remove();
    await settle();
    await r.timers.advance(2_000, 50);
    const conn = (address: number) => r.boardEvents(address).flatMap((e) => (e.type === 'connection' ? [e.connected] : []));
    expect(conn(300)).toEqual([true, false]);
    expect(conn(1025)).toEqual([true, false]);
    expect(r.events.some((e) => e.type === 'state' && e.state === 'retrying' && /open failed/.test(e.detail ?? ''))).toBe(true);
    r.a.act({ kind: 'lift', at: r.timers.now(), field: E2 });
    r.port.recreate();
    await r.timers.advance(3_000, 20);
    expect(r.events.filter((e) => e.type === 'discovered')).toHaveLength(2);
    expect(conn(300)).toEqual([true, false, true]);
    expect(conn(1025)).toEqual([true, false, true]);
    const dump = r
      .boardEvents(1025)
      .filter((e) => e.type === 'dump')
      .at(-1);
    expect(dump?.type === 'dump' && dump.board[E2]).toBe(PIECE.EMPTY);
    expect(r.session.state).toBe('polling');
  });
});
