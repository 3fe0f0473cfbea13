import { describe, expect, it } from 'vitest';
import { parseSquare } from 'chessops/util';
import { BusReplyDecoder, encodeBusCommand, type BusCommandType, type BusReplyResult } from '../../protocols/dgt/bus.ts';
import { parseEeprom, type EepromEntry } from '../../protocols/dgt/eeprom.ts';
import { PIECE, squareToField } from '../../protocols/dgt/squares.ts';
import { BoardEmulator, pingSlotMs } from '../../daemon/simulation/emulator/board-emulator.ts';
import { EmulatedBus } from '../../daemon/simulation/emulator/emulated-bus.ts';
import { concatBytes, runScript } from '../../daemon/simulation/emulator/script.ts';
import { standardStartBoard } from '../../daemon/simulation/emulator/tabletop.ts';
import { ask, cmd, hex } from './helpers.ts';

const f = (name: string): number => squareToField(parseSquare(name)!);
const bus = (type: BusCommandType, address: number): Uint8Array => encodeBusCommand({ type }, address);

function replies(bytes: Uint8Array): BusReplyResult[] {
  return new BusReplyDecoder().push(bytes);
}

const fieldEntries = (entries: EepromEntry[]) => entries.filter((e) => e.type === 'field-update');

describe('EEPROM log', () => {
  it('power-up, field changes with the quick bit, begin-position tag, clock times on lever changes', () => {
    const emu = new BoardEmulator({ serial: '00137', clock: { baseMs: 60_000, incrementMs: 0 } });
    emu.act({ kind: 'press', at: 500, by: 'black' }); // White starts: no time written for a start
    emu.act({ kind: 'lift', at: 1000, field: f('e2') });
    emu.act({ kind: 'place', at: 1100, field: f('e4'), piece: PIECE.WPAWN });
    emu.act({ kind: 'press', at: 3500, by: 'white' }); // White halts at 0:57
    const [msg] = ask(emu, cmd('send-ee-moves'), 4000);
    expect(msg?.type).toBe('ee-moves');
    const entries = msg!.type === 'ee-moves' ? msg.entries : [];
    expect(entries.slice(0, 4)).toEqual([
      { type: 'tag', tag: 'nop' },
      { type: 'tag', tag: 'nop' },
      { type: 'tag', tag: 'nop' },
      { type: 'tag', tag: 'powerup' },
    ]);
    expect(fieldEntries(entries).length).toBe(32 + 2);
    expect(entries[4 + 32]).toEqual({ type: 'tag', tag: 'beginpos' });
    expect(entries.slice(4 + 33)).toEqual([
      { type: 'field-update', piece: PIECE.EMPTY, field: f('e2'), quick: false },
      { type: 'field-update', piece: PIECE.WPAWN, field: f('e4'), quick: true },
      { type: 'clock', side: 'left', hours: 0, minutes: 0, seconds: 57 },
      { type: 'tag', tag: 'eof' },
    ]);
    // The download itself is logged.
    expect(emu.eeprom().at(-1)).toBe(0x6e);
  });

  it('tags an empty board and a rotated start, with hysteresis against one flashing piece', () => {
    const board = standardStartBoard();
    const emu = new BoardEmulator({ serial: '00001', board: board.map(() => PIECE.EMPTY) });
    expect(emu.eeprom().slice(-1)).toEqual([0x6d]); // EMPTYBOARD at power-up
    const rotated = standardStartBoard().reverse();
    let t = 0;
    rotated.forEach((p, i) => {
      if (p !== PIECE.EMPTY) emu.act({ kind: 'place', at: (t += 10), field: i, piece: p });
    });
    expect(emu.eeprom().at(-1)).toBe(0x7a); // BEGINPOS_ROT
    const before = emu.eeprom().length;
    emu.act({ kind: 'lift', at: (t += 10), field: 0 });
    emu.act({ kind: 'place', at: (t += 10), field: 0, piece: rotated[0]! });
    expect(emu.eeprom().length).toBe(before + 4); // two field updates, no second tag
  });

  it('keeps logging while the link is down (the board keeps its power and scans on)', () => {
    const emu = new BoardEmulator({ serial: '00001' });
    emu.act({ kind: 'link-down', at: 0 });
    emu.act({ kind: 'lift', at: 1000, field: f('d2') });
    expect(parseEeprom(emu.eeprom()).at(-1)).toEqual({ type: 'field-update', piece: PIECE.EMPTY, field: f('d2'), quick: false });
  });

  it('logs nothing while the USB cable is out (the cable is its power)', () => {
    const emu = new BoardEmulator({ serial: '00001' });
    const before = emu.eeprom().length;
    emu.act({ kind: 'unplug', at: 0 });
    emu.act({ kind: 'lift', at: 1000, field: f('d2') });
    expect(emu.eeprom()).toHaveLength(before);
  });
});

describe('bus mode', () => {
  const a = new BoardEmulator({ serial: '00100', busMode: true });
  it('powers up in bus mode and answers only its own address, with checksums', () => {
    expect(a.busMode).toBe(true);
    a.receive(bus('send-version', 101), 0);
    expect(a.takeOutput().length).toBe(0);
    a.receive(bus('ping', 100), 0);
    expect(hex(a.takeOutput())).toBe('87 00 06 00 64 71'); // (0x87+6+0x64) & 0x7f = 0x71
    const [v] = replies((a.receive(bus('send-version', 100), 0), a.takeOutput()));
    expect(v).toMatchObject({ ok: true, address: 100, reply: { type: 'version', major: 1, minor: 8 } });
  });

  it('ignores a command with a bad checksum', () => {
    const bad = bus('send-board', 100);
    bad[3] = (bad[3]! + 1) & 0x7f;
    a.receive(bad, 0);
    expect(a.takeOutput().length).toBe(0);
    expect(a.counters.badChecksums).toBe(1);
  });

  it('board dump, clock, changes since the last poll, repeat, start game and from-start', () => {
    const emu = new BoardEmulator({ serial: '00200', busMode: true, clock: { baseMs: 60_000, incrementMs: 0 } });
    const send = (type: BusCommandType, at: number) => {
      emu.receive(bus(type, 200), at);
      return replies(emu.takeOutput());
    };
    expect(send('send-board', 0)).toMatchObject([{ ok: true, address: 200, reply: { type: 'brd-dump', board: standardStartBoard() } }]);
    expect(send('send-clock', 0)).toMatchObject([{ ok: true, reply: { type: 'bwtime', clock: { type: 'clock-times', left: { ms: 60_000 } } } }]);
    const first = send('send-changes', 0);
    expect(first[0]).toMatchObject({ ok: true, reply: { type: 'update' } });
    // Power-up entries: 3 NOPs, POWERUP, 32 pieces, BEGINPOS
    expect(first[0]!.ok && first[0]!.reply.type === 'update' && first[0]!.reply.entries.length).toBe(37);
    emu.receive(bus('set-start-game', 200), 10);
    expect(emu.takeOutput().length).toBe(0); // answered ~70 ms later
    emu.advanceTo(100);
    expect(replies(emu.takeOutput())).toMatchObject([{ ok: true, reply: { type: 'start-game-written' } }]);
    emu.act({ kind: 'lift', at: 1000, field: f('g1') });
    emu.act({ kind: 'place', at: 1500, field: f('f3'), piece: PIECE.WKNIGHT });
    const changes = send('send-changes', 2000);
    const expected = [
      { type: 'tag', tag: 'start-tag' },
      ...standardStartBoard().flatMap((p, i) => (p ? [{ type: 'field-update', piece: p, field: i, quick: false }] : [])),
      { type: 'field-update', piece: PIECE.EMPTY, field: f('g1'), quick: false },
      { type: 'field-update', piece: PIECE.WKNIGHT, field: f('f3'), quick: false },
    ];
    expect(changes).toMatchObject([{ ok: true, reply: { type: 'update', entries: expected } }]);
    const again = send('repeat-changes', 2100);
    expect(again[0]!.raw).toEqual(changes[0]!.raw);
    expect(send('send-changes', 2200)).toMatchObject([{ ok: true, reply: { type: 'update', entries: [] } }]);
    expect(send('send-from-start', 2300)).toMatchObject([{ ok: true, reply: { type: 'from-start', entries: expected } }]);
    // SEND_ALL_D: changes, clock, board in that order
    expect(send('send-all-d', 2400).map((r) => r.ok && r.reply.type)).toEqual(['update', 'bwtime', 'brd-dump']);
  });

  it('a single-board command leaves bus mode (IDLE); a bus command in single mode only switches back', () => {
    const emu = new BoardEmulator({ serial: '00300', busMode: true });
    expect(ask(emu, cmd('send-version'), 0)).toEqual([{ type: 'version', major: 1, minor: 8 }]);
    expect(emu.busMode).toBe(false);
    emu.receive(bus('ping', 300), 0);
    expect(emu.takeOutput().length).toBe(0); // the switching command is not processed
    expect(emu.busMode).toBe(true);
    emu.receive(bus('ping', 300), 0);
    expect(replies(emu.takeOutput())).toMatchObject([{ ok: true, reply: { type: 'ping' } }]);
    emu.receive(bus('end-busmode', 300), 0);
    expect(emu.busMode).toBe(false);
    ask(emu, cmd('to-bus-mode'), 0);
    expect(emu.busMode).toBe(true);
  });

  it('several boards on one line: ping-all answers in address-derived slots; ignore-next-ping silences one', () => {
    const serials = ['00100', '00105', '00203'];
    const boards = serials.map((serial) => new BoardEmulator({ serial, busMode: true }));
    const line = new EmulatedBus(boards);
    line.receive(bus('ping', 0), 1000);
    expect(line.takeOutput().length).toBe(0);
    line.advanceTo(2200);
    const out = line.takeTimedOutput();
    const got = out.map((c) => ({ at: c.at, address: replies(c.bytes)[0]!.address }));
    const want = [100, 105, 203].map((address) => ({ at: 1000 + pingSlotMs(address), address })).sort((x, y) => x.at - y.at);
    expect(got).toEqual(want);
    expect(want.every((w) => w.at - 1000 < 1100)).toBe(true);
    expect(line.collisions).toBe(0);

    line.receive(bus('ignore-next-bus-ping', 105), 3000);
    expect(replies(line.takeOutput())).toMatchObject([{ ok: true, address: 105, reply: { type: 'ping' } }]);
    line.receive(bus('ping', 0), 4000);
    line.advanceTo(6000);
    expect(
      replies(line.takeOutput())
        .map((r) => r.address)
        .sort((a, b) => (a ?? -1) - (b ?? -1)),
    ).toEqual([100, 203]);
    // Addressed commands reach only their board.
    line.receive(bus('send-version', 203), 7000);
    expect(replies(line.takeOutput()).map((r) => r.address)).toEqual([203]);
  });

  it('bus RESET (address 0 for all) is a power-up that stays in bus mode', () => {
    const emu = new BoardEmulator({ serial: '00400', busMode: true });
    const before = emu.eeprom().filter((b) => b === 0x6a).length;
    emu.receive(bus('reset', 0), 0);
    expect(emu.eeprom().filter((b) => b === 0x6a).length).toBe(before + 1);
    expect(emu.busMode).toBe(true);
  });
});

describe('runScript', () => {
  it('replays a script with host commands and returns timed output', () => {
    const emu = new BoardEmulator({ serial: '00001', clock: { baseMs: 60_000, incrementMs: 1000 } });
    const out = runScript(
      emu,
      [
        { kind: 'press', at: 1000, by: 'black' },
        { kind: 'lift', at: 3000, field: f('e2') },
        { kind: 'place', at: 3300, field: f('e4'), piece: PIECE.WPAWN },
        { kind: 'press', at: 4000, by: 'white' },
      ],
      { host: [{ at: 0, bytes: cmd('send-update-nice') }], tailMs: 2000 },
    );
    const times = out.map((c) => c.at);
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(concatBytes(out).length).toBe(out.reduce((n, c) => n + c.bytes.length, 0));
    const fieldUpdates = out.filter((c) => c.bytes[0] === 0x8e).map((c) => ({ at: c.at, field: c.bytes[3] }));
    expect(fieldUpdates).toEqual([
      { at: 3000, field: f('e2') },
      { at: 3300, field: f('e4') },
    ]);
    expect(emu.time).toBe(6000);
  });
});
