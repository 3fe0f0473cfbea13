import { decodeBwtime, encodeBwtime } from './clock.ts';
import type { ClockAckMessage, ClockTimesMessage, ClockZeroMessage } from './clock.ts';
import { encodeEeprom, parseEeprom } from './eeprom.ts';
import type { EepromEntry } from './eeprom.ts';
import { frame, MSG } from './frame.ts';
import type { DgtField, PieceCode } from './squares.ts';

export type { ClockSide, ClockStatus, ClockButton, ClockAckKind } from './clock.ts';

/**
 * BATTERY_STATUS (Bluetooth boards). The header declares size 7 but lists 9 data bytes; we keep
 * the data bytes as sent and decode the fields that are present (null when absent or 0x7f "N/A").
 */
export interface BatteryMessage {
  type: 'battery';
  data: number[];
  percent: number | null;
  timeLeftHours: number | null;
  timeLeftMinutes: number | null;
  onHours: number | null;
  onMinutes: number | null;
  standbyDays: number | null;
  standbyHours: number | null;
  standbyMinutes: number | null;
  charging: boolean | null;
  discharging: boolean | null;
}

/** Every board → host message, discriminated on `type`. */
export type BoardMessage =
  | { type: 'board-dump'; board: PieceCode[] }
  | { type: 'field-update'; field: DgtField; piece: PieceCode }
  | ClockTimesMessage
  | ClockAckMessage
  | ClockZeroMessage
  | { type: 'serial-number'; serial: string }
  | { type: 'long-serial-number'; serial: string }
  | { type: 'version'; major: number; minor: number }
  | { type: 'bus-address'; address: number }
  | { type: 'trademark'; text: string }
  | BatteryMessage
  | { type: 'ee-moves'; entries: EepromEntry[] }
  /** A well-framed message with an id the reference does not define (kept for the store). */
  | { type: 'unknown'; id: number; data: number[] }
  /** A known id whose content is impossible (e.g. field > 63): kept verbatim, with the reason. */
  | { type: 'malformed'; id: number; reason: string; data: number[] };

export type BoardMessageType = BoardMessage['type'];

// Local copies: imported bindings cost a getter call per use once transpiled (see decoder.ts).
const FIELD_UPDATE = 0x8e;
const BWTIME = 0x8d;
const BOARD_DUMP = 0x86;
const SERIALNR = 0x91;
const LONG_SERIALNR = 0xa2;
const VERSION = 0x93;
const BUSADRES = 0x90;
const TRADEMARK = 0x92;
const BATTERY_STATUS = 0xa0;
const EE_MOVES = 0x8f;
const decodeClock = decodeBwtime;

function ascii(d: ArrayLike<number>, from: number, to: number): string {
  let s = '';
  for (let i = from; i < to; i++) s += String.fromCharCode(d[i]!);
  return s;
}

function asciiBytes(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) out.push(s.charCodeAt(i) & 0x7f);
  return out;
}

function copy(d: ArrayLike<number>, from: number, to: number): number[] {
  const out: number[] = new Array(to - from);
  for (let i = from; i < to; i++) out[i - from] = d[i]!;
  return out;
}

function malformed(id: number, reason: string, d: ArrayLike<number>, from: number, to: number): BoardMessage {
  return { type: 'malformed', id, reason, data: copy(d, from, to) };
}

function opt(d: ArrayLike<number>, i: number, end: number): number | null {
  if (i >= end) return null;
  const v = d[i]!;
  return v === 0x7f ? null : v;
}

export function decodeBattery(d: ArrayLike<number>, from: number, to: number): BatteryMessage {
  const at = (k: number): number | null => (from + k < to ? d[from + k]! : null);
  const status = at(8);
  return {
    type: 'battery',
    data: copy(d, from, to),
    percent: at(0),
    timeLeftHours: opt(d, from + 1, to),
    timeLeftMinutes: opt(d, from + 2, to),
    onHours: at(3),
    onMinutes: at(4),
    standbyDays: at(5),
    standbyHours: at(6),
    standbyMinutes: at(7),
    charging: status === null ? null : (status & 0x01) !== 0,
    discharging: status === null ? null : (status & 0x02) !== 0,
  };
}

/**
 * Decodes the data of one complete frame: `id` and the data bytes d[from..to). The caller has
 * already checked the length against the frame table. Never throws.
 */
export function decodeMessage(id: number, d: ArrayLike<number>, from: number, to: number): BoardMessage {
  const n = to - from;
  switch (id) {
    case FIELD_UPDATE: {
      if (n !== 2) return malformed(id, `field update with ${n} data bytes`, d, from, to);
      const field = d[from]!;
      const piece = d[from + 1]!;
      if (field > 63) return malformed(id, `field ${field} > 63`, d, from, to);
      if (piece > 0x0f) return malformed(id, `piece code 0x${piece.toString(16)} > 0x0f`, d, from, to);
      return { type: 'field-update', field, piece: piece as PieceCode };
    }
    case BWTIME:
      if (n !== 7) return malformed(id, `BWTIME with ${n} data bytes`, d, from, to);
      return decodeClock(d, from);
    case BOARD_DUMP: {
      if (n !== 64) return malformed(id, `board dump with ${n} data bytes`, d, from, to);
      const board: PieceCode[] = new Array(64);
      for (let i = 0; i < 64; i++) {
        const p = d[from + i]!;
        if (p > 0x0f) return malformed(id, `piece code 0x${p.toString(16)} on field ${i}`, d, from, to);
        board[i] = p as PieceCode;
      }
      return { type: 'board-dump', board };
    }
    case SERIALNR:
      return { type: 'serial-number', serial: ascii(d, from, to) };
    case LONG_SERIALNR:
      return { type: 'long-serial-number', serial: ascii(d, from, to) };
    case VERSION:
      if (n !== 2) return malformed(id, `version with ${n} data bytes`, d, from, to);
      return { type: 'version', major: d[from]!, minor: d[from + 1]! };
    case BUSADRES:
      if (n !== 2) return malformed(id, `bus address with ${n} data bytes`, d, from, to);
      return { type: 'bus-address', address: (d[from]! << 7) | d[from + 1]! };
    case TRADEMARK:
      return { type: 'trademark', text: ascii(d, from, to) };
    case BATTERY_STATUS:
      return decodeBattery(d, from, to);
    case EE_MOVES: {
      const entries = parseEeprom(from === 0 && to === d.length ? d : copy(d, from, to));
      return { type: 'ee-moves', entries };
    }
    default:
      return { type: 'unknown', id, data: copy(d, from, to) };
  }
}

/** Board → host bytes for a message (the emulator's output); decode∘encode is the identity. */
export function encodeMessage(msg: BoardMessage): Uint8Array {
  switch (msg.type) {
    case 'board-dump':
      return frame(MSG.BOARD_DUMP, msg.board.length === 64 ? msg.board : [...msg.board, ...new Array(64).fill(0)].slice(0, 64));
    case 'field-update':
      return frame(MSG.FIELD_UPDATE, [msg.field, msg.piece]);
    case 'clock-times':
    case 'clock-ack':
    case 'clock-zero':
      return frame(MSG.BWTIME, encodeBwtime(msg));
    case 'serial-number':
      return frame(MSG.SERIALNR, asciiBytes(msg.serial.padStart(5, '0').slice(-5)));
    case 'long-serial-number':
      return frame(MSG.LONG_SERIALNR, asciiBytes(msg.serial.padStart(10, '0').slice(-10)));
    case 'version':
      return frame(MSG.VERSION, [msg.major, msg.minor]);
    case 'bus-address':
      return frame(MSG.BUSADRES, [(msg.address >> 7) & 0x7f, msg.address & 0x7f]);
    case 'trademark':
      return frame(MSG.TRADEMARK, asciiBytes(msg.text).slice(0, 256));
    case 'battery':
      return frame(MSG.BATTERY_STATUS, msg.data);
    case 'ee-moves':
      return frame(MSG.EE_MOVES, encodeEeprom(msg.entries));
    case 'unknown':
    case 'malformed':
      return frame(msg.id, msg.data);
  }
}

/** Battery message from its data bytes (the emulator's way to build one). */
export function batteryMessage(data: readonly number[]): BatteryMessage {
  return decodeBattery(data, 0, data.length);
}
