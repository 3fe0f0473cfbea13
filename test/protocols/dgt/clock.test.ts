import { describe, expect, it } from 'vitest';
import { clockAck, decodeAll, decodeBwtime, decodeClockFrame, encodeClockCommand, encodeMessage, isClockAck, msToHms } from '../../../protocols/dgt/index.ts';
import type { BoardMessage, ClockCommand } from '../../../protocols/dgt/index.ts';
import { hex, toHex } from './hex.ts';
import { Rng } from './stream-gen.ts';

function decodeBw(bytes: string): BoardMessage {
  const { frames, stats } = decodeAll(hex(bytes));
  expect(stats.discardedBytes).toBe(0);
  expect(frames).toHaveLength(1);
  return frames[0]!.message;
}

describe('BWTIME clock times', () => {
  it('decodes BCD minutes/seconds, binary hours, and the flag / time-per-move bits of each side', () => {
    // right 1:23:45 with time-per-move (bit 5); left 0:05:09 flag fallen & blocked (bit 4);
    // status: running, left player's turn.
    const msg = decodeBw('8d 00 0a 21 23 45 10 05 09 11');
    expect(msg).toEqual({
      type: 'clock-times',
      right: { hours: 1, minutes: 23, seconds: 45, ms: 5025_000, flagFallenBlocked: false, timePerMove: true, flagFallenShown: false },
      left: { hours: 0, minutes: 5, seconds: 9, ms: 309_000, flagFallenBlocked: true, timePerMove: false, flagFallenShown: false },
      status: { running: true, rightLeverHigh: false, batteryLow: false, rightToMove: false, leftToMove: true, noClock: false },
    });
    expect(toHex(encodeMessage(msg))).toBe('8d 00 0a 21 23 45 10 05 09 11');
  });

  it('bit 6 of the hours byte: flag fallen and shown, clock possibly running on', () => {
    const msg = decodeBw('8d 00 0a 49 59 59 00 00 01 01');
    if (msg.type !== 'clock-times') throw new Error(msg.type);
    expect(msg.right).toMatchObject({ hours: 9, minutes: 59, seconds: 59, flagFallenShown: true, flagFallenBlocked: false, timePerMove: false });
    expect(msg.left).toMatchObject({ hours: 0, minutes: 0, seconds: 1, ms: 1000 });
  });

  it('each status bit maps to its own field', () => {
    const names = ['running', 'rightLeverHigh', 'batteryLow', 'rightToMove', 'leftToMove', 'noClock'] as const;
    names.forEach((name, bit) => {
      const msg = decodeBwtime([0, 0x10, 0, 0, 0, 0, 1 << bit]);
      if (msg.type !== 'clock-times') throw new Error(msg.type);
      for (const other of names) expect(msg.status[other]).toBe(other === name);
    });
  });

  it('the all-zero BWTIME (sent after a clock command over Bluetooth) is clock-zero, to be ignored', () => {
    expect(decodeBw('8d 00 0a 00 00 00 00 00 00 00')).toEqual({ type: 'clock-zero' });
    expect(toHex(encodeMessage({ type: 'clock-zero' }))).toBe('8d 00 0a 00 00 00 00 00 00 00');
    // A single set bit (clock stopped at 0:00:00, lever right) is real clock data, not clock-zero.
    expect(decodeBw('8d 00 0a 00 00 00 00 00 00 02').type).toBe('clock-times');
  });
});

describe('BWTIME clock ACK', () => {
  it('is an ACK when (byte3 & 0x0f) == 0x0a or (byte6 & 0x0f) == 0x0a', () => {
    expect(isClockAck(0x0a, 0x00)).toBe(true);
    expect(isClockAck(0x3a, 0x00)).toBe(true);
    expect(isClockAck(0x00, 0x0a)).toBe(true);
    expect(isClockAck(0x00, 0x2a)).toBe(true);
    expect(isClockAck(0x09, 0x09)).toBe(false);
    expect(decodeBw('8d 00 0a 00 10 0b 0a 00 00 00')).toMatchObject({ type: 'clock-ack', kind: 'command', ackedCommand: 0x0b });
  });

  it("unsolicited 'ready': ack1 0x81 (its bit 7 travels in bit 5 of byte 6)", () => {
    const msg = decodeBw('8d 00 0a 0a 10 01 2a 00 00 00');
    expect(msg).toEqual({ type: 'clock-ack', ack0: 0x10, ack1: 0x81, ack2: 0, ack3: 0, error: false, kind: 'ready' });
    expect(toHex(encodeMessage(msg))).toBe('8d 00 0a 0a 10 01 2a 00 00 00');
  });

  it('button events: ack1 0x88, ack3 0x31 back … 0x35 ok', () => {
    const names = ['back', 'plus', 'run', 'minus', 'ok'];
    names.forEach((button, k) => {
      const b8 = (0x31 + k).toString(16);
      const msg = decodeBw(`8d 00 0a 0a 10 08 2a 00 ${b8} 00`);
      expect(msg).toEqual({ type: 'clock-ack', ack0: 0x10, ack1: 0x88, ack2: 0, ack3: 0x31 + k, error: false, kind: 'button', button });
      expect(toHex(encodeMessage(msg))).toBe(`8d 00 0a 0a 10 08 2a 00 ${b8} 00`);
    });
    // An unlisted button code is still a button event, without a name.
    const odd = decodeBw('8d 00 0a 0a 10 08 2a 00 36 00');
    expect(odd).toMatchObject({ kind: 'button', ack3: 0x36 });
    expect(odd).not.toHaveProperty('button');
  });

  it('command ACKs name the command acked; ack0 0x40 is an error; version in ack2', () => {
    expect(decodeBw('8d 00 0a 0a 10 0a 0a 00 00 00')).toEqual({
      type: 'clock-ack',
      ack0: 0x10,
      ack1: 0x0a,
      ack2: 0,
      ack3: 0,
      error: false,
      kind: 'command',
      ackedCommand: 0x0a,
    });
    expect(decodeBw('8d 00 0a 0a 40 0a 0a 00 00 00')).toMatchObject({ error: true, ackedCommand: 0x0a });
    // Version ack: ack2 >> 4 main version, ack2 & 0x0f sub version.
    expect(decodeBw('8d 00 0a 0a 10 09 0a 21 00 00')).toMatchObject({ ackedCommand: 0x09, ack2: 0x21 });
  });

  it('bit 7 of ack2/ack3 comes from bits 4/5 of byte 3, of ack0/ack1 from bits 4/5 of byte 6', () => {
    const msg = decodeBw('8d 00 0a 3a 10 08 3a 7f 7f 00');
    expect(msg).toMatchObject({ ack0: 0x90, ack1: 0x88, ack2: 0xff, ack3: 0xff });
    expect(toHex(encodeMessage(msg))).toBe('8d 00 0a 3a 10 08 3a 7f 7f 00');
  });

  it('the decode follows the reference formula on every ACK-marked byte combination sampled', () => {
    const r = new Rng(5);
    for (let n = 0; n < 5000; n++) {
      const b = Array.from({ length: 7 }, () => r.int(0, 0x7f));
      if (r.bool()) b[0] = (b[0]! & 0xf0) | 0x0a;
      else b[3] = (b[3]! & 0xf0) | 0x0a;
      const [b3, b4, b5, b6, b7, b8] = b as [number, number, number, number, number, number, number];
      const msg = decodeBwtime(b);
      expect(msg).toMatchObject({
        type: 'clock-ack',
        ack0: (b4 & 0x7f) | ((b6 << 3) & 0x80),
        ack1: (b5 & 0x7f) | ((b6 << 2) & 0x80),
        ack2: (b7 & 0x7f) | ((b3 << 3) & 0x80),
        ack3: (b8 & 0x7f) | ((b3 << 2) & 0x80),
      });
    }
  });

  it('clockAck builds any ACK from its four bytes and survives encode → decode', () => {
    for (const [a0, a1, a2, a3] of [
      [0x10, 0x81, 0, 0],
      [0x10, 0x88, 0x80, 0xb3],
      [0x40, 0x0b, 0x12, 0x7f],
      [0x10, 0x90, 0, 0],
    ] as const) {
      const msg = clockAck(a0, a1, a2, a3);
      expect(msg).toMatchObject({ ack0: a0, ack1: a1, ack2: a2, ack3: a3 });
      expect(decodeAll(encodeMessage(msg)).frames[0]!.message).toEqual(msg);
    }
    expect(clockAck(0x10, 0x90, 0, 0).kind).toBe('unsolicited');
  });
});

describe('clock commands inside CLOCK_MESSAGE 0x2b: 0x2b, size, 0x03, id, content, 0x00', () => {
  const cases: [ClockCommand, string][] = [
    [{ type: 'end' }, '2b 03 03 03 00'],
    [{ type: 'button' }, '2b 03 03 08 00'],
    [{ type: 'version' }, '2b 03 03 09 00'],
    [{ type: 'beep', units: 16 }, '2b 04 03 0b 10 00'],
    [
      {
        type: 'setnrun',
        left: { hours: 0, minutes: 5, seconds: 0 },
        right: { hours: 1, minutes: 30, seconds: 0 },
        leftRuns: true,
        rightRuns: false,
        pause: false,
        toggleOnLever: true,
      },
      '2b 0a 03 0a 00 05 00 01 1e 00 09 00',
    ],
    [
      {
        type: 'setnrun',
        left: { hours: 0, minutes: 0, seconds: 59 },
        right: { hours: 9, minutes: 59, seconds: 59 },
        leftRuns: false,
        rightRuns: true,
        pause: true,
        toggleOnLever: false,
      },
      '2b 0a 03 0a 00 00 3b 09 3b 3b 06 00',
    ],
    [{ type: 'ascii', text: 'HELLO   ', beep: 0 }, '2b 0c 03 0c 48 45 4c 4c 4f 20 20 20 00 00'],
    [{ type: 'ascii', text: 'e4 e5!!!', beep: 3 }, '2b 0c 03 0c 65 34 20 65 35 21 21 21 03 00'],
    [{ type: 'display', segments: [0x3f, 0x06, 0x5b, 0x4f, 0x66, 0x6d], dots: 0x09, beep: true }, '2b 0b 03 01 3f 06 5b 4f 66 6d 09 03 00'],
    [{ type: 'display', segments: [0, 0, 0, 0, 0, 0], dots: 0, beep: false }, '2b 0b 03 01 00 00 00 00 00 00 00 01 00'],
    [{ type: 'icons', data: [1, 2, 4, 8, 0x10, 0, 0, 0] }, '2b 0b 03 02 01 02 04 08 10 00 00 00 00'],
    [{ type: 'unknown', id: 0x0d, content: [1, 2] }, '2b 05 03 0d 01 02 00'],
  ];
  for (const [cmd, bytes] of cases) {
    it(`${cmd.type} ↔ ${bytes}`, () => {
      expect(toHex(encodeClockCommand(cmd))).toBe(bytes);
      const r = decodeClockFrame(hex(bytes));
      expect(r).toEqual({ ok: true, value: { command: cmd, size: hex(bytes).length } });
    });
  }

  it('ASCII text is padded/cut to 8 characters', () => {
    expect(toHex(encodeClockCommand({ type: 'ascii', text: 'ab', beep: 0 }))).toBe('2b 0c 03 0c 61 62 20 20 20 20 20 20 00 00');
    expect(toHex(encodeClockCommand({ type: 'ascii', text: 'abcdefghij', beep: 0 }))).toBe('2b 0c 03 0c 61 62 63 64 65 66 67 68 00 00');
  });

  it('a known id with unexpected content is kept verbatim as unknown, not misread', () => {
    expect(decodeClockFrame(hex('2b 04 03 03 07 00'))).toEqual({ ok: true, value: { command: { type: 'unknown', id: 3, content: [7] }, size: 6 } });
    expect(decodeClockFrame(hex('2b 0b 03 01 00 00 00 00 00 00 00 02 00'))).toMatchObject({ value: { command: { type: 'unknown', id: 1 } } });
  });

  it('bad frames are reasons, not exceptions', () => {
    expect(decodeClockFrame(hex('2b 03 04 03 00'))).toEqual({ ok: false, error: 'clock message without start byte 0x03' });
    expect(decodeClockFrame(hex('2b 03 03 03 01'))).toEqual({ ok: false, error: 'clock message without end byte 0x00' });
    expect(decodeClockFrame(hex('2b 05 03 03'))).toEqual({ ok: false, error: 'incomplete clock message' });
    expect(decodeClockFrame(hex('2b 02 03 00'))).toEqual({ ok: false, error: 'clock message size 2 < 3' });
    expect(decodeClockFrame(hex('2b'))).toEqual({ ok: false, error: 'missing size byte' });
    expect(decodeClockFrame(hex('41'))).toEqual({ ok: false, error: 'not a clock message (0x2b)' });
  });
});

describe('msToHms (SETNRUN times)', () => {
  it('rounds up to whole seconds and caps at the display maximum 9:59:59', () => {
    expect(msToHms(0)).toEqual({ hours: 0, minutes: 0, seconds: 0 });
    expect(msToHms(5 * 60_000 + 1)).toEqual({ hours: 0, minutes: 5, seconds: 1 });
    expect(msToHms(90 * 60_000)).toEqual({ hours: 1, minutes: 30, seconds: 0 });
    expect(msToHms(10 * 3600_000)).toEqual({ hours: 9, minutes: 59, seconds: 59 });
    expect(msToHms(-5)).toEqual({ hours: 0, minutes: 0, seconds: 0 });
  });
});
