import { describe, expect, it } from 'vitest';
import { busAddressBytes, busChecksum, BusCommandDecoder, BusReplyDecoder, clockAck, decodeBusCommands, encodeBusCommand, encodeBusReply, serialToBusAddress } from '../../../protocols/dgt/index.ts';
import type { BusCommandType, BusReply, BusReplyResult } from '../../../protocols/dgt/index.ts';
import { hex, toHex } from './hex.ts';
import { randomBoard, randomClockTimes, randomEeprom, randomChunks, Rng } from './stream-gen.ts';

describe('bus addresses and checksums (worked examples of the reference)', () => {
  it('checksum of 0x81 0x10 0x06 is 0x17 (sum & 0x7f)', () => {
    expect(busChecksum([0x81, 0x10, 0x06])).toBe(0x17);
    expect(toHex(encodeBusCommand({ type: 'send-clock' }, (0x10 << 7) | 0x06))).toBe('81 10 06 17');
  });

  it('serial "01025" ↔ address bytes 0x08 0x01 (the decimal serial as a 14-bit value)', () => {
    expect(serialToBusAddress('01025')).toBe(1025);
    expect(busAddressBytes(1025)).toEqual([0x08, 0x01]);
    // dgtbrd.h writes the serial with its version: "01025 1.0".
    expect(serialToBusAddress('01025 1.0')).toBe(1025);
    expect(busAddressBytes(serialToBusAddress('00000'))).toEqual([0, 0]);
    expect(busAddressBytes(0x3fff)).toEqual([0x7f, 0x7f]);
    expect(serialToBusAddress('')).toBe(-1);
    expect(serialToBusAddress('abc')).toBe(-1);
  });
});

describe('bus commands: id, address MSB, address LSB, checksum', () => {
  const codes: [BusCommandType, number][] = [
    ['send-clock', 0x81],
    ['send-board', 0x82],
    ['send-changes', 0x83],
    ['repeat-changes', 0x84],
    ['set-start-game', 0x85],
    ['send-from-start', 0x86],
    ['ping', 0x87],
    ['end-busmode', 0x88],
    ['reset', 0x89],
    ['ignore-next-bus-ping', 0x8a],
    ['send-version', 0x8b],
    ['send-all-d', 0x8d],
  ];
  for (const [type, id] of codes) {
    it(`${type} is 0x${id.toString(16)}`, () => {
      const bytes = encodeBusCommand({ type }, 1025);
      expect(Array.from(bytes)).toEqual([id, 0x08, 0x01, (id + 0x08 + 0x01) & 0x7f]);
      expect(decodeBusCommands(bytes)).toEqual([{ ok: true, address: 1025, command: { type }, raw: bytes }]);
    });
  }

  it('ping to address 0 asks every board', () => {
    expect(toHex(encodeBusCommand({ type: 'ping' }, 0))).toBe('87 00 00 07');
  });

  it('a wrong checksum is reported with the address, and the stream carries on', () => {
    const out = decodeBusCommands(hex('83 08 01 0b  83 08 01 0c'));
    expect(out[0]).toEqual({ ok: false, reason: 'checksum', address: 1025, raw: hex('83 08 01 0b') });
    expect(out[1]).toMatchObject({ ok: true, address: 1025, command: { type: 'send-changes' } });
  });

  it('garbage, cut commands and unknown ids are values, byte-split input works', () => {
    const bytes = hex('01 02  83 08  81 10 06 17  8c 00 00 0c');
    const d = new BusCommandDecoder();
    const out = Array.from(bytes).flatMap((b) => d.push(Uint8Array.of(b)));
    // Garbage is reported as soon as it is seen, so byte-sized pushes report it byte by byte.
    expect(out.map((o) => (o.ok ? o.command.type : o.reason))).toEqual(['garbage', 'garbage', 'truncated', 'send-clock', 'unknown-id']);
    expect(out.reduce((n, o) => n + o.raw.length, 0)).toBe(bytes.length);
    expect(decodeBusCommands(bytes).map((o) => (o.ok ? o.command.type : o.reason))).toEqual(['garbage', 'truncated', 'send-clock', 'unknown-id']);
  });
});

describe('bus replies: id, length (whole packet), address, data, checksum', () => {
  it('PING reply is 6 bytes', () => {
    expect(toHex(encodeBusReply({ type: 'ping' }, 1025))).toBe('87 00 06 08 01 16');
  });

  it('VERSION reply is 8 bytes', () => {
    expect(toHex(encodeBusReply({ type: 'version', major: 1, minor: 2 }, 1025))).toBe('89 00 08 08 01 01 02 1d');
  });

  it('BRD_DUMP reply is 70 bytes (64 piece codes); START_GAME_WRITTEN is a bare 6-byte header', () => {
    const board = randomBoard(new Rng(1));
    const dump = encodeBusReply({ type: 'brd-dump', board }, 1025);
    expect(dump.length).toBe(70);
    expect(toHex(dump.subarray(0, 5))).toBe('83 00 46 08 01');
    expect(Array.from(dump.subarray(5, 69))).toEqual(board);
    expect(dump[69]).toBe(busChecksum(dump, 0, 69));
    expect(toHex(encodeBusReply({ type: 'start-game-written', data: [] }, 1025))).toBe('88 00 06 08 01 17');
  });

  it('BWTIME carries the 7 clock bytes; UPDATE an EEPROM change list', () => {
    const times = hex('84 00 0d 08 01 21 23 45 10 05 09 11');
    const withSum = Uint8Array.from([...times, busChecksum(times)]);
    const out = new BusReplyDecoder().push(withSum);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ ok: true, address: 1025, reply: { type: 'bwtime', clock: { type: 'clock-times', right: { hours: 1, minutes: 23, seconds: 45 } } } });

    const update = encodeBusReply(
      {
        type: 'update',
        entries: [
          { type: 'field-update', piece: 0, field: 52, quick: false },
          { type: 'field-update', piece: 1, field: 36, quick: true },
        ],
      },
      7,
    );
    expect(toHex(update)).toBe(`85 00 0a 00 07 40 34 51 24 ${busChecksum(update, 0, 9).toString(16).padStart(2, '0')}`);
    expect(new BusReplyDecoder().push(update)[0]).toMatchObject({ ok: true, address: 7, reply: { type: 'update', entries: [{ field: 52 }, { field: 36, quick: true }] } });
  });

  it('every reply round-trips through encodeBusReply and a byte-split BusReplyDecoder', () => {
    const r = new Rng(8);
    const replies: BusReply[] = [
      { type: 'brd-dump', board: randomBoard(r) },
      { type: 'bwtime', clock: randomClockTimes(r) as Extract<BusReply, { type: 'bwtime' }>['clock'] },
      { type: 'bwtime', clock: clockAck(0x10, 0x88, 0, 0x35) },
      { type: 'bwtime', clock: { type: 'clock-zero' } },
      { type: 'update', entries: randomEeprom(r, 40) },
      { type: 'update', entries: [] },
      { type: 'from-start', entries: randomEeprom(r, 500) },
      { type: 'ping' },
      { type: 'start-game-written', data: [] },
      { type: 'version', major: 3, minor: 1 },
    ];
    const bytes = Uint8Array.from(replies.flatMap((rep, k) => [...encodeBusReply(rep, 1000 + k)]));
    for (const chunks of [[bytes], Array.from(bytes, (b) => Uint8Array.of(b)), randomChunks(r, bytes)]) {
      const d = new BusReplyDecoder();
      const out = chunks.flatMap((c) => d.push(c));
      expect(out.map((o) => (o.ok ? { address: o.address, reply: o.reply } : o))).toEqual(replies.map((reply, k) => ({ address: 1000 + k, reply })));
    }
  });

  it('checksum errors, bad lengths, cut replies and garbage are reported and resynchronised', () => {
    const good = encodeBusReply({ type: 'version', major: 1, minor: 0 }, 1025);
    const corrupt = good.slice();
    corrupt[6] = 1; // data changed, checksum not
    const stream = Uint8Array.from([
      ...corrupt,
      0x05,
      0x06, // garbage
      0x87,
      0x00,
      0x09,
      0x08,
      0x01, // ping with an impossible length
      0x89,
      0x00,
      0x08,
      0x08, // a version reply cut short by the next id byte
      ...good,
    ]);
    const out: BusReplyResult[] = new BusReplyDecoder().push(stream);
    expect(out.map((o) => (o.ok ? 'ok' : o.reason))).toEqual(['checksum', 'garbage', 'bad-length', 'garbage', 'truncated', 'ok']);
    expect(out[0]).toMatchObject({ address: 1025 });
    expect(out.reduce((n, o) => n + o.raw.length, 0)).toBe(stream.length);
  });

  it('a long EEPROM reply arriving byte by byte is still cut by an id byte inside it', () => {
    const long = encodeBusReply({ type: 'from-start', entries: randomEeprom(new Rng(9), 1500) }, 1025);
    const ping = encodeBusReply({ type: 'ping' }, 1025);
    const cutAt = 2000;
    const stream = Uint8Array.from([...long.subarray(0, cutAt), ...ping, ...long]);
    const d = new BusReplyDecoder();
    const out = Array.from(stream).flatMap((b) => d.push(Uint8Array.of(b)));
    expect(out.map((o) => (o.ok ? o.reply.type : o.reason))).toEqual(['truncated', 'ping', 'from-start']);
    expect(out[0]!.raw.length).toBe(cutAt);
  });

  it('random bytes never throw and every byte is reported exactly once (or pending)', () => {
    const r = new Rng(21);
    const bytes = r.bytes(100_000);
    const d = new BusReplyDecoder();
    const out = randomChunks(r, bytes).flatMap((c) => d.push(c));
    const reported = out.reduce((n, o) => n + o.raw.length, 0);
    expect(reported).toBeLessThanOrEqual(bytes.length);
    expect(bytes.length - reported).toBeLessThan(0x1f10);
    const c = new BusCommandDecoder();
    const cmds = randomChunks(r, bytes).flatMap((ch) => c.push(ch));
    expect(cmds.reduce((n, o) => n + o.raw.length, 0)).toBeGreaterThan(bytes.length - 4);
  });
});
