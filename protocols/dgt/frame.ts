/**
 * Board → host framing (dgtbrd.h): byte 0 = 0x80 | code, bytes 1–2 = the total length
 * (header included) as bits 13..7 and 6..0, then data bytes with the MSB clear. Because only
 * an id byte has its MSB set, a reader can always re-synchronise on the next such byte.
 */

export const MESSAGE_BIT = 0x80;
export const HEADER_SIZE = 3;
/** 14 bits of length: the largest total size a frame header can state. */
export const MAX_FRAME_SIZE = 0x3fff;

/** Message id bytes (0x80 | code). */
export const MSG = {
  BOARD_DUMP: 0x86,
  BWTIME: 0x8d,
  FIELD_UPDATE: 0x8e,
  EE_MOVES: 0x8f,
  BUSADRES: 0x90,
  SERIALNR: 0x91,
  TRADEMARK: 0x92,
  VERSION: 0x93,
  BATTERY_STATUS: 0xa0,
  LONG_SERIALNR: 0xa2,
} as const;

export type MessageId = (typeof MSG)[keyof typeof MSG];

export interface SizeRange {
  readonly min: number;
  readonly max: number;
}

/**
 * Total sizes a sane frame of each id may have. Fixed-size messages allow exactly their size,
 * so a garbage byte that happens to be a known id is rejected by its length bytes.
 * - TRADEMARK: the header says its size "may be in the range of 0 to 256" (data), so ≤ 259.
 * - EE_MOVES: the log is a cyclic 0x1f00-byte buffer, terminated by EE_EOF: 4 … 0x1f00 + 4.
 * - BATTERY_STATUS: the header defines size 7 yet lists 9 data bytes (bytes 3–11), so both
 *   7 and 12 (and anything between, from firmware that sends part of the list) are accepted.
 */
const SIZES: ReadonlyMap<number, SizeRange> = new Map<number, SizeRange>([
  [MSG.BOARD_DUMP, { min: 67, max: 67 }],
  [MSG.BWTIME, { min: 10, max: 10 }],
  [MSG.FIELD_UPDATE, { min: 5, max: 5 }],
  [MSG.EE_MOVES, { min: 4, max: 0x1f00 + 4 }],
  [MSG.BUSADRES, { min: 5, max: 5 }],
  [MSG.SERIALNR, { min: 8, max: 8 }],
  [MSG.TRADEMARK, { min: 3, max: 259 }],
  [MSG.VERSION, { min: 5, max: 5 }],
  [MSG.BATTERY_STATUS, { min: 7, max: 12 }],
  [MSG.LONG_SERIALNR, { min: 13, max: 13 }],
]);

/**
 * Ids not in the reference (newer boards send e.g. 0x96 hardware version, 0xa3–0xa5) are kept as
 * 'unknown' frames rather than dropped, but only with a modest length, so that a garbage byte
 * cannot swallow kilobytes of good data while we wait for its stated length.
 */
export const UNKNOWN_SIZE: SizeRange = { min: 3, max: 256 };

export function sizeRange(id: number): SizeRange {
  return SIZES.get(id) ?? UNKNOWN_SIZE;
}

/** Builds one frame: id, length in two 7-bit bytes, data (each data byte must be < 0x80). */
export function frame(id: number, data: ArrayLike<number>): Uint8Array {
  const size = HEADER_SIZE + data.length;
  const out = new Uint8Array(size);
  out[0] = id;
  out[1] = (size >> 7) & 0x7f;
  out[2] = size & 0x7f;
  for (let i = 0; i < data.length; i++) out[HEADER_SIZE + i] = data[i]! & 0x7f;
  return out;
}
