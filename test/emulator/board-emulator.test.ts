import { describe, expect, it } from 'vitest';
import { PIECE, squareToField } from '../../protocols/dgt/squares.ts';
import { parseSquare } from 'chessops/util';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { standardStartBoard } from '../../daemon/simulation/emulator/tabletop.ts';
import { ask, clockCmd, cmd, decode, hex } from './helpers.ts';

const f = (name: string): number => squareToField(parseSquare(name)!);
const make = (extra: Partial<ConstructorParameters<typeof BoardEmulator>[0]> = {}) =>
  new BoardEmulator({ serial: '10001', version: { major: 1, minor: 8 }, clock: { baseMs: 300_000, incrementMs: 3_000 }, ...extra });

describe('BoardEmulator: identification answers, byte for byte', () => {
  it('serial number, long serial, bus address, version', () => {
    const emu = make();
    emu.receive(cmd('send-serial'), 0);
    expect(hex(emu.takeOutput())).toBe('91 00 08 31 30 30 30 31');
    emu.receive(cmd('send-long-serial'), 0);
    expect(hex(emu.takeOutput())).toBe('a2 00 0d 30 30 30 30 30 31 30 30 30 31');
    emu.receive(cmd('send-bus-address'), 0);
    // 10001 = 0x2711: MSB 7 bits 0x4e, LSB 7 bits 0x11
    expect(hex(emu.takeOutput())).toBe('90 00 05 4e 11');
    emu.receive(cmd('send-version'), 0);
    expect(hex(emu.takeOutput())).toBe('93 00 05 01 08');
  });

  it('the dgtbrd.h bus address example: serial 01025 is 0x08 0x01', () => {
    const emu = make({ serial: '01025' });
    expect(ask(emu, cmd('send-bus-address'))).toEqual([{ type: 'bus-address', address: 1025 }]);
  });

  it('trademark and battery status decode with the codec', () => {
    const emu = make({ trademark: 'DGT Projects test', battery: { percent: 87, status: 0x02 } });
    expect(ask(emu, cmd('send-trademark'))).toEqual([{ type: 'trademark', text: 'DGT Projects test' }]);
    const [bat] = ask(emu, cmd('send-battery'), 125 * 60_000);
    expect(bat).toMatchObject({ type: 'battery', percent: 87, timeLeftHours: null, onHours: 2, onMinutes: 5, discharging: true, charging: false });
  });

  it('board dump is 67 bytes with the position', () => {
    const emu = make();
    emu.receive(cmd('send-board'), 0);
    const bytes = emu.takeOutput();
    expect(bytes.length).toBe(67);
    expect(hex(bytes.slice(0, 11))).toBe('86 00 43 08 09 0a 0c 0b 0a 09 08');
    expect(decode(bytes)).toEqual([{ type: 'board-dump', board: standardStartBoard() }]);
  });

  it('ignores junk bytes and counts them, and handles commands split across reads', () => {
    const emu = make();
    emu.receive(Uint8Array.of(0x00, 0x7e), 0);
    expect(emu.takeOutput().length).toBe(0);
    expect(emu.counters.junkBytes).toBe(2);
    const ascii = clockCmd({ type: 'ascii', text: 'HELLO', beep: 0 });
    emu.receive(cmd('send-update-nice'), 0);
    emu.takeOutput();
    emu.receive(ascii.slice(0, 5), 10);
    expect(decode(emu.takeOutput())).toEqual([]);
    const [ack] = ask(emu, ascii.slice(5), 20);
    expect(ack).toMatchObject({ type: 'clock-ack', ackedCommand: 0x0c, error: false });
    expect(emu.clockDisplay()).toEqual({ kind: 'text', text: 'HELLO   ', beep: 0 });
  });
});

describe('BoardEmulator: modes', () => {
  it('IDLE after power-up and reset: no automatic messages', () => {
    const emu = make();
    emu.act({ kind: 'press', at: 100, by: 'black' });
    emu.act({ kind: 'lift', at: 500, field: f('e2') });
    emu.advanceTo(5000);
    expect(emu.mode).toBe('idle');
    expect(emu.takeOutput().length).toBe(0);
    emu.receive(cmd('send-update'), 5000);
    emu.receive(cmd('reset'), 5000);
    emu.takeOutput();
    emu.act({ kind: 'place', at: 6000, field: f('e4'), piece: PIECE.WPAWN });
    emu.advanceTo(9000);
    expect(emu.takeOutput().length).toBe(0);
  });

  it('UPDATE_BOARD: field updates only, in the order seen', () => {
    const emu = make();
    ask(emu, cmd('send-update-board'), 0);
    emu.act({ kind: 'press', at: 100, by: 'black' });
    emu.act({ kind: 'lift', at: 1000, field: f('e2') });
    emu.act({ kind: 'place', at: 1400, field: f('e4'), piece: PIECE.WPAWN });
    emu.advanceTo(4000);
    expect(decode(emu.takeOutput())).toEqual([
      { type: 'field-update', field: f('e2'), piece: PIECE.EMPTY },
      { type: 'field-update', field: f('e4'), piece: PIECE.WPAWN },
    ]);
  });

  it('UPDATE: clock times at least every second, even when nothing changes', () => {
    const emu = make();
    ask(emu, cmd('send-update'), 0);
    emu.advanceTo(5000);
    const msgs = decode(emu.takeOutput());
    expect(msgs.length).toBeGreaterThanOrEqual(5);
    expect(msgs.every((m) => m.type === 'clock-times')).toBe(true);
  });

  it('UPDATE_NICE: clock times only when they change', () => {
    const emu = make();
    ask(emu, cmd('send-update-nice'), 0);
    emu.advanceTo(5000);
    // One reading on entering the mode, then nothing while the clock stands still.
    expect(decode(emu.takeOutput()).map((m) => m.type)).toEqual(['clock-times']);
    emu.act({ kind: 'press', at: 5000, by: 'white' }); // starts Black's time
    emu.advanceTo(8000);
    const times = decode(emu.takeOutput()).filter((m) => m.type === 'clock-times');
    expect(times.map((t) => t.type === 'clock-times' && t.right.ms)).toEqual([300_000, 299_000, 298_000, 297_000]);
  });

  it('a clock set by hand: the next reading shows the new time, the same side running', () => {
    const emu = make();
    ask(emu, cmd('send-update-nice'), 0);
    emu.act({ kind: 'press', at: 5000, by: 'white' }); // starts Black's time
    emu.advanceTo(6000);
    emu.takeOutput();
    emu.act({ kind: 'clock-adjust', at: 6000, by: 'black', ms: 60_000 });
    emu.advanceTo(7000);
    const times = decode(emu.takeOutput()).filter((m) => m.type === 'clock-times');
    expect(times.map((t) => t.type === 'clock-times' && [t.left.ms, t.right.ms, t.status.rightToMove])).toEqual([
      [300_000, 359_000, true],
      [300_000, 358_000, true],
    ]);
  });

  it("a clock's cable out: BWTIME says no clock and the board logs no press; the clock runs on, read again with the cable in", () => {
    const emu = make();
    ask(emu, cmd('send-update-nice'), 0);
    emu.act({ kind: 'press', at: 1000, by: 'white' }); // starts Black's time
    emu.advanceTo(2000);
    emu.takeOutput();
    emu.act({ kind: 'clock-cable-out', at: 2000 });
    emu.act({ kind: 'press', at: 4000, by: 'black' }); // White's time runs, unread
    emu.advanceTo(6000);
    const out = decode(emu.takeOutput()).filter((m) => m.type === 'clock-times');
    expect(out.length).toBeGreaterThan(0);
    expect(out.every((m) => m.type === 'clock-times' && m.status.noClock)).toBe(true);
    emu.act({ kind: 'clock-cable-in', at: 6000 });
    emu.advanceTo(6500);
    const back = decode(emu.takeOutput()).filter((m) => m.type === 'clock-times');
    // White on the left: 300 s less the 2 s since Black's press; Black 300 - 3 + 3.
    expect(back.map((m) => m.type === 'clock-times' && [m.status.noClock, m.left.ms, m.right.ms])).toEqual([[false, 298_000, 300_000]]);
  });

  it('SEND_CLK and SEND_BRD answer without changing the mode', () => {
    const emu = make();
    ask(emu, cmd('send-update-board'), 0);
    expect(ask(emu, cmd('send-clock'), 10).map((m) => m.type)).toEqual(['clock-times']);
    expect(ask(emu, cmd('send-board'), 20).map((m) => m.type)).toEqual(['board-dump']);
    expect(emu.mode).toBe('update-board');
    emu.act({ kind: 'lift', at: 30, field: f('g1') });
    expect(decode(emu.takeOutput())).toEqual([{ type: 'field-update', field: f('g1'), piece: PIECE.EMPTY }]);
  });
});

describe('BoardEmulator: the clock', () => {
  it('runs down with the increment, reports sides from whiteOnClock, and flags', () => {
    const emu = make({ clock: { baseMs: 10_000, incrementMs: 2_000 }, whiteOnClock: 'right' });
    ask(emu, cmd('send-update-nice'), 0);
    emu.act({ kind: 'press', at: 0, by: 'black' }); // White's time starts: White sits on the right
    emu.advanceTo(3000);
    emu.takeOutput();
    const [r1] = ask(emu, cmd('send-clock'), 3000);
    expect(r1).toMatchObject({
      type: 'clock-times',
      right: { ms: 7000, timePerMove: true, flagFallenBlocked: false },
      left: { ms: 10_000, timePerMove: true },
      status: { running: true, rightToMove: true, leftToMove: false, rightLeverHigh: true, noClock: false },
    });
    emu.act({ kind: 'press', at: 3000, by: 'white' }); // White +2 s, Black runs
    const [afterPress] = decode(emu.takeOutput());
    expect(afterPress).toMatchObject({ type: 'clock-times', right: { ms: 9000 }, left: { ms: 10_000 }, status: { leftToMove: true, rightLeverHigh: false } });
    emu.advanceTo(30_000);
    const last = decode(emu.takeOutput()).at(-1);
    expect(last).toMatchObject({ type: 'clock-times', left: { ms: 0, flagFallenBlocked: true }, right: { ms: 9000, flagFallenBlocked: false } });
  });

  it('exact BWTIME bytes: 1:05:09 left running, 0:00:07 right', () => {
    const emu = make({ clock: { baseMs: (3600 + 5 * 60 + 9) * 1000, incrementMs: 0 } });
    emu.act({ kind: 'press', at: 0, by: 'black' }); // White (left) runs
    emu.receive(cmd('send-clock'), 0);
    // right: 1:05:09 (black, stopped); left: 1:05:09 (white, running); status running + left's turn
    expect(hex(emu.takeOutput())).toBe('8d 00 0a 01 05 09 01 05 09 11');
  });

  it('with no clock attached, BWTIME says so and clock commands get no ACK', () => {
    const emu = make({ clock: null });
    ask(emu, cmd('send-update-nice'), 0);
    emu.advanceTo(1000);
    emu.takeOutput();
    expect(ask(emu, cmd('send-clock'), 1000)).toMatchObject([{ type: 'clock-times', status: { noClock: true } }]);
    expect(ask(emu, clockCmd({ type: 'beep', units: 2 }), 1000)).toEqual([]);
  });

  it('clock commands are ACKed only in UPDATE and UPDATE_NICE', () => {
    const emu = make();
    const beep = clockCmd({ type: 'beep', units: 4 });
    expect(ask(emu, beep, 0)).toEqual([]); // IDLE
    ask(emu, cmd('send-update-board'), 0);
    expect(ask(emu, beep, 0)).toEqual([]);
    expect(emu.beepMs).toBe(2 * 4 * 64); // carried out anyway
    for (const mode of ['send-update', 'send-update-nice'] as const) {
      ask(emu, cmd(mode), 0);
      emu.advanceTo(emu.time + 300);
      emu.takeOutput();
      expect(ask(emu, beep)).toMatchObject([{ type: 'clock-ack', ack0: 0x10, ack1: 0x0b, ackedCommand: 0x0b, kind: 'command' }]);
    }
  });

  it('acks display, end, button, version (with the version in ack2) and SETNRUN', () => {
    const emu = make({ clockVersion: { major: 2, minor: 3 } });
    ask(emu, cmd('send-update-nice'), 0);
    emu.advanceTo(300);
    emu.takeOutput();
    expect(ask(emu, clockCmd({ type: 'display', segments: [1, 2, 4, 8, 16, 32], dots: 0x03, beep: true }))).toMatchObject([{ ackedCommand: 0x01 }]);
    expect(emu.clockDisplay()).toEqual({ kind: 'segments', segments: [1, 2, 4, 8, 16, 32], icons: 0x03, beep: true });
    expect(ask(emu, clockCmd({ type: 'end' }))).toMatchObject([{ ackedCommand: 0x03 }]);
    expect(emu.clockDisplay()).toEqual({ kind: 'times' });
    expect(ask(emu, clockCmd({ type: 'button' }))).toMatchObject([{ ackedCommand: 0x08 }]);
    expect(ask(emu, clockCmd({ type: 'version' }))).toMatchObject([{ ackedCommand: 0x09, ack2: 0x23 }]);
    const setnrun = clockCmd({
      type: 'setnrun',
      left: { hours: 1, minutes: 2, seconds: 3 },
      right: { hours: 0, minutes: 0, seconds: 5 },
      leftRuns: false,
      rightRuns: true,
      pause: false,
      toggleOnLever: true,
    });
    emu.receive(setnrun, 1000);
    const [ack] = decode(emu.takeOutput());
    expect(ack).toMatchObject({ type: 'clock-ack', ackedCommand: 0x0a, error: false });
    emu.advanceTo(3100);
    const times = decode(emu.takeOutput()).filter((m) => m.type === 'clock-times');
    expect(times.at(-1)).toMatchObject({ left: { ms: 3723_000 }, right: { ms: 3000 }, status: { rightToMove: true } });
    // Toggle on lever: the right side's player (Black, with White on the left) presses.
    emu.act({ kind: 'press', at: 3100, by: 'black' });
    expect(decode(emu.takeOutput()).at(-1)).toMatchObject({ right: { ms: 3000 }, status: { leftToMove: true } });
  });

  it('optional realism: a delayed ACK, and the Bluetooth all-zero BWTIME before it', () => {
    const emu = make({ clockAckDelayMs: 800, zeroBwtimeAfterClockCommand: true });
    ask(emu, cmd('send-update-nice'), 0);
    emu.advanceTo(300);
    emu.takeOutput();
    expect(ask(emu, clockCmd({ type: 'end' }), 300)).toEqual([{ type: 'clock-zero' }]);
    emu.advanceTo(1000);
    expect(decode(emu.takeOutput())).toEqual([]);
    emu.advanceTo(1100);
    expect(decode(emu.takeOutput())).toMatchObject([{ type: 'clock-ack', ackedCommand: 0x03 }]);
  });

  it('clock buttons: unsolicited ACK 0x88 with the button in ack3', () => {
    const emu = make();
    emu.act({ kind: 'button', at: 0, button: 'ok' });
    expect(emu.takeOutput().length).toBe(0); // IDLE: nothing
    ask(emu, cmd('send-update-nice'), 0);
    emu.advanceTo(300);
    emu.takeOutput();
    emu.act({ kind: 'button', at: 400, button: 'plus' });
    emu.pressButton('back', 500);
    expect(decode(emu.takeOutput())).toMatchObject([
      { type: 'clock-ack', ack1: 0x88, ack3: 0x32, kind: 'button', button: 'plus' },
      { type: 'clock-ack', ack1: 0x88, ack3: 0x31, kind: 'button', button: 'back' },
    ]);
  });
});

describe('BoardEmulator: cable', () => {
  it('while unplugged nothing goes out and host bytes are lost; plugging in is a power-up', () => {
    const emu = make();
    ask(emu, cmd('send-update-nice'), 0);
    emu.act({ kind: 'unplug', at: 100 });
    emu.takeOutput();
    emu.receive(cmd('send-board'), 200);
    emu.act({ kind: 'lift', at: 300, field: f('e2') });
    emu.act({ kind: 'press', at: 400, by: 'white' });
    emu.advanceTo(5000);
    expect(emu.takeOutput().length).toBe(0);
    expect(emu.counters.lostWhileUnplugged).toBe(1);
    emu.act({ kind: 'plug', at: 6000 });
    expect(emu.mode).toBe('idle');
    emu.advanceTo(8000);
    expect(emu.takeOutput().length).toBe(0);
    const [dump] = ask(emu, cmd('send-board'), 8000);
    expect(dump).toMatchObject({ type: 'board-dump' });
    expect(dump!.type === 'board-dump' && dump.board[f('e2')]).toBe(PIECE.EMPTY);
  });
});
