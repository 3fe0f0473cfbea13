import type { DgtField, PieceCode } from './squares.ts';

/**
 * The board's EEPROM event log (EE_MOVES, and bus-mode change packets), per dgtbrd.h:
 * - 2-byte field update: 0x40–0x5f (bit 5 always set, bit 4 = within ~250 ms of the previous
 *   tag, low nibble = piece code), then the field (0–63).
 * - 3-byte clock time: 0x60–0x69 right / 0x70–0x79 left with the hours in the low nibble, then
 *   BCD minutes and BCD seconds.
 * - 1-byte tags 0x6a–0x6f, 0x7a–0x7c, and NOP as 0x7f or 0x00.
 * Anything else (0x7d/0x7e "future" codes, truncated entries) becomes an `unknown` entry per byte,
 * so encodeEeprom(parseEeprom(b)) always gives back b.
 */

export type EepromTag =
  | 'powerup'
  | 'eof'
  | 'fourrows'
  | 'emptyboard'
  | 'downloaded'
  | 'beginpos'
  | 'beginpos-rot'
  | 'start-tag'
  | 'watchdog'
  /** 0x7f */
  | 'nop'
  /** 0x00, the second NOP code (EE_NOP2) */
  | 'nop-zero';

export type EepromEntry =
  | { type: 'field-update'; piece: PieceCode; field: DgtField; quick: boolean }
  | { type: 'clock'; side: 'left' | 'right'; hours: number; minutes: number; seconds: number }
  | { type: 'tag'; tag: EepromTag }
  | { type: 'unknown'; byte: number };

export const EE_TAG_CODES: Readonly<Record<EepromTag, number>> = {
  powerup: 0x6a,
  eof: 0x6b,
  fourrows: 0x6c,
  emptyboard: 0x6d,
  downloaded: 0x6e,
  beginpos: 0x6f,
  'beginpos-rot': 0x7a,
  'start-tag': 0x7b,
  watchdog: 0x7c,
  nop: 0x7f,
  'nop-zero': 0x00,
};

const TAG_BY_CODE = new Map<number, EepromTag>((Object.entries(EE_TAG_CODES) as [EepromTag, number][]).map(([tag, code]) => [code, tag]));

export function fromBcd(byte: number): number {
  return ((byte >> 4) & 0x0f) * 10 + (byte & 0x0f);
}

export function toBcd(n: number): number {
  const v = Math.max(0, Math.min(79, Math.trunc(n)));
  return (Math.floor(v / 10) << 4) | (v % 10);
}

function isBcd(byte: number): boolean {
  return (byte & 0x0f) <= 9 && byte >> 4 <= 7;
}

export function parseEeprom(bytes: ArrayLike<number>): EepromEntry[] {
  const out: EepromEntry[] = [];
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b >= 0x40 && b <= 0x5f) {
      const field = bytes[i + 1];
      if (field !== undefined && field <= 63) {
        out.push({ type: 'field-update', piece: (b & 0x0f) as PieceCode, field, quick: (b & 0x10) !== 0 });
        i += 2;
        continue;
      }
    } else if ((b >= 0x60 && b <= 0x69) || (b >= 0x70 && b <= 0x79)) {
      const m = bytes[i + 1];
      const s = bytes[i + 2];
      if (m !== undefined && s !== undefined && isBcd(m) && isBcd(s)) {
        out.push({
          type: 'clock',
          side: b < 0x70 ? 'right' : 'left',
          hours: b & 0x0f,
          minutes: fromBcd(m),
          seconds: fromBcd(s),
        });
        i += 3;
        continue;
      }
    } else {
      const tag = TAG_BY_CODE.get(b);
      if (tag !== undefined) {
        out.push({ type: 'tag', tag });
        i += 1;
        continue;
      }
    }
    out.push({ type: 'unknown', byte: b });
    i += 1;
  }
  return out;
}

export function eepromEntrySize(entry: EepromEntry): number {
  return entry.type === 'field-update' ? 2 : entry.type === 'clock' ? 3 : 1;
}

export function encodeEeprom(entries: readonly EepromEntry[]): Uint8Array {
  let size = 0;
  for (const e of entries) size += eepromEntrySize(e);
  const out = new Uint8Array(size);
  let i = 0;
  for (const e of entries) {
    switch (e.type) {
      case 'field-update':
        out[i++] = 0x40 | (e.quick ? 0x10 : 0) | (e.piece & 0x0f);
        out[i++] = e.field & 0x3f;
        break;
      case 'clock':
        out[i++] = (e.side === 'right' ? 0x60 : 0x70) | Math.min(9, Math.max(0, e.hours));
        out[i++] = toBcd(e.minutes);
        out[i++] = toBcd(e.seconds);
        break;
      case 'tag':
        out[i++] = EE_TAG_CODES[e.tag];
        break;
      case 'unknown':
        out[i++] = e.byte & 0xff;
        break;
    }
  }
  return out;
}
