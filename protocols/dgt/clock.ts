import { toBcd } from './eeprom.ts';
import { err, ok, type Result } from '../result.ts';

/**
 * The DGT clock as seen through the board: commands tunnelled inside CLOCK_MESSAGE (0x2b), and
 * the 10-byte BWTIME message that carries either clock times or a clock ACK (dgtbrd.h).
 */

export const CLOCK_MESSAGE = 0x2b;
export const CLOCK_START = 0x03;
export const CLOCK_END = 0x00;

export const CLOCK_CMD = {
  DISPLAY: 0x01,
  ICONS: 0x02,
  END: 0x03,
  BUTTON: 0x08,
  VERSION: 0x09,
  SETNRUN: 0x0a,
  BEEP: 0x0b,
  ASCII: 0x0c,
} as const;

export interface ClockHms {
  hours: number;
  minutes: number;
  seconds: number;
}

export type ClockCommand =
  /** Six 7-segment bytes in wire order (locations C, B, A, F, E, D), dots/ones bitmask, beep. */
  | { type: 'display'; segments: number[]; dots: number; beep: boolean }
  /** The 8 icon bytes (4 icon bytes, special, 3 reserved). */
  | { type: 'icons'; data: number[] }
  | { type: 'end' }
  | { type: 'button' }
  | { type: 'version' }
  /**
   * Set both times and who runs (clock mode 23 only). Times are binary, not BCD; flags byte:
   * 0x01 left runs, 0x02 right runs, 0x04 pause, 0x08 toggle on lever.
   */
  | {
      type: 'setnrun';
      left: ClockHms;
      right: ClockHms;
      leftRuns: boolean;
      rightRuns: boolean;
      pause: boolean;
      toggleOnLever: boolean;
    }
  /** Beep for units × 64 ms. */
  | { type: 'beep'; units: number }
  /** DGT3000 only: 8 ASCII characters and a beep value 0–15. */
  | { type: 'ascii'; text: string; beep: number }
  /** A well-framed clock command we do not model (or with non-canonical content): kept verbatim. */
  | { type: 'unknown'; id: number; content: number[] };

/**
 * Whole hours/minutes/seconds for SETNRUN from milliseconds, rounded up so a clock never shows
 * less time than remains; capped at 9:59:59, the most the display (one hour digit) can show.
 */
export function msToHms(ms: number): ClockHms {
  const total = Math.min(9 * 3600 + 59 * 60 + 59, Math.max(0, Math.ceil(ms / 1000)));
  return { hours: Math.floor(total / 3600), minutes: Math.floor((total % 3600) / 60), seconds: total % 60 };
}

function hms(h: number, m: number, s: number): ClockHms {
  return { hours: h, minutes: m, seconds: s };
}

function commandBody(cmd: ClockCommand): [number, number[]] {
  switch (cmd.type) {
    case 'display':
      return [CLOCK_CMD.DISPLAY, [...padTo(cmd.segments, 6), cmd.dots, cmd.beep ? 0x03 : 0x01]];
    case 'icons':
      return [CLOCK_CMD.ICONS, padTo(cmd.data, 8)];
    case 'end':
      return [CLOCK_CMD.END, []];
    case 'button':
      return [CLOCK_CMD.BUTTON, []];
    case 'version':
      return [CLOCK_CMD.VERSION, []];
    case 'setnrun': {
      const flags = (cmd.leftRuns ? 0x01 : 0) | (cmd.rightRuns ? 0x02 : 0) | (cmd.pause ? 0x04 : 0) | (cmd.toggleOnLever ? 0x08 : 0);
      const { left: l, right: r } = cmd;
      return [CLOCK_CMD.SETNRUN, [l.hours, l.minutes, l.seconds, r.hours, r.minutes, r.seconds, flags]];
    }
    case 'beep':
      return [CLOCK_CMD.BEEP, [cmd.units]];
    case 'ascii': {
      const text = cmd.text.padEnd(8, ' ').slice(0, 8);
      const chars: number[] = [];
      for (let i = 0; i < 8; i++) chars.push(text.charCodeAt(i));
      return [CLOCK_CMD.ASCII, [...chars, cmd.beep]];
    }
    case 'unknown':
      return [cmd.id, cmd.content];
  }
}

/** The id byte a clock command travels with inside CLOCK_MESSAGE (what the clock's ACK names in ack1). */
export function clockCommandId(cmd: ClockCommand): number {
  return cmd.type === 'unknown' ? cmd.id : commandBody(cmd)[0];
}

function padTo(values: readonly number[], n: number): number[] {
  const out = values.slice(0, n);
  while (out.length < n) out.push(0);
  return out;
}

/** 0x2b, size, 0x03, id, content…, 0x00 — size counts the bytes after itself. */
export function encodeClockCommand(cmd: ClockCommand): Uint8Array {
  const [id, content] = commandBody(cmd);
  const out = new Uint8Array(5 + content.length);
  out[0] = CLOCK_MESSAGE;
  out[1] = 3 + content.length;
  out[2] = CLOCK_START;
  out[3] = id;
  for (let i = 0; i < content.length; i++) out[4 + i] = content[i]! & 0xff;
  out[out.length - 1] = CLOCK_END;
  return out;
}

function interpret(id: number, c: readonly number[]): ClockCommand {
  switch (id) {
    case CLOCK_CMD.DISPLAY:
      if (c.length === 8 && (c[7] === 0x01 || c[7] === 0x03)) {
        return { type: 'display', segments: c.slice(0, 6), dots: c[6]!, beep: c[7] === 0x03 };
      }
      break;
    case CLOCK_CMD.ICONS:
      if (c.length === 8) return { type: 'icons', data: c.slice() };
      break;
    case CLOCK_CMD.END:
      if (c.length === 0) return { type: 'end' };
      break;
    case CLOCK_CMD.BUTTON:
      if (c.length === 0) return { type: 'button' };
      break;
    case CLOCK_CMD.VERSION:
      if (c.length === 0) return { type: 'version' };
      break;
    case CLOCK_CMD.SETNRUN:
      if (c.length === 7 && (c[6]! & 0xf0) === 0) {
        const f = c[6]!;
        return {
          type: 'setnrun',
          left: hms(c[0]!, c[1]!, c[2]!),
          right: hms(c[3]!, c[4]!, c[5]!),
          leftRuns: (f & 0x01) !== 0,
          rightRuns: (f & 0x02) !== 0,
          pause: (f & 0x04) !== 0,
          toggleOnLever: (f & 0x08) !== 0,
        };
      }
      break;
    case CLOCK_CMD.BEEP:
      if (c.length === 1) return { type: 'beep', units: c[0]! };
      break;
    case CLOCK_CMD.ASCII:
      if (c.length === 9) return { type: 'ascii', text: String.fromCharCode(...c.slice(0, 8)), beep: c[8]! };
      break;
  }
  return { type: 'unknown', id, content: c.slice() };
}

/**
 * Decodes one complete clock frame starting at `bytes[offset]` (which must be 0x2b); returns
 * the command, or a reason when the frame's start/end markers are wrong. Never throws.
 */
export function decodeClockFrame(bytes: ArrayLike<number>, offset = 0): Result<{ command: ClockCommand; size: number }, string> {
  if (bytes[offset] !== CLOCK_MESSAGE) return err('not a clock message (0x2b)');
  const size = bytes[offset + 1];
  if (size === undefined) return err('missing size byte');
  if (size < 3) return err(`clock message size ${size} < 3`);
  const total = 2 + size;
  if (offset + total > bytes.length) return err('incomplete clock message');
  if (bytes[offset + 2] !== CLOCK_START) return err('clock message without start byte 0x03');
  if (bytes[offset + total - 1] !== CLOCK_END) return err('clock message without end byte 0x00');
  const id = bytes[offset + 3]!;
  const content: number[] = [];
  for (let i = offset + 4; i < offset + total - 1; i++) content.push(bytes[i]!);
  return ok({ command: interpret(id, content), size: total });
}

// ---------------------------------------------------------------------------------------------
// BWTIME (board → host): clock times or clock ACK.

export interface ClockSide {
  hours: number;
  minutes: number;
  seconds: number;
  /** Total time shown, in milliseconds (the clock reports whole seconds). */
  ms: number;
  /** Bit 4: flag fallen and clock blocked at zero. */
  flagFallenBlocked: boolean;
  /** Bit 5: time-per-move (increment/delay) indicator. */
  timePerMove: boolean;
  /** Bit 6: flag fallen and shown, clock possibly running on (next period). */
  flagFallenShown: boolean;
}

export interface ClockStatus {
  running: boolean;
  rightLeverHigh: boolean;
  batteryLow: boolean;
  rightToMove: boolean;
  leftToMove: boolean;
  /** Bit 5: no clock connected, times invalid. */
  noClock: boolean;
}

export type ClockButton = 'back' | 'plus' | 'run' | 'minus' | 'ok';

/**
 * 'ready' and 'button' are the unsolicited ACKs (ack1 0x81 / 0x88); 'unsolicited' is any other
 * ack1 with bit 7 set (the header lists 0x8a / 0x90 with uncertain meaning); 'command' acks the
 * clock command whose id is in ack1.
 */
export type ClockAckKind = 'ready' | 'button' | 'unsolicited' | 'command';

export type ClockTimesMessage = { type: 'clock-times'; right: ClockSide; left: ClockSide; status: ClockStatus };
export type ClockAckMessage = {
  type: 'clock-ack';
  ack0: number;
  ack1: number;
  ack2: number;
  ack3: number;
  /** ack0 is 0x10 for a normal ACK, 0x40 for an error (e.g. SETNRUN outside mode 23). */
  error: boolean;
  kind: ClockAckKind;
  button?: ClockButton;
  ackedCommand?: number;
};
/** All seven BWTIME data bytes zero: sent right after a clock command over Bluetooth; ignore it. */
export type ClockZeroMessage = { type: 'clock-zero' };
export type BwtimeMessage = ClockTimesMessage | ClockAckMessage | ClockZeroMessage;

const BUTTONS: Readonly<Record<number, ClockButton>> = { 0x31: 'back', 0x32: 'plus', 0x33: 'run', 0x34: 'minus', 0x35: 'ok' };
const BUTTON_CODES: Readonly<Record<ClockButton, number>> = { back: 0x31, plus: 0x32, run: 0x33, minus: 0x34, ok: 0x35 };

function side(hoursByte: number, m: number, s: number): ClockSide {
  const hours = hoursByte & 0x0f;
  // BCD inline rather than eeprom.ts's fromBcd: an imported call per field shows in the benchmark.
  const minutes = (m >> 4) * 10 + (m & 0x0f);
  const seconds = (s >> 4) * 10 + (s & 0x0f);
  return {
    hours,
    minutes,
    seconds,
    ms: ((hours * 60 + minutes) * 60 + seconds) * 1000,
    flagFallenBlocked: (hoursByte & 0x10) !== 0,
    timePerMove: (hoursByte & 0x20) !== 0,
    flagFallenShown: (hoursByte & 0x40) !== 0,
  };
}

export function isClockAck(b3: number, b6: number): boolean {
  return (b3 & 0x0f) === 0x0a || (b6 & 0x0f) === 0x0a;
}

/** Decodes the 7 data bytes of a BWTIME message (frame bytes 3..9), given at `d[o]..d[o+6]`. */
export function decodeBwtime(d: ArrayLike<number>, o = 0): BwtimeMessage {
  const b3 = d[o]!,
    b4 = d[o + 1]!,
    b5 = d[o + 2]!,
    b6 = d[o + 3]!,
    b7 = d[o + 4]!,
    b8 = d[o + 5]!,
    b9 = d[o + 6]!;
  if ((b3 | b4 | b5 | b6 | b7 | b8 | b9) === 0) return { type: 'clock-zero' };
  if (isClockAck(b3, b6)) {
    const ack0 = (b4 & 0x7f) | ((b6 << 3) & 0x80);
    const ack1 = (b5 & 0x7f) | ((b6 << 2) & 0x80);
    const ack2 = (b7 & 0x7f) | ((b3 << 3) & 0x80);
    const ack3 = (b8 & 0x7f) | ((b3 << 2) & 0x80);
    const msg: ClockAckMessage = { type: 'clock-ack', ack0, ack1, ack2, ack3, error: ack0 !== 0x10, kind: 'command' };
    if ((ack1 & 0x80) === 0) msg.ackedCommand = ack1;
    else if (ack1 === 0x81) msg.kind = 'ready';
    else if (ack1 === 0x88) {
      msg.kind = 'button';
      const button = BUTTONS[ack3];
      if (button !== undefined) msg.button = button;
    } else msg.kind = 'unsolicited';
    return msg;
  }
  return {
    type: 'clock-times',
    right: side(b3, b4, b5),
    left: side(b6, b7, b8),
    status: {
      running: (b9 & 0x01) !== 0,
      rightLeverHigh: (b9 & 0x02) !== 0,
      batteryLow: (b9 & 0x04) !== 0,
      rightToMove: (b9 & 0x08) !== 0,
      leftToMove: (b9 & 0x10) !== 0,
      noClock: (b9 & 0x20) !== 0,
    },
  };
}

function sideBytes(s: ClockSide): [number, number, number] {
  const h = Math.min(9, Math.max(0, s.hours)) | (s.flagFallenBlocked ? 0x10 : 0) | (s.timePerMove ? 0x20 : 0) | (s.flagFallenShown ? 0x40 : 0);
  return [h, toBcd(s.minutes), toBcd(s.seconds)];
}

/** The 7 BWTIME data bytes for a message (inverse of decodeBwtime). */
export function encodeBwtime(msg: BwtimeMessage): number[] {
  switch (msg.type) {
    case 'clock-zero':
      return [0, 0, 0, 0, 0, 0, 0];
    case 'clock-times': {
      const st = msg.status;
      const b9 = (st.running ? 0x01 : 0) | (st.rightLeverHigh ? 0x02 : 0) | (st.batteryLow ? 0x04 : 0) | (st.rightToMove ? 0x08 : 0) | (st.leftToMove ? 0x10 : 0) | (st.noClock ? 0x20 : 0);
      return [...sideBytes(msg.right), ...sideBytes(msg.left), b9];
    }
    case 'clock-ack': {
      // Inverse of the ACK formula: bit 7 of ack0/ack1 travels in bits 4/5 of byte 6, bit 7 of
      // ack2/ack3 in bits 4/5 of byte 3; the low nibble 0x0a of bytes 3 and 6 marks the ACK.
      const b3 = 0x0a | ((msg.ack2 & 0x80) >> 3) | ((msg.ack3 & 0x80) >> 2);
      const b6 = 0x0a | ((msg.ack0 & 0x80) >> 3) | ((msg.ack1 & 0x80) >> 2);
      return [b3, msg.ack0 & 0x7f, msg.ack1 & 0x7f, b6, msg.ack2 & 0x7f, msg.ack3 & 0x7f, 0];
    }
  }
}

/** Builds a clock ACK message from its four ack bytes (derives kind/button/error as decoding does). */
export function clockAck(ack0: number, ack1: number, ack2: number, ack3: number): ClockAckMessage {
  return decodeBwtime(encodeBwtime({ type: 'clock-ack', ack0, ack1, ack2, ack3, error: false, kind: 'command' })) as ClockAckMessage;
}

export function buttonCode(button: ClockButton): number {
  return BUTTON_CODES[button];
}
