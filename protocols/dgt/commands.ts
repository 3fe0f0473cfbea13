import { CLOCK_MESSAGE, decodeClockFrame, encodeClockCommand } from './clock.ts';
import type { ClockCommand } from './clock.ts';

/** Host → board single-board commands (dgtbrd.h). */
export const CMD = {
  SEND_RESET: 0x40,
  SEND_CLK: 0x41,
  SEND_BRD: 0x42,
  SEND_UPDATE: 0x43,
  SEND_UPDATE_BRD: 0x44,
  RETURN_SERIALNR: 0x45,
  RETURN_BUSADRES: 0x46,
  SEND_TRADEMARK: 0x47,
  SEND_EE_MOVES: 0x49,
  TO_BUSMODE: 0x4a,
  SEND_UPDATE_NICE: 0x4b,
  SEND_BATTERY_STATUS: 0x4c,
  SEND_VERSION: 0x4d,
  RETURN_LONG_SERIALNR: 0x55,
  SET_LEDS: 0x60,
  CLOCK_MESSAGE: CLOCK_MESSAGE,
} as const;

export type SimpleCommandType =
  | 'reset'
  | 'send-clock'
  | 'send-board'
  | 'send-update'
  | 'send-update-board'
  | 'send-serial'
  | 'send-bus-address'
  | 'send-trademark'
  | 'send-ee-moves'
  | 'to-bus-mode'
  | 'send-update-nice'
  | 'send-battery'
  | 'send-version'
  | 'send-long-serial';

export type HostCommand =
  | { type: SimpleCommandType }
  /** Revelation II only: 0x60 0x04 pattern start end 0x00. */
  | { type: 'set-leds'; pattern: number; start: number; end: number }
  | { type: 'clock'; command: ClockCommand };

export const SIMPLE_COMMAND_CODES: Readonly<Record<SimpleCommandType, number>> = {
  reset: CMD.SEND_RESET,
  'send-clock': CMD.SEND_CLK,
  'send-board': CMD.SEND_BRD,
  'send-update': CMD.SEND_UPDATE,
  'send-update-board': CMD.SEND_UPDATE_BRD,
  'send-serial': CMD.RETURN_SERIALNR,
  'send-bus-address': CMD.RETURN_BUSADRES,
  'send-trademark': CMD.SEND_TRADEMARK,
  'send-ee-moves': CMD.SEND_EE_MOVES,
  'to-bus-mode': CMD.TO_BUSMODE,
  'send-update-nice': CMD.SEND_UPDATE_NICE,
  'send-battery': CMD.SEND_BATTERY_STATUS,
  'send-version': CMD.SEND_VERSION,
  'send-long-serial': CMD.RETURN_LONG_SERIALNR,
};

const SIMPLE_BY_CODE = new Map<number, SimpleCommandType>((Object.entries(SIMPLE_COMMAND_CODES) as [SimpleCommandType, number][]).map(([t, c]) => [c, t]));

export const SET_LEDS_SIZE = 0x04;

export function encodeCommand(cmd: HostCommand): Uint8Array {
  switch (cmd.type) {
    case 'set-leds':
      return Uint8Array.of(CMD.SET_LEDS, SET_LEDS_SIZE, cmd.pattern & 0xff, cmd.start & 0xff, cmd.end & 0xff, 0x00);
    case 'clock':
      return encodeClockCommand(cmd.command);
    default:
      return Uint8Array.of(SIMPLE_COMMAND_CODES[cmd.type]);
  }
}

export interface CommandDecoderStats {
  commands: number;
  /** Bytes that start no known command (skipped one at a time). */
  unknownBytes: number;
  /** 0x2b / 0x60 frames with wrong size, start or end markers (their first byte is skipped). */
  badFrames: number;
}

/** What the bytes at one position of a host → board stream are (see readHostCommand). */
export type HostCommandStep =
  /** The frame at this position is not complete yet. */
  | { kind: 'need-more' }
  | { kind: 'command'; command: HostCommand; size: number }
  /** A 0x60 / 0x2b frame with wrong size, start or end markers: only its first byte is skipped. */
  | { kind: 'bad-frame'; reason: string }
  /** A byte that starts no single-board command. */
  | { kind: 'unknown-byte'; byte: number };

/**
 * Reads the single-board command starting at b[i], with b[i..len) buffered so far. Single-byte
 * commands are recognised at once; SET_LEDS and CLOCK_MESSAGE wait for their whole frame, but a
 * frame whose first bytes already show it is malformed is reported without waiting. Never throws.
 */
export function readHostCommand(b: ArrayLike<number>, i: number, len: number): HostCommandStep {
  const byte = b[i]!;
  const simple = SIMPLE_BY_CODE.get(byte);
  if (simple !== undefined) return { kind: 'command', command: { type: simple }, size: 1 };
  if (byte === CMD.SET_LEDS) {
    // The size byte is judged as soon as it arrives, with the same reason whether or not the rest
    // of the frame is buffered, so how the bytes were chunked never changes what is reported.
    if (i + 1 < len && b[i + 1] !== SET_LEDS_SIZE) return { kind: 'bad-frame', reason: `SET_LEDS with size byte 0x${b[i + 1]!.toString(16)}` };
    if (i + 6 > len) return { kind: 'need-more' };
    if (b[i + 5] !== 0x00) return { kind: 'bad-frame', reason: 'SET_LEDS without end byte 0x00' };
    return { kind: 'command', command: { type: 'set-leds', pattern: b[i + 2]!, start: b[i + 3]!, end: b[i + 4]! }, size: 6 };
  }
  if (byte === CLOCK_MESSAGE) {
    if (i + 2 > len) return { kind: 'need-more' };
    const size = b[i + 1]!;
    if (size >= 3 && i + 2 + size > len) {
      if (i + 2 < len && b[i + 2] !== 0x03) return { kind: 'bad-frame', reason: 'clock message without start byte 0x03' };
      return { kind: 'need-more' };
    }
    const r = decodeClockFrame(b, i);
    if (!r.ok) return { kind: 'bad-frame', reason: r.error };
    return { kind: 'command', command: { type: 'clock', command: r.value.command }, size: r.value.size };
  }
  return { kind: 'unknown-byte', byte };
}

/**
 * Streaming parser of host → board bytes in single-board mode. A malformed frame costs only its
 * first byte: parsing resumes at the next byte, as a board would. For a line that may also carry
 * bus commands, see HostStreamDecoder (host-stream.ts).
 */
export class CommandDecoder {
  readonly stats: CommandDecoderStats = { commands: 0, unknownBytes: 0, badFrames: 0 };
  private buf: number[] = [];
  /** Last issue seen, for logs ("unknown byte 0x7e", "clock message without end byte 0x00"). */
  lastProblem: string | undefined;

  push(chunk: Uint8Array): HostCommand[] {
    const out: HostCommand[] = [];
    for (let k = 0; k < chunk.length; k++) this.buf.push(chunk[k]!);
    let i = 0;
    const b = this.buf;
    while (i < b.length) {
      const step = readHostCommand(b, i, b.length);
      if (step.kind === 'need-more') break;
      if (step.kind === 'command') {
        out.push(step.command);
        this.stats.commands++;
        i += step.size;
        continue;
      }
      if (step.kind === 'bad-frame') {
        this.stats.badFrames++;
        this.lastProblem = step.reason;
      } else {
        this.stats.unknownBytes++;
        this.lastProblem = `unknown command byte 0x${step.byte.toString(16).padStart(2, '0')}`;
      }
      i++;
    }
    this.buf = i === b.length ? [] : b.slice(i);
    return out;
  }
}
