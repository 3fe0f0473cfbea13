import { describe, expect, it } from 'vitest';
import { EE_TAG_CODES, encodeEeprom, parseEeprom, PIECE } from '../../../protocols/dgt/index.ts';
import type { EepromEntry, EepromTag } from '../../../protocols/dgt/index.ts';
import { hex, toHex } from './hex.ts';
import { randomEeprom, Rng } from './stream-gen.ts';

describe('EEPROM log entries', () => {
  it('one-byte tags have the codes of the reference', () => {
    const expected: [EepromTag, number][] = [
      ['powerup', 0x6a],
      ['eof', 0x6b],
      ['fourrows', 0x6c],
      ['emptyboard', 0x6d],
      ['downloaded', 0x6e],
      ['beginpos', 0x6f],
      ['beginpos-rot', 0x7a],
      ['start-tag', 0x7b],
      ['watchdog', 0x7c],
      ['nop', 0x7f],
      ['nop-zero', 0x00],
    ];
    for (const [tag, code] of expected) {
      expect(EE_TAG_CODES[tag]).toBe(code);
      expect(parseEeprom([code])).toEqual([{ type: 'tag', tag }]);
      expect(Array.from(encodeEeprom([{ type: 'tag', tag }]))).toEqual([code]);
    }
    expect(Object.keys(EE_TAG_CODES)).toHaveLength(expected.length);
  });

  it('field updates: 0x40–0x5f, bit 4 = quick (< ~250 ms), low nibble = piece; then the field', () => {
    expect(parseEeprom(hex('40 0c'))).toEqual([{ type: 'field-update', piece: PIECE.EMPTY, field: 12, quick: false }]);
    expect(parseEeprom(hex('56 3f'))).toEqual([{ type: 'field-update', piece: PIECE.WQUEEN, field: 63, quick: true }]);
    expect(parseEeprom(hex('4c 00'))).toEqual([{ type: 'field-update', piece: PIECE.BQUEEN, field: 0, quick: false }]);
    expect(parseEeprom(hex('5f 07'))).toEqual([{ type: 'field-update', piece: PIECE.BLACK_WINS, field: 7, quick: true }]);
    expect(toHex(encodeEeprom([{ type: 'field-update', piece: PIECE.WQUEEN, field: 63, quick: true }]))).toBe('56 3f');
  });

  it('clock times: 0x60–0x69 right, 0x70–0x79 left, hours in the low nibble, then BCD minutes and seconds', () => {
    expect(parseEeprom(hex('61 29 58'))).toEqual([{ type: 'clock', side: 'right', hours: 1, minutes: 29, seconds: 58 }]);
    expect(parseEeprom(hex('79 00 05'))).toEqual([{ type: 'clock', side: 'left', hours: 9, minutes: 0, seconds: 5 }]);
    expect(toHex(encodeEeprom([{ type: 'clock', side: 'left', hours: 0, minutes: 59, seconds: 10 }]))).toBe('70 59 10');
  });

  it('a recorded log: power-up, start position, e2-e4 (lift, place), a clock stamp, end', () => {
    const bytes = hex('6a 6f 40 34 51 24 61 29 58 7b 6b');
    const entries: EepromEntry[] = [
      { type: 'tag', tag: 'powerup' },
      { type: 'tag', tag: 'beginpos' },
      { type: 'field-update', piece: PIECE.EMPTY, field: 52, quick: false },
      { type: 'field-update', piece: PIECE.WPAWN, field: 36, quick: true },
      { type: 'clock', side: 'right', hours: 1, minutes: 29, seconds: 58 },
      { type: 'tag', tag: 'start-tag' },
      { type: 'tag', tag: 'eof' },
    ];
    expect(parseEeprom(bytes)).toEqual(entries);
    expect(toHex(encodeEeprom(entries))).toBe(toHex(bytes));
  });

  it('unknown codes, truncated and impossible entries become unknown bytes and lose nothing', () => {
    expect(parseEeprom(hex('7d 7e 01 3f'))).toEqual([0x7d, 0x7e, 0x01, 0x3f].map((byte) => ({ type: 'unknown', byte })));
    // Field byte missing at the end of the log.
    expect(parseEeprom(hex('41'))).toEqual([{ type: 'unknown', byte: 0x41 }]);
    // Field > 63: the first byte is unknown and parsing resumes on the next (here a tag).
    expect(parseEeprom(hex('41 6b'))).toEqual([
      { type: 'unknown', byte: 0x41 },
      { type: 'tag', tag: 'eof' },
    ]);
    // Clock with a non-BCD minutes byte, and a truncated clock.
    expect(parseEeprom(hex('61 2a 00'))).toEqual([
      { type: 'unknown', byte: 0x61 },
      { type: 'unknown', byte: 0x2a },
      { type: 'tag', tag: 'nop-zero' },
    ]);
    expect(parseEeprom(hex('71 10'))).toEqual([
      { type: 'unknown', byte: 0x71 },
      { type: 'unknown', byte: 0x10 },
    ]);
  });

  it('encode ∘ parse is the identity on any byte string, and parse ∘ encode on generated logs', () => {
    const r = new Rng(77);
    for (let n = 0; n < 300; n++) {
      const bytes = r.bytes(r.int(0, 200));
      expect(toHex(encodeEeprom(parseEeprom(bytes)))).toBe(toHex(bytes));
      const entries = randomEeprom(r, r.int(0, 100));
      expect(parseEeprom(encodeEeprom(entries))).toEqual(entries);
    }
  });
});
