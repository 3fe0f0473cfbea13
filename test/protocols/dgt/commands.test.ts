import { describe, expect, it } from 'vitest';
import { CommandDecoder, encodeClockCommand, encodeCommand } from '../../../protocols/dgt/index.ts';
import type { HostCommand, SimpleCommandType } from '../../../protocols/dgt/index.ts';
import { hex, toHex } from './hex.ts';
import { Rng } from './stream-gen.ts';

const SIMPLE: [SimpleCommandType, number][] = [
  ['reset', 0x40],
  ['send-clock', 0x41],
  ['send-board', 0x42],
  ['send-update', 0x43],
  ['send-update-board', 0x44],
  ['send-serial', 0x45],
  ['send-bus-address', 0x46],
  ['send-trademark', 0x47],
  ['send-ee-moves', 0x49],
  ['to-bus-mode', 0x4a],
  ['send-update-nice', 0x4b],
  ['send-battery', 0x4c],
  ['send-version', 0x4d],
  ['send-long-serial', 0x55],
];

describe('host → board commands', () => {
  for (const [type, code] of SIMPLE) {
    it(`${type} is the single byte 0x${code.toString(16)}`, () => {
      expect(Array.from(encodeCommand({ type }))).toEqual([code]);
      const d = new CommandDecoder();
      expect(d.push(Uint8Array.of(code))).toEqual([{ type }]);
      expect(d.stats).toEqual({ commands: 1, unknownBytes: 0, badFrames: 0 });
    });
  }

  it('SET_LEDS: 0x60 0x04 pattern start end 0x00', () => {
    const cmd: HostCommand = { type: 'set-leds', pattern: 1, start: 12, end: 28 };
    expect(toHex(encodeCommand(cmd))).toBe('60 04 01 0c 1c 00');
    expect(new CommandDecoder().push(hex('60 04 01 0c 1c 00'))).toEqual([cmd]);
  });

  it('CLOCK_MESSAGE wraps a clock command', () => {
    const cmd: HostCommand = { type: 'clock', command: { type: 'beep', units: 5 } };
    expect(toHex(encodeCommand(cmd))).toBe('2b 04 03 0b 05 00');
    expect(new CommandDecoder().push(hex('2b 04 03 0b 05 00'))).toEqual([cmd]);
  });

  it('the typical start (RESET, SEND_BRD, SEND_UPDATE_NICE, serial, version) parses in one burst', () => {
    expect(new CommandDecoder().push(hex('40 42 4b 45 4d'))).toEqual([{ type: 'reset' }, { type: 'send-board' }, { type: 'send-update-nice' }, { type: 'send-serial' }, { type: 'send-version' }]);
  });

  it('multi-byte commands split over byte-sized chunks wait for their whole frame', () => {
    const bytes = Uint8Array.from([
      ...encodeCommand({ type: 'clock', command: { type: 'ascii', text: 'A B C D ', beep: 1 } }),
      ...encodeCommand({ type: 'set-leds', pattern: 0, start: 0, end: 63 }),
      0x41,
    ]);
    const d = new CommandDecoder();
    const got: HostCommand[] = [];
    bytes.forEach((b, i) => {
      const out = d.push(Uint8Array.of(b));
      // ASCII text contains 0x41 ('A') etc.: it must not be read as SEND_CLK mid-frame.
      if (i < 13) expect(out).toEqual([]);
      got.push(...out);
    });
    expect(got).toEqual([{ type: 'clock', command: { type: 'ascii', text: 'A B C D ', beep: 1 } }, { type: 'set-leds', pattern: 0, start: 0, end: 63 }, { type: 'send-clock' }]);
    expect(d.stats).toEqual({ commands: 3, unknownBytes: 0, badFrames: 0 });
  });

  it('unknown bytes are counted, not thrown, and parsing carries on', () => {
    const d = new CommandDecoder();
    expect(d.push(hex('00 ff 48 41'))).toEqual([{ type: 'send-clock' }]);
    expect(d.stats.unknownBytes).toBe(3);
    expect(d.lastProblem).toBe('unknown command byte 0x48');
  });

  it('a bad clock frame costs its 0x2b byte only', () => {
    const d = new CommandDecoder();
    // Missing the 0x03 start: 0x2b is dropped, then 0x03 (unknown), 0x41 SEND_CLK, 0x00 (unknown).
    expect(d.push(hex('2b 02 03 41 00'))).toEqual([{ type: 'send-clock' }]);
    expect(d.stats.badFrames).toBe(1);
    const e = new CommandDecoder();
    expect(e.push(hex('2b 03 07'))).toEqual([]);
    expect(e.stats).toEqual({ commands: 0, unknownBytes: 2, badFrames: 1 });
    const f = new CommandDecoder();
    expect(f.push(hex('60 05 01 02 03 00 42'))).toEqual([{ type: 'send-board' }]);
    expect(f.stats.badFrames).toBe(1);
  });

  it('encode → decode round-trips every command, and random bytes never throw', () => {
    const all: HostCommand[] = [
      ...SIMPLE.map(([type]) => ({ type }) as HostCommand),
      { type: 'set-leds', pattern: 3, start: 0, end: 7 },
      { type: 'clock', command: { type: 'end' } },
      { type: 'clock', command: { type: 'display', segments: [1, 2, 3, 4, 5, 6], dots: 0x3f, beep: false } },
      {
        type: 'clock',
        command: { type: 'setnrun', left: { hours: 1, minutes: 2, seconds: 3 }, right: { hours: 4, minutes: 5, seconds: 6 }, leftRuns: false, rightRuns: false, pause: true, toggleOnLever: true },
      },
    ];
    const bytes = Uint8Array.from(all.flatMap((c) => [...encodeCommand(c)]));
    expect(new CommandDecoder().push(bytes)).toEqual(all);
    expect(toHex(encodeCommand({ type: 'clock', command: { type: 'version' } }))).toBe(toHex(encodeClockCommand({ type: 'version' })));

    const r = new Rng(3);
    const d = new CommandDecoder();
    for (let n = 0; n < 2000; n++) d.push(r.bytes(r.int(0, 64)));
    expect(d.stats.commands + d.stats.unknownBytes + d.stats.badFrames).toBeGreaterThan(0);
  });
});
