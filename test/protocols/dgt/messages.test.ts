import { describe, expect, it } from 'vitest';
import { batteryMessage, decodeAll, encodeMessage, PIECE } from '../../../protocols/dgt/index.ts';
import type { BoardMessage, PieceCode } from '../../../protocols/dgt/index.ts';
import { hex, toHex } from './hex.ts';

function decodeOne(bytes: Uint8Array): BoardMessage {
  const { frames, stats, pendingBytes } = decodeAll(bytes);
  expect(stats.discardedBytes).toBe(0);
  expect(pendingBytes).toBe(0);
  expect(frames).toHaveLength(1);
  expect(toHex(frames[0]!.raw)).toBe(toHex(bytes));
  return frames[0]!.message;
}

/** Golden: the message encodes to exactly these bytes, and these bytes decode to the message. */
function golden(msg: BoardMessage, bytes: string): void {
  expect(toHex(encodeMessage(msg))).toBe(toHex(hex(bytes)));
  expect(decodeOne(hex(bytes))).toEqual(msg);
}

const START: PieceCode[] = [8, 9, 10, 12, 11, 10, 9, 8, 7, 7, 7, 7, 7, 7, 7, 7, ...new Array<PieceCode>(32).fill(0), 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 6, 5, 4, 3, 2];

describe('board → host messages: golden bytes', () => {
  it('BOARD_DUMP 0x86, size 67, 64 piece codes from a8 (field 0) to h1 (field 63)', () => {
    const bytes = [0x86, 0x00, 67, ...START];
    const msg = decodeOne(Uint8Array.from(bytes));
    expect(msg).toEqual({ type: 'board-dump', board: START });
    expect(Array.from(encodeMessage(msg))).toEqual(bytes);
    if (msg.type !== 'board-dump') throw new Error('not a dump');
    expect(msg.board[0]).toBe(PIECE.BROOK); // a8
    expect(msg.board[4]).toBe(PIECE.BKING); // e8
    expect(msg.board[60]).toBe(PIECE.WKING); // e1
  });

  it('FIELD_UPDATE 0x8e, size 5: field then piece, EMPTY when a piece left', () => {
    golden({ type: 'field-update', field: 12, piece: PIECE.EMPTY }, '8e 00 05 0c 00');
    golden({ type: 'field-update', field: 28, piece: PIECE.WPAWN }, '8e 00 05 1c 01');
    golden({ type: 'field-update', field: 63, piece: PIECE.BLACK_WINS }, '8e 00 05 3f 0f');
  });

  it('SERIALNR 0x91, size 8: five ASCII digits', () => {
    golden({ type: 'serial-number', serial: '01025' }, '91 00 08 30 31 30 32 35');
  });

  it('LONG_SERIALNR 0xa2, size 13: ten ASCII digits', () => {
    golden({ type: 'long-serial-number', serial: '1234567890' }, 'a2 00 0d 31 32 33 34 35 36 37 38 39 30');
  });

  it('VERSION 0x93, size 5: major, minor in binary ("1.02" → 01 02)', () => {
    golden({ type: 'version', major: 1, minor: 2 }, '93 00 05 01 02');
  });

  it('BUSADRES 0x90, size 5: 14-bit address in two 7-bit bytes (serial 01025 → 08 01)', () => {
    golden({ type: 'bus-address', address: 1025 }, '90 00 05 08 01');
    golden({ type: 'bus-address', address: 0x3fff }, '90 00 05 7f 7f');
  });

  it('TRADEMARK 0x92, variable size: ASCII text', () => {
    golden({ type: 'trademark', text: 'DGT' }, '92 00 06 44 47 54');
    golden({ type: 'trademark', text: '' }, '92 00 03');
  });

  it('TRADEMARK longer than 127 bytes uses the length MSB byte', () => {
    const text = 'x'.repeat(200);
    const bytes = encodeMessage({ type: 'trademark', text });
    expect(bytes.length).toBe(203);
    expect([bytes[0], bytes[1], bytes[2]]).toEqual([0x92, 203 >> 7, 203 & 0x7f]);
    expect(decodeOne(bytes)).toEqual({ type: 'trademark', text });
  });

  it('BATTERY_STATUS 0xa0: the full 9-byte layout (size 12), 0x7f time-left means N/A', () => {
    const msg = batteryMessage([87, 0x7f, 0x7f, 2, 30, 1, 4, 5, 0x02]);
    expect(msg).toMatchObject({
      percent: 87,
      timeLeftHours: null,
      timeLeftMinutes: null,
      onHours: 2,
      onMinutes: 30,
      standbyDays: 1,
      standbyHours: 4,
      standbyMinutes: 5,
      charging: false,
      discharging: true,
    });
    golden(msg, 'a0 00 0c 57 7f 7f 02 1e 01 04 05 02');
  });

  it("BATTERY_STATUS 0xa0 with the header's size 7 (4 data bytes): present fields only", () => {
    const msg = decodeOne(hex('a0 00 07 32 03 14 01'));
    expect(msg).toEqual({
      type: 'battery',
      data: [0x32, 3, 0x14, 1],
      percent: 50,
      timeLeftHours: 3,
      timeLeftMinutes: 20,
      onHours: 1,
      onMinutes: null,
      standbyDays: null,
      standbyHours: null,
      standbyMinutes: null,
      charging: null,
      discharging: null,
    });
    expect(toHex(encodeMessage(msg))).toBe('a0 00 07 32 03 14 01');
  });

  it('EE_MOVES 0x8f: EEPROM entries, ending with EE_EOF', () => {
    golden(
      {
        type: 'ee-moves',
        entries: [
          { type: 'tag', tag: 'powerup' },
          { type: 'tag', tag: 'beginpos' },
          { type: 'field-update', piece: PIECE.EMPTY, field: 52, quick: false },
          { type: 'field-update', piece: PIECE.WPAWN, field: 36, quick: true },
          { type: 'clock', side: 'right', hours: 1, minutes: 29, seconds: 58 },
          { type: 'tag', tag: 'eof' },
        ],
      },
      '8f 00 0d 6a 6f 40 34 51 24 61 29 58 6b',
    );
  });

  it('an id the reference does not define is kept as an unknown message', () => {
    golden({ type: 'unknown', id: 0x96, data: [1, 2] }, '96 00 05 01 02');
  });

  it('impossible content under a valid header is kept as malformed, with the reason', () => {
    golden({ type: 'malformed', id: 0x8e, reason: 'field 64 > 63', data: [64, 1] }, '8e 00 05 40 01');
    golden({ type: 'malformed', id: 0x8e, reason: 'piece code 0x10 > 0x0f', data: [3, 0x10] }, '8e 00 05 03 10');
    const dump = decodeOne(Uint8Array.from([0x86, 0, 67, ...START.slice(0, 63), 0x20]));
    expect(dump).toMatchObject({ type: 'malformed', id: 0x86, reason: 'piece code 0x20 on field 63' });
  });
});

describe('encodeMessage', () => {
  it('never puts a byte with the MSB set into the data (it would read as a new message)', () => {
    const bytes = encodeMessage({ type: 'trademark', text: 'é\u00ff' });
    expect(Array.from(bytes.subarray(3)).every((b) => b < 0x80)).toBe(true);
  });

  it('pads a short serial number to its fixed size', () => {
    expect(toHex(encodeMessage({ type: 'serial-number', serial: '42' }))).toBe('91 00 08 30 30 30 34 32');
  });
});
