import { decodeBwtime } from './clock.ts';
import type { BwtimeMessage } from './clock.ts';
import { encodeBwtime } from './clock.ts';
import { encodeEeprom, parseEeprom } from './eeprom.ts';
import type { EepromEntry } from './eeprom.ts';
import { PacketStream } from './packet-stream.ts';
import type { PieceCode } from './squares.ts';

/**
 * Bus mode (many boards on one line), per dgtbrd.h. Every packet carries the board's 14-bit
 * address as two 7-bit bytes and ends with checksum = (sum of all previous bytes) & 0x7f, so
 * like single-board frames only the id byte has its MSB set.
 *   command: id, address MSB, address LSB, checksum                         (4 bytes)
 *   reply:   id, length MSB, length LSB, address MSB, address LSB, data…, checksum
 *            (length = the whole packet, header and checksum included)
 */

export type BusCommandType =
  'send-clock' | 'send-board' | 'send-changes' | 'repeat-changes' | 'set-start-game' | 'send-from-start' | 'ping' | 'end-busmode' | 'reset' | 'ignore-next-bus-ping' | 'send-version' | 'send-all-d';

export type BusCommand = { type: BusCommandType };

export const BUS_COMMAND_CODES: Readonly<Record<BusCommandType, number>> = {
  'send-clock': 0x81,
  'send-board': 0x82,
  /** Poll every few seconds per board. */
  'send-changes': 0x83,
  /** After a checksum error: SEND_CHANGES again would lose the changes already sent. */
  'repeat-changes': 0x84,
  'set-start-game': 0x85,
  'send-from-start': 0x86,
  /** Address 0: every board answers, spread over ~1.1 s. */
  ping: 0x87,
  'end-busmode': 0x88,
  reset: 0x89,
  'ignore-next-bus-ping': 0x8a,
  'send-version': 0x8b,
  'send-all-d': 0x8d,
};

const COMMAND_BY_CODE = new Map<number, BusCommandType>((Object.entries(BUS_COMMAND_CODES) as [BusCommandType, number][]).map(([t, c]) => [c, t]));

export const BUS_REPLY = {
  BRD_DUMP: 0x83,
  BWTIME: 0x84,
  UPDATE: 0x85,
  FROM_START: 0x86,
  PING: 0x87,
  START_GAME_WRITTEN: 0x88,
  VERSION: 0x89,
} as const;

export type BusReply =
  | { type: 'brd-dump'; board: PieceCode[] }
  | { type: 'bwtime'; clock: BwtimeMessage }
  /** Changes since the last SEND_CHANGES, in EEPROM log format. */
  | { type: 'update'; entries: EepromEntry[] }
  /** The EEPROM log from the last start-of-game. */
  | { type: 'from-start'; entries: EepromEntry[] }
  | { type: 'ping' }
  | { type: 'start-game-written'; data: number[] }
  | { type: 'version'; major: number; minor: number };

export function busChecksum(bytes: ArrayLike<number>, from = 0, to = bytes.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += bytes[i]!;
  return sum & 0x7f;
}

export function busAddressBytes(address: number): [msb: number, lsb: number] {
  return [(address >> 7) & 0x7f, address & 0x7f];
}

/**
 * A board's bus address is its decimal serial number taken as a 14-bit value (dgtbrd.h: serial
 * "01025 1.0" → 0x08 0x01). Only the leading digits count; -1 when the serial has none.
 */
export function serialToBusAddress(serial: string): number {
  const m = /^\s*(\d+)/.exec(serial);
  if (!m) return -1;
  return Number.parseInt(m[1]!, 10) & 0x3fff;
}

export function encodeBusCommand(cmd: BusCommand, address: number): Uint8Array {
  const [msb, lsb] = busAddressBytes(address);
  const out = Uint8Array.of(BUS_COMMAND_CODES[cmd.type], msb, lsb, 0);
  out[3] = busChecksum(out, 0, 3);
  return out;
}

function replyBody(reply: BusReply): [number, ArrayLike<number>] {
  switch (reply.type) {
    case 'brd-dump':
      return [BUS_REPLY.BRD_DUMP, reply.board];
    case 'bwtime':
      return [BUS_REPLY.BWTIME, encodeBwtime(reply.clock)];
    case 'update':
      return [BUS_REPLY.UPDATE, encodeEeprom(reply.entries)];
    case 'from-start':
      return [BUS_REPLY.FROM_START, encodeEeprom(reply.entries)];
    case 'ping':
      return [BUS_REPLY.PING, []];
    case 'start-game-written':
      return [BUS_REPLY.START_GAME_WRITTEN, reply.data];
    case 'version':
      return [BUS_REPLY.VERSION, [reply.major, reply.minor]];
  }
}

export function encodeBusReply(reply: BusReply, address: number): Uint8Array {
  const [id, data] = replyBody(reply);
  const size = 6 + data.length;
  const out = new Uint8Array(size);
  out[0] = id;
  out[1] = (size >> 7) & 0x7f;
  out[2] = size & 0x7f;
  [out[3], out[4]] = busAddressBytes(address);
  for (let i = 0; i < data.length; i++) out[5 + i] = data[i]! & 0x7f;
  out[size - 1] = busChecksum(out, 0, size - 1);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Streaming decoders. Both resynchronise on MSB-set bytes, as the single-board decoder does.

export type BusProblem = 'checksum' | 'bad-length' | 'truncated' | 'unknown-id' | 'garbage' | 'malformed';

export type BusCommandResult = { ok: true; address: number; command: BusCommand; raw: Uint8Array } | { ok: false; reason: BusProblem; address?: number; raw: Uint8Array };

export type BusReplyResult = { ok: true; address: number; reply: BusReply; raw: Uint8Array } | { ok: false; reason: BusProblem; address?: number; raw: Uint8Array };

/** Reply sizes (whole packet) per id: fixed ones exact, EEPROM lists up to the log's 0x1f00. */
const REPLY_SIZES: ReadonlyMap<number, { min: number; max: number }> = new Map([
  [BUS_REPLY.BRD_DUMP, { min: 70, max: 70 }],
  [BUS_REPLY.BWTIME, { min: 13, max: 13 }],
  [BUS_REPLY.UPDATE, { min: 6, max: 6 + 0x1f00 }],
  [BUS_REPLY.FROM_START, { min: 6, max: 6 + 0x1f00 }],
  [BUS_REPLY.PING, { min: 6, max: 6 }],
  [BUS_REPLY.START_GAME_WRITTEN, { min: 6, max: 16 }],
  [BUS_REPLY.VERSION, { min: 8, max: 8 }],
]);

/** Host → boards bus commands, checksum-verified (the emulator side). */
export class BusCommandDecoder extends PacketStream<BusCommandResult> {
  protected next(buf: Uint8Array, i: number, len: number, out: BusCommandResult[]): number {
    if (buf[i]! < 0x80) {
      const n = PacketStream.garbageRun(buf, i, len);
      out.push({ ok: false, reason: 'garbage', raw: buf.slice(i, i + n) });
      return n;
    }
    const step = readBusCommand(buf, i, len);
    if (step === null) return 0;
    out.push(step);
    return step.raw.length;
  }
}

/**
 * Reads the bus command whose id byte (MSB set) is at buf[i], with buf[i..len) buffered: null
 * while its 4 bytes are not all there. A later MSB-set byte inside them means bytes were lost:
 * the command so far is reported 'truncated' and reading resumes at that byte. Never throws.
 */
export function readBusCommand(buf: ArrayLike<number>, i: number, len: number): BusCommandResult | null {
  const cut = PacketStream.idByteIn(buf, i + 1, Math.min(i + 4, len));
  if (cut >= 0) return { ok: false, reason: 'truncated', raw: copyBytes(buf, i, cut) };
  if (i + 4 > len) return null;
  const raw = copyBytes(buf, i, i + 4);
  const address = (raw[1]! << 7) | raw[2]!;
  const type = COMMAND_BY_CODE.get(raw[0]!);
  if (busChecksum(raw, 0, 3) !== raw[3]) return { ok: false, reason: 'checksum', address, raw };
  if (type === undefined) return { ok: false, reason: 'unknown-id', address, raw };
  return { ok: true, address, command: { type }, raw };
}

function copyBytes(buf: ArrayLike<number>, from: number, to: number): Uint8Array {
  const out = new Uint8Array(to - from);
  for (let k = from; k < to; k++) out[k - from] = buf[k]!;
  return out;
}

export function decodeBusCommands(bytes: Uint8Array): BusCommandResult[] {
  return new BusCommandDecoder().push(bytes);
}

function decodeReply(id: number, d: Uint8Array, from: number, to: number): BusReply | undefined {
  const n = to - from;
  switch (id) {
    case BUS_REPLY.BRD_DUMP: {
      const board: PieceCode[] = [];
      for (let k = from; k < to; k++) {
        if (d[k]! > 0x0f) return undefined;
        board.push(d[k]! as PieceCode);
      }
      return { type: 'brd-dump', board };
    }
    case BUS_REPLY.BWTIME:
      return { type: 'bwtime', clock: decodeBwtime(d, from) };
    case BUS_REPLY.UPDATE:
      return { type: 'update', entries: parseEeprom(d.subarray(from, to)) };
    case BUS_REPLY.FROM_START:
      return { type: 'from-start', entries: parseEeprom(d.subarray(from, to)) };
    case BUS_REPLY.PING:
      return { type: 'ping' };
    case BUS_REPLY.START_GAME_WRITTEN:
      return { type: 'start-game-written', data: Array.from(d.subarray(from, to)) };
    case BUS_REPLY.VERSION:
      return n === 2 ? { type: 'version', major: d[from]!, minor: d[from + 1]! } : undefined;
  }
  return undefined;
}

/** Boards → host bus replies, checksum-verified (the daemon side). */
export class BusReplyDecoder extends PacketStream<BusReplyResult> {
  /**
   * Bytes of the unfinished reply (which push() keeps at the buffer's start) already checked for
   * an id byte, so a long EEPROM reply arriving byte by byte is not rescanned from its start.
   */
  private scanned = 0;

  protected next(buf: Uint8Array, i: number, len: number, out: BusReplyResult[]): number {
    const used = this.consume(buf, i, len, out);
    this.scanned = used === 0 ? len - i : 0;
    return used;
  }

  private consume(buf: Uint8Array, i: number, len: number, out: BusReplyResult[]): number {
    const id = buf[i]!;
    if (id < 0x80) {
      const n = PacketStream.garbageRun(buf, i, len);
      out.push({ ok: false, reason: 'garbage', raw: buf.slice(i, i + n) });
      return n;
    }
    const range = REPLY_SIZES.get(id);
    const headerCut = PacketStream.idByteIn(buf, i + 1, Math.min(i + 5, len));
    if (headerCut >= 0) {
      out.push({ ok: false, reason: 'truncated', raw: buf.slice(i, headerCut) });
      return headerCut - i;
    }
    if (i + 5 > len) return 0;
    const size = (buf[i + 1]! << 7) | buf[i + 2]!;
    const address = (buf[i + 3]! << 7) | buf[i + 4]!;
    if (range === undefined || size < range.min || size > range.max) {
      out.push({ ok: false, reason: range === undefined ? 'unknown-id' : 'bad-length', address, raw: buf.slice(i, i + 1) });
      return 1;
    }
    const cut = PacketStream.idByteIn(buf, i + Math.max(5, this.scanned), Math.min(i + size, len));
    if (cut >= 0) {
      out.push({ ok: false, reason: 'truncated', address, raw: buf.slice(i, cut) });
      return cut - i;
    }
    if (i + size > len) return 0;
    const raw = buf.slice(i, i + size);
    if (busChecksum(raw, 0, size - 1) !== raw[size - 1]) {
      out.push({ ok: false, reason: 'checksum', address, raw });
      return size;
    }
    const reply = decodeReply(id, raw, 5, size - 1);
    if (reply === undefined) out.push({ ok: false, reason: 'malformed', address, raw });
    else out.push({ ok: true, address, reply, raw });
    return size;
  }
}
