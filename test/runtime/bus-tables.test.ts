import type { Color } from 'chessops';
import { parseSquare } from 'chessops/util';
import { afterEach, describe, expect, it } from 'vitest';
import type { BoardEvent } from '../../protocols/board-events.ts';
import { BusReplyDecoder, encodeBusCommand } from '../../protocols/dgt/bus.ts';
import { PIECE, squareToField, type PieceCode } from '../../protocols/dgt/squares.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { EmulatedBus } from '../../daemon/simulation/emulator/emulated-bus.ts';
import { BoardSession } from '../../daemon/board/session.ts';
import type { Timers } from '../../daemon/board/timers.ts';
import { emulatorBinding } from '../../daemon/simulation/emulator-binding.ts';
import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import type { GameEvent } from '../../daemon/reconstruction/game-events.ts';
import { busTableLinks, type BusTableLink, type TableLink, type TableLinkEvent } from '../../daemon/runtime/bus-tables.ts';
import { serialTransportFactory } from '../../daemon/transport/serial-transport.ts';
import { mockPortFactory } from '../board/helpers.ts';
import { EmulatedMockPort, ManualTimers, settle } from '../board/helpers.ts';

const UPDATE_REPLY = 0x85;
const BRD_DUMP_REPLY = 0x83;

const field = (name: string) => squareToField(parseSquare(name)!);

let rigs = 0;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/**
 * The manual clock, but every reading a little later than the one before, as real time is: a
 * board event computed after awaiting its reply gets a later time than the reply's packet.
 */
function ticking(timers: ManualTimers): Timers {
  let ticks = 0;
  return {
    now: () => timers.now() + ++ticks / 1_000,
    setTimeout: (fn, ms) => timers.setTimeout(fn, ms),
    clearTimeout: (handle) => timers.clearTimeout(handle),
  };
}

/** Boards 12007 and 12008 on one line behind the emulator binding; table 9's board 12009 is configured but absent. */
function rig() {
  const timers = new ManualTimers();
  const boards = {
    7: new BoardEmulator({ serial: '12007', busMode: true }),
    8: new BoardEmulator({ serial: '12008', busMode: true, whiteOnClock: 'right' }),
  };
  const path = `/boardcast-test/bus-tables/line${++rigs}`;
  const port = emulatorBinding.plug(path, new EmulatedBus([boards[7], boards[8]]), { now: () => timers.now(), pumpEveryMs: null });
  timers.onAdvance = () => port.pump();
  const links = busTableLinks(
    [
      {
        path,
        tables: [
          { number: 7, serial: '12007', whiteOnClock: 'left' },
          { number: 8, serial: '12008', whiteOnClock: 'right' },
          { number: 9, serial: '12009', whiteOnClock: 'left' },
        ],
      },
    ],
    { transport: (p) => serialTransportFactory(p, emulatorBinding.portFactory), timers: ticking(timers), session: { pollIntervalMs: 2_000 } },
  );
  const events = new Map<number, TableLinkEvent[]>();
  for (const [n, link] of links) {
    const list: TableLinkEvent[] = [];
    events.set(n, list);
    link.on((e) => list.push(e));
  }
  cleanups.push(async () => {
    for (const l of links.values()) await l.stop();
    port.close();
  });
  const link = (n: number): BusTableLink => links.get(n)!;
  const of = (n: number) => events.get(n)!;
  const boardEvents = (n: number): BoardEvent[] => of(n).flatMap((e) => (e.type === 'board' ? [e.event] : []));
  return { timers, boards, port, links, link, of, boardEvents };
}

async function startAll(r: ReturnType<typeof rig>): Promise<void> {
  for (const l of r.links.values()) l.start();
  await settle();
  // Discovery (~1.2 s of PING answers) and each board's first dump.
  await r.timers.advance(1_600, 20);
}

/** A player moves a piece (a capture lifts the victim first) and presses the clock. */
function play(board: BoardEmulator, at: number, from: string, to: string, by: Color): number {
  const src = field(from);
  const dst = field(to);
  const piece = board.board()[src]! as PieceCode;
  if (board.board()[dst] !== PIECE.EMPTY) board.act({ kind: 'lift', at, field: dst });
  board.act({ kind: 'lift', at: at + 10, field: src });
  board.act({ kind: 'place', at: at + 200, field: dst, piece });
  board.act({ kind: 'press', at: at + 400, by });
  return at + 500;
}

/** Pairs each board event with the frame before it at the same time, as the runtime stores them. */
function framesOf(events: TableLinkEvent[]): { event: BoardEvent; raw: Uint8Array | null }[] {
  const out: { event: BoardEvent; raw: Uint8Array | null }[] = [];
  let last: { at: number; raw: Uint8Array; used: boolean } | null = null;
  for (const e of events) {
    if (e.type === 'frame') last = { at: e.at, raw: e.raw, used: false };
    else if (e.type === 'board') {
      if (last && !last.used && last.at === e.event.at && e.event.type !== 'connection') {
        last.used = true;
        out.push({ event: e.event, raw: last.raw });
      } else out.push({ event: e.event, raw: null });
    }
  }
  return out;
}

const sans = (evs: GameEvent[]) => evs.flatMap((e) => (e.type === 'move-made' ? [e.san] : []));

describe('busTableLinks: tables whose boards hang on one DGT bus line', () => {
  it('a BoardSession fits TableLink, so the runtime can hold either', () => {
    const single: TableLink = new BoardSession({ transport: serialTransportFactory('/dev/null-bus-tables', mockPortFactory) });
    expect(single.state).toBe('idle');
  });

  it("routes each board's moves to its own table, with frames carrying the bus reply bytes, and the engine rebuilds both games", async () => {
    const r = rig();
    await startAll(r);
    expect(r.link(7).state).toBe('live');
    expect(r.link(8).state).toBe('live');
    expect(r.link(7).serialNumber).toBe('12007');
    expect(r.link(8).serialNumber).toBe('12008');
    expect(r.of(7).find((e) => e.type === 'serial')).toMatchObject({ serial: '12007', long: false });
    // The line's first bytes are the PING to every board.
    expect(r.port.written.slice(0, 4)).toEqual([...encodeBusCommand({ type: 'ping' }, 0)]);

    let t7 = r.timers.now();
    let t8 = t7 + 100;
    t7 = play(r.boards[7], t7, 'e2', 'e4', 'white');
    t8 = play(r.boards[8], t8, 'd2', 'd4', 'white');
    await r.timers.advance(2_500, 50);
    t7 = play(r.boards[7], r.timers.now(), 'e7', 'e5', 'black');
    t8 = play(r.boards[8], r.timers.now(), 'd7', 'd5', 'black');
    await r.timers.advance(2_500, 50);
    play(r.boards[7], r.timers.now(), 'g1', 'f3', 'white');
    play(r.boards[8], r.timers.now(), 'c2', 'c4', 'white');
    await r.timers.advance(2_500, 50);
    play(r.boards[8], r.timers.now(), 'd5', 'c4', 'black');
    await r.timers.advance(2_500, 50);

    const games = new Map<number, GameEvent[]>();
    for (const n of [7, 8]) {
      const engine = new GameEngine({ rules: { edition: '2018', category: 'standard' } });
      games.set(
        n,
        r.boardEvents(n).flatMap((e) => engine.push(e)),
      );
    }
    expect(sans(games.get(7)!)).toEqual(['e4', 'e5', 'Nf3']);
    expect(sans(games.get(8)!)).toEqual(['d4', 'd5', 'c4', 'dxc4']);

    // Every frame of a table is a whole reply packet from its own board, and every change it
    // reports rides with the packet that carried it.
    for (const n of [7, 8] as const) {
      const address = r.boards[n].address;
      const frames = r.of(n).flatMap((e) => (e.type === 'frame' ? [e] : []));
      expect(frames.length).toBeGreaterThan(5);
      for (const f of frames) {
        if (!('bus' in f)) throw new Error('a bus table sent a single-board frame');
        const decoded = new BusReplyDecoder().push(f.raw);
        expect(decoded).toHaveLength(1);
        expect(decoded[0]).toMatchObject({ ok: true, address });
        expect([...f.raw]).toEqual([...f.bus.raw]);
      }
      const paired = framesOf(r.of(n));
      const fields = paired.filter((p) => p.event.type === 'field');
      expect(fields.length).toBeGreaterThanOrEqual(6);
      const carried = fields.filter((p) => p.raw !== null);
      expect(carried.length).toBeGreaterThan(0);
      for (const p of carried) {
        expect(p.raw![0]).toBe(UPDATE_REPLY);
        const [reply] = new BusReplyDecoder().push(p.raw!);
        if (!reply?.ok || reply.reply.type !== 'update') throw new Error('field event not carried by an UPDATE reply');
        const ev = p.event as Extract<BoardEvent, { type: 'field' }>;
        expect(reply.reply.entries).toContainEqual(expect.objectContaining({ type: 'field-update', field: ev.field, piece: ev.piece }));
      }
      // The first dump rides with its BRD_DUMP packet.
      const dump = paired.find((p) => p.event.type === 'dump');
      expect(dump?.raw?.[0]).toBe(BRD_DUMP_REPLY);
    }
    // Clock readings arrive per table with its own side resolved: table 8's white is on the right.
    const lastClock8 = r
      .boardEvents(8)
      .filter((e) => e.type === 'clock')
      .at(-1);
    expect(lastClock8).toMatchObject({ type: 'clock', running: 'white' });
    expect(
      r
        .boardEvents(7)
        .filter((e) => e.type === 'clock')
        .at(-1),
    ).toMatchObject({ type: 'clock', running: 'black' });
  });

  it('reports a configured board the line does not have: not live, a problem naming its serial', async () => {
    const r = rig();
    await startAll(r);
    await r.timers.advance(2_500, 50);
    expect(r.link(9).state).not.toBe('live');
    expect(r.link(9).state).toBe('handshaking');
    expect(r.link(9).serialNumber).toBeNull();
    const problems = r.of(9).flatMap((e) => (e.type === 'problem' ? [e.detail] : []));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /board 12009 \(bus address 12009\) did not answer the discovery PING on the bus line \/boardcast-test\/bus-tables\/line\d+ \(boards at addresses 12007, 12008 answered\)/,
    );
    expect(r.of(9).some((e) => e.type === 'frame' || e.type === 'board')).toBe(false);
    const last = r
      .of(9)
      .filter((e) => e.type === 'state')
      .at(-1);
    expect(last).toMatchObject({ state: 'handshaking', detail: expect.stringContaining('12009') });
  });

  it('keeps the line open until the last of its tables stops', async () => {
    const r = rig();
    await startAll(r);
    await r.link(7).stop();
    await r.link(9).stop();
    expect(r.link(7).state).toBe('stopped');
    const before7 = r.of(7).length;
    play(r.boards[8], r.timers.now(), 'e2', 'e4', 'white');
    r.boards[7].act({ kind: 'lift', at: r.timers.now(), field: field('d2') });
    await r.timers.advance(2_500, 50);
    expect(r.boardEvents(8).some((e) => e.type === 'field' && e.field === field('e4'))).toBe(true);
    expect(r.of(7)).toHaveLength(before7);
    expect(r.link(8).state).toBe('live');
    await r.link(8).stop();
    const written = r.port.written.length;
    await r.timers.advance(5_000, 100);
    expect(r.port.written.length).toBe(written);
    expect([...r.links.values()].map((l) => l.state)).toEqual(['stopped', 'stopped', 'stopped']);
  });

  it('a board that stops answering takes its table out of live, and back with a fresh dump', async () => {
    const r = rig();
    await startAll(r);
    r.boards[8].act({ kind: 'unplug', at: r.timers.now() });
    await r.timers.advance(12_000, 50);
    expect(r.link(8).state).toBe('handshaking');
    expect(r.link(7).state).toBe('live');
    r.boards[8].act({ kind: 'plug', at: r.timers.now() });
    await r.timers.advance(4_000, 50);
    expect(r.link(8).state).toBe('live');
    const states = r.of(8).flatMap((e) => (e.type === 'state' ? [`${e.state}${e.detail ? `: ${e.detail}` : ''}`] : []));
    expect(states.map((s) => s.replace(/ \(bus address 12008\) on \S+/, ''))).toEqual([
      'connecting',
      'handshaking: looking for board 12008',
      'handshaking: waiting for the first dump of board 12008',
      'live',
      'handshaking: board 12008 is not answering',
      'live',
    ]);
    const conn = r.boardEvents(8).flatMap((e) => (e.type === 'connection' ? [e.connected] : []));
    expect(conn).toEqual([true, false, true]);
  });

  it('a table started while its line already runs catches up: live at once with the board as the line last read it', async () => {
    const r = rig();
    r.link(7).start();
    await settle();
    await r.timers.advance(1_600, 20);
    expect(r.link(7).state).toBe('live');
    expect(r.link(8).state).toBe('idle');
    expect(r.of(8)).toEqual([]);
    r.link(8).start();
    r.link(9).start();
    expect(r.link(8).state).toBe('live');
    expect(r.link(8).serialNumber).toBe('12008');
    const caught = r.boardEvents(8);
    expect(caught.map((e) => e.type)).toEqual(['connection', 'dump']);
    expect(caught[1]!.type === 'dump' && caught[1]!.board).toEqual(r.boards[8].board());
    expect(r.link(9).state).toBe('handshaking');
    expect(r.of(9).some((e) => e.type === 'problem' && e.detail.includes('board 12009'))).toBe(true);
    play(r.boards[8], r.timers.now(), 'e2', 'e4', 'white');
    await r.timers.advance(2_500, 50);
    const engine = new GameEngine({ rules: { edition: '2018', category: 'standard' } });
    expect(sans(r.boardEvents(8).flatMap((e) => engine.push(e)))).toEqual(['e4']);
  });

  it('a line that goes away puts all its tables in retrying, and they come back live when it returns', async () => {
    const timers = new ManualTimers();
    const boards = [new BoardEmulator({ serial: '12007', busMode: true }), new BoardEmulator({ serial: '12008', busMode: true })];
    const port = new EmulatedMockPort(new EmulatedBus(boards), () => timers.now());
    timers.onAdvance = (now) => port.tick(now);
    const links = busTableLinks(
      [
        {
          path: port.path,
          tables: [
            { number: 1, serial: '12007', whiteOnClock: 'left' },
            { number: 2, serial: '12008', whiteOnClock: 'left' },
          ],
        },
      ],
      { transport: (p) => serialTransportFactory(p, port.factory), timers: ticking(timers), session: { pollIntervalMs: 2_000, reconnectBaseMs: 500, reconnectMaxMs: 1_000 } },
    );
    cleanups.push(async () => {
      for (const l of links.values()) await l.stop();
    });
    const events = [1, 2].map((n) => {
      const list: TableLinkEvent[] = [];
      links.get(n)!.on((e) => list.push(e));
      return list;
    });
    for (const l of links.values()) l.start();
    await settle();
    await timers.advance(1_600, 20);
    expect([...links.values()].map((l) => l.state)).toEqual(['live', 'live']);
    port.remove();
    await settle();
    await timers.advance(2_000, 50);
    for (const list of events) {
      const retrying = list.filter((e) => e.type === 'state' && e.state === 'retrying');
      expect(retrying.length).toBeGreaterThan(0);
      expect(retrying.some((e) => e.type === 'state' && /open failed/.test(e.detail ?? '') && e.retryInMs !== undefined)).toBe(true);
      expect(list.flatMap((e) => (e.type === 'board' && e.event.type === 'connection' ? [e.event.connected] : []))).toEqual([true, false]);
    }
    expect(links.get(1)!.state).not.toBe('live');
    port.recreate();
    await timers.advance(3_000, 20);
    expect([...links.values()].map((l) => l.state)).toEqual(['live', 'live']);
    for (const list of events) {
      expect(list.filter((e) => e.type === 'serial')).toHaveLength(2);
      expect(list.flatMap((e) => (e.type === 'board' && e.event.type === 'connection' ? [e.event.connected] : []))).toEqual([true, false, true]);
    }
  });
});
