import type { PieceCode } from '../dgt/squares.ts';

/**
 * The board side of the wire, written independently of protocols/dgt so that tests which read the
 * emulator's bytes with the codec's decoder check two implementations against each other.
 * Byte values from dgtbrd.h (dgt-protocol.md).
 */

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

export const BUS_REPLY = {
  BRD_DUMP: 0x83,
  BWTIME: 0x84,
  UPDATE: 0x85,
  FROM_START: 0x86,
  PING: 0x87,
  START_GAME_WRITTEN: 0x88,
  VERSION: 0x89,
} as const;

/** Frames a single-board message: id, then the 14-bit total length in two 7-bit bytes. */
export function frame(id: number, data: ArrayLike<number>): Uint8Array {
  const total = data.length + 3;
  const out = new Uint8Array(total);
  out[0] = id;
  out[1] = (total >> 7) & 0x7f;
  out[2] = total & 0x7f;
  for (let i = 0; i < data.length; i++) out[3 + i] = data[i]! & 0x7f;
  return out;
}

/** The 14-bit bus address is the decimal serial number's value (dgtbrd.h: "01025" → 0x08 0x01). */
export function busAddressOf(serial: string): number {
  const n = Number.parseInt(serial, 10);
  return Number.isFinite(n) ? n & 0x3fff : 0;
}

/** A bus reply: id, length, address, data, checksum = sum of all previous bytes & 0x7f. */
export function busFrame(id: number, address: number, data: ArrayLike<number>): Uint8Array {
  const total = data.length + 6;
  const out = new Uint8Array(total);
  out[0] = id;
  out[1] = (total >> 7) & 0x7f;
  out[2] = total & 0x7f;
  out[3] = (address >> 7) & 0x7f;
  out[4] = address & 0x7f;
  for (let i = 0; i < data.length; i++) out[5 + i] = data[i]! & 0x7f;
  out[total - 1] = checksum(out, total - 1);
  return out;
}

export function checksum(bytes: ArrayLike<number>, length: number): number {
  let sum = 0;
  for (let i = 0; i < length; i++) sum += bytes[i]!;
  return sum & 0x7f;
}

export const bcd = (n: number): number => (Math.floor(n / 10) << 4) | n % 10;

/** h, m, s as a clock face shows remaining ms: rounded up (0:00:00 only once the time is gone), at most 9:59:59. */
export function clockFace(ms: number): { h: number; m: number; s: number } {
  const total = Math.min(9 * 3600 + 59 * 60 + 59, Math.max(0, Math.ceil(ms / 1000)));
  return { h: Math.floor(total / 3600), m: Math.floor(total / 60) % 60, s: total % 60 };
}

/** One side of the clock as BWTIME shows it. */
export interface ClockSide {
  ms: number;
  /** Flag fallen, clock blocked at zero (byte3/6 bit 4). */
  flag: boolean;
  /** Time-per-move (increment) indicator (bit 5). */
  perMove: boolean;
}

export interface ClockFaceState {
  left: ClockSide;
  right: ClockSide;
  /** Whose time runs; null: not started or paused. */
  running: 'left' | 'right' | null;
  /** True when no clock is attached: the reading is invalid (status bit 5). */
  absent?: boolean;
}

/** The seven BWTIME data bytes (bytes 3..9) for clock times. */
export function bwtimeData(c: ClockFaceState): number[] {
  if (c.absent) return [0, 0, 0, 0, 0, 0, 0x20];
  const side = (s: ClockSide): number[] => {
    const f = clockFace(s.ms);
    return [f.h | (s.flag ? 0x10 : 0) | (s.perMove ? 0x20 : 0), bcd(f.m), bcd(f.s)];
  };
  let status = 0;
  if (c.running !== null) status |= 0x01;
  // The lever is high on the side whose time runs (the other player pressed it down).
  if (c.running === 'right') status |= 0x02 | 0x08;
  if (c.running === 'left') status |= 0x10;
  return [...side(c.right), ...side(c.left), status];
}

/**
 * A clock ACK in BWTIME framing: the four ack bytes spread over bytes 3..9 so that no data byte has
 * its MSB set, with 0x0a in the low nibble of bytes 3 and 6 marking it as an ACK (dgtbrd.h).
 */
export function clockAckData(ack0: number, ack1: number, ack2: number, ack3: number): number[] {
  const b3 = 0x0a | ((ack2 & 0x80) >> 3) | ((ack3 & 0x80) >> 2);
  const b6 = 0x0a | ((ack0 & 0x80) >> 3) | ((ack1 & 0x80) >> 2);
  return [b3, ack0 & 0x7f, ack1 & 0x7f, b6, ack2 & 0x7f, ack3 & 0x7f, 0];
}

export const fieldUpdate = (field: number, piece: PieceCode): Uint8Array => frame(MSG.FIELD_UPDATE, [field, piece]);
