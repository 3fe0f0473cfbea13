import { describe, expect, it } from 'vitest';
import { BUS_COMMAND_CODES, BusCommandDecoder, CommandDecoder, HostStreamDecoder, decodeHostStream, encodeBusCommand, encodeCommand, SIMPLE_COMMAND_CODES } from '../../../protocols/dgt/index.ts';
import type { BusCommandType, ClockCommand, HostCommand, HostStreamItem, SimpleCommandType } from '../../../protocols/dgt/index.ts';
import { hex, toHex } from './hex.ts';
import { Rng } from './stream-gen.ts';

/** Items with their raw bytes as hex, so failures read like the wire. */
const show = (items: HostStreamItem[]) => items.map((it) => ('raw' in it ? { ...it, raw: toHex(it.raw) } : it));

describe('HostStreamDecoder: golden bytes', () => {
  it('the single-board start-up burst (RESET, SEND_BRD, SEND_UPDATE_NICE)', () => {
    expect(show(decodeHostStream(hex('40 42 4b')))).toEqual([
      { type: 'command', command: { type: 'reset' }, raw: '40' },
      { type: 'command', command: { type: 'send-board' }, raw: '42' },
      { type: 'command', command: { type: 'send-update-nice' }, raw: '4b' },
    ]);
  });

  it('a clock frame (BEEP 5) and SET_LEDS', () => {
    expect(show(decodeHostStream(hex('2b 04 03 0b 05 00 60 04 01 0c 1c 00')))).toEqual([
      { type: 'command', command: { type: 'clock', command: { type: 'beep', units: 5 } }, raw: '2b 04 03 0b 05 00' },
      { type: 'command', command: { type: 'set-leds', pattern: 1, start: 12, end: 28 }, raw: '60 04 01 0c 1c 00' },
    ]);
  });

  it('single-board and bus commands mixed: TO_BUSMODE, SEND_BRD to 100, PING to all, END_BUSMODE, then SEND_CLK', () => {
    // checksums: (0x82 + 0x00 + 0x64) & 0x7f = 0x66; 0x87 & 0x7f = 0x07; 0x88 & 0x7f = 0x08
    const d = new HostStreamDecoder();
    expect(show(d.push(hex('4a 82 00 64 66 87 00 00 07 88 00 00 08 41')))).toEqual([
      { type: 'command', command: { type: 'to-bus-mode' }, raw: '4a' },
      { type: 'bus-command', command: { type: 'send-board' }, address: 100, raw: '82 00 64 66' },
      { type: 'bus-command', command: { type: 'ping' }, address: 0, raw: '87 00 00 07' },
      { type: 'bus-command', command: { type: 'end-busmode' }, address: 0, raw: '88 00 00 08' },
      { type: 'command', command: { type: 'send-clock' }, raw: '41' },
    ]);
    expect(d.stats).toEqual({ commands: 2, busCommands: 3, unknownBusIds: 0, badChecksums: 0, badFrames: 0, unknownBytes: 0 });
    expect(d.pendingBytes).toBe(0);
  });

  it('a 14-bit address: serial 01025 is 0x08 0x01 (dgtbrd.h)', () => {
    // (0x8b + 0x08 + 0x01) & 0x7f = 0x14
    expect(show(decodeHostStream(hex('8b 08 01 14')))).toEqual([{ type: 'bus-command', command: { type: 'send-version' }, address: 1025, raw: '8b 08 01 14' }]);
  });

  it('bad checksum, unknown bus id, a bus command cut short, unknown bytes: counted, never thrown', () => {
    const d = new HostStreamDecoder();
    // 82 00 64 67: checksum should be 66. 8c 00 64 70: good checksum, 0x8c is no bus command.
    // 83 00: lost its last two bytes, the next id byte 87 starts a good PING. 00 7e: nothing.
    const items = d.push(hex('82 00 64 67 8c 00 64 70 83 00 87 00 00 07 00 7e'));
    expect(show(items)).toEqual([
      { type: 'bad-checksum', code: 0x82, address: 100, raw: '82 00 64 67' },
      { type: 'bus-unknown', code: 0x8c, address: 100, raw: '8c 00 64 70' },
      { type: 'bad-frame', reason: 'bus command 0x83 cut short after 2 bytes', raw: '83 00' },
      { type: 'bus-command', command: { type: 'ping' }, address: 0, raw: '87 00 00 07' },
      { type: 'unknown-byte', byte: 0x00 },
      { type: 'unknown-byte', byte: 0x7e },
    ]);
    expect(d.stats).toEqual({ commands: 0, busCommands: 1, unknownBusIds: 1, badChecksums: 1, badFrames: 1, unknownBytes: 2 });
    expect(d.lastProblem).toBe('unknown command byte 0x7e');
  });

  it('a bad clock frame costs its 0x2b only, exactly as CommandDecoder reads it', () => {
    const bytes = hex('2b 02 03 41 00');
    const d = new HostStreamDecoder();
    expect(show(d.push(bytes))).toEqual([
      { type: 'bad-frame', reason: 'clock message size 2 < 3', raw: '2b' },
      { type: 'unknown-byte', byte: 0x02 },
      { type: 'unknown-byte', byte: 0x03 },
      { type: 'command', command: { type: 'send-clock' }, raw: '41' },
      { type: 'unknown-byte', byte: 0x00 },
    ]);
    const c = new CommandDecoder();
    c.push(bytes);
    expect(c.stats).toEqual({ commands: d.stats.commands, unknownBytes: d.stats.unknownBytes, badFrames: d.stats.badFrames });
  });

  it('MSB-set bytes inside a clock frame are content, not bus commands', () => {
    const icons: HostCommand = { type: 'clock', command: { type: 'icons', data: [0x81, 0x82, 0xff, 0, 0, 0, 0, 0x87] } };
    expect(toHex(encodeCommand(icons))).toBe('2b 0b 03 02 81 82 ff 00 00 00 00 87 00');
    expect(decodeHostStream(encodeCommand(icons)).map((i) => i.type === 'command' && i.command)).toEqual([icons]);
  });

  it('commands split over byte-sized pushes are kept until whole', () => {
    const bytes = hex('2b 04 03 0b 05 00 82 00 64 66 45');
    const d = new HostStreamDecoder();
    const got: HostStreamItem[] = [];
    bytes.forEach((b, i) => {
      const out = d.push(Uint8Array.of(b));
      if (i !== 5 && i !== 9 && i !== 10) expect(out).toEqual([]);
      if (i < 5) expect(d.pendingBytes).toBe(i + 1);
      got.push(...out);
    });
    expect(got.map((i) => i.type)).toEqual(['command', 'bus-command', 'command']);
  });
});

// ---------------------------------------------------------------------------------------------
// Property: any chunking of a host stream gives the same items, and every byte is accounted for.

const SIMPLE = Object.keys(SIMPLE_COMMAND_CODES) as SimpleCommandType[];
const BUS = Object.keys(BUS_COMMAND_CODES) as BusCommandType[];
const BUS_CODES = new Set(Object.values(BUS_COMMAND_CODES));
const STARTS = new Set<number>([...Object.values(SIMPLE_COMMAND_CODES), 0x2b, 0x60]);

function randomClock(r: Rng): ClockCommand {
  const b = () => r.int(0, 255);
  const hms = () => ({ hours: r.int(0, 9), minutes: r.int(0, 59), seconds: r.int(0, 59) });
  switch (r.int(0, 8)) {
    case 0:
      return { type: 'display', segments: Array.from({ length: 6 }, b), dots: b(), beep: r.bool() };
    case 1:
      return { type: 'icons', data: Array.from({ length: 8 }, b) };
    case 2:
      return { type: 'end' };
    case 3:
      return { type: 'button' };
    case 4:
      return { type: 'version' };
    case 5:
      return { type: 'setnrun', left: hms(), right: hms(), leftRuns: r.bool(), rightRuns: r.bool(), pause: r.bool(), toggleOnLever: r.bool() };
    case 6:
      return { type: 'beep', units: b() };
    case 7:
      return { type: 'ascii', text: String.fromCharCode(...Array.from({ length: 8 }, () => r.int(0x20, 0x7e))), beep: r.int(0, 15) };
    default:
      return { type: 'unknown', id: r.pick([0x04, 0x05, 0x06, 0x07, 0x0d, 0x20]), content: Array.from({ length: r.int(0, 9) }, b) };
  }
}

function busBytes(code: number, address: number, checksumDelta = 0): Uint8Array {
  const out = Uint8Array.of(code, (address >> 7) & 0x7f, address & 0x7f, 0);
  out[3] = (((code + out[1]! + out[2]!) & 0x7f) + checksumDelta) & 0x7f;
  return out;
}

/** One random thing a host (or a bad line) may put on the wire, with the item it must decode to. */
function randomItem(r: Rng): HostStreamItem {
  const address = r.bool(0.2) ? 0 : r.int(0, 0x3fff);
  switch (r.int(0, 9)) {
    case 0:
    case 1:
    case 2: {
      const command: HostCommand = { type: r.pick(SIMPLE) };
      return { type: 'command', command, raw: encodeCommand(command) };
    }
    case 3: {
      const command: HostCommand = { type: 'set-leds', pattern: r.int(0, 255), start: r.int(0, 63), end: r.int(0, 63) };
      return { type: 'command', command, raw: encodeCommand(command) };
    }
    case 4:
    case 5: {
      const command: HostCommand = { type: 'clock', command: randomClock(r) };
      return { type: 'command', command, raw: encodeCommand(command) };
    }
    case 6:
    case 7: {
      const command = { type: r.pick(BUS) };
      return { type: 'bus-command', command, address, raw: encodeBusCommand(command, address) };
    }
    case 8: {
      const code = r.pick(BUS);
      const raw = busBytes(BUS_COMMAND_CODES[code], address, r.int(1, 127));
      return { type: 'bad-checksum', code: raw[0]!, address, raw };
    }
    default: {
      if (r.bool()) {
        let code: number;
        do code = r.int(0x80, 0xff);
        while (BUS_CODES.has(code));
        return { type: 'bus-unknown', code, address, raw: busBytes(code, address) };
      }
      let byte: number;
      do byte = r.int(0, 0x7f);
      while (STARTS.has(byte));
      return { type: 'unknown-byte', byte };
    }
  }
}

const rawOf = (it: HostStreamItem): Uint8Array => ('raw' in it ? it.raw : Uint8Array.of(it.byte));

function smallChunks(r: Rng, bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length;) {
    const n = r.bool(0.1) ? r.int(17, 300) : r.int(1, 16);
    out.push(bytes.subarray(i, Math.min(bytes.length, i + n)));
    i += n;
  }
  return out;
}

function decodeChunks(chunks: Uint8Array[]): { items: HostStreamItem[]; d: HostStreamDecoder } {
  const d = new HostStreamDecoder();
  const items: HostStreamItem[] = [];
  for (const c of chunks) items.push(...d.push(c));
  return { items, d };
}

const SEEDS = [1, 2, 3, 0xbeef, 20261121];

describe('HostStreamDecoder: chunking property', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: a random host stream in random chunks decodes to exactly what was sent`, () => {
      const r = new Rng(seed);
      const sent = Array.from({ length: 3000 }, () => randomItem(r));
      const bytes = Uint8Array.from(sent.flatMap((it) => [...rawOf(it)]));
      const { items, d } = decodeChunks(smallChunks(r, bytes));
      expect(show(items)).toEqual(show(sent));
      const count = (t: HostStreamItem['type']) => sent.filter((it) => it.type === t).length;
      expect(d.stats).toEqual({
        commands: count('command'),
        busCommands: count('bus-command'),
        unknownBusIds: count('bus-unknown'),
        badChecksums: count('bad-checksum'),
        badFrames: 0,
        unknownBytes: count('unknown-byte'),
      });
      expect(d.pendingBytes).toBe(0);
    });

    it(`seed ${seed}: random bytes never throw, every byte is accounted for, and chunking changes nothing`, () => {
      const r = new Rng(seed * 7919 + 1);
      // Valid commands with random bytes between them: frames cut, markers wrong, ids lost.
      const parts: number[] = [];
      for (let k = 0; k < 1500; k++) {
        if (r.bool(0.3)) parts.push(...r.bytes(r.int(1, 8)));
        else parts.push(...rawOf(randomItem(r)));
      }
      const bytes = Uint8Array.from(parts);
      const whole = new HostStreamDecoder();
      const once = whole.push(bytes);
      const { items, d } = decodeChunks(smallChunks(r, bytes));
      expect(show(items)).toEqual(show(once));
      expect(d.stats).toEqual(whole.stats);
      const consumed = items.reduce((n, it) => n + rawOf(it).length, 0);
      expect(consumed + d.pendingBytes).toBe(bytes.length);
      // The items' bytes, in order, are the stream (nothing reordered, nothing invented).
      expect(toHex(Uint8Array.from(items.flatMap((it) => [...rawOf(it)])))).toBe(toHex(bytes.subarray(0, consumed)));
    });
  }

  it('agrees with CommandDecoder on single-board-only streams and with BusCommandDecoder on bus-only streams', () => {
    const r = new Rng(77);
    const single = Uint8Array.from(Array.from({ length: 4000 }, () => r.int(0, 0x7f)));
    const c = new CommandDecoder();
    const commands = c.push(single);
    const h = new HostStreamDecoder();
    const items = h.push(single);
    expect(items.flatMap((it) => (it.type === 'command' ? [it.command] : []))).toEqual(commands);
    expect(items.every((it) => it.type === 'command' || it.type === 'bad-frame' || it.type === 'unknown-byte')).toBe(true);
    expect({ commands: h.stats.commands, unknownBytes: h.stats.unknownBytes, badFrames: h.stats.badFrames }).toEqual(c.stats);

    const bus = Uint8Array.from(Array.from({ length: 800 }, () => [...busBytes(r.int(0x80, 0xff), r.int(0, 0x3fff), r.bool(0.2) ? 1 : 0)]).flat());
    const expected = new BusCommandDecoder().push(bus);
    const got = decodeHostStream(bus);
    expect(got.map((it) => it.type)).toEqual(expected.map((e) => (e.ok ? 'bus-command' : e.reason === 'checksum' ? 'bad-checksum' : 'bus-unknown')));
    expect(got.map((it) => toHex(rawOf(it)))).toEqual(expected.map((e) => toHex(e.raw)));
  });
});
