import { batteryMessage, clockAck, encodeMessage } from '../../../protocols/dgt/index.ts';
import type { BoardMessage, ClockSide, EepromEntry, EepromTag, PieceCode } from '../../../protocols/dgt/index.ts';

/** xorshift32: tiny, seeded, reproducible (never Math.random, so a failure replays from its seed). */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 0x2545f491;
    for (let i = 0; i < 8; i++) this.u32();
  }
  u32(): number {
    let x = this.s;
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    this.s = x;
    return x;
  }
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + (this.u32() % (hi - lo + 1));
  }
  bool(p = 0.5): boolean {
    return this.u32() / 4294967296 < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(0, xs.length - 1)]!;
  }
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }
}

const TAGS: readonly EepromTag[] = ['powerup', 'fourrows', 'emptyboard', 'downloaded', 'beginpos', 'beginpos-rot', 'start-tag', 'watchdog', 'nop', 'nop-zero'];

function clockSide(r: Rng): ClockSide {
  const hours = r.int(0, 9),
    minutes = r.int(0, 59),
    seconds = r.int(0, 59);
  return {
    hours,
    minutes,
    seconds,
    ms: ((hours * 60 + minutes) * 60 + seconds) * 1000,
    flagFallenBlocked: r.bool(0.05),
    timePerMove: r.bool(0.3),
    flagFallenShown: r.bool(0.05),
  };
}

export function randomClockTimes(r: Rng): BoardMessage {
  return {
    type: 'clock-times',
    right: clockSide(r),
    left: clockSide(r),
    status: {
      // Running is always set so the message can never be the all-zero BWTIME.
      running: true,
      rightLeverHigh: r.bool(),
      batteryLow: r.bool(0.05),
      rightToMove: r.bool(),
      leftToMove: r.bool(),
      noClock: r.bool(0.02),
    },
  };
}

export function randomEeprom(r: Rng, n: number): EepromEntry[] {
  const out: EepromEntry[] = [];
  for (let i = 0; i < n; i++) {
    const k = r.int(0, 9);
    if (k < 6) out.push({ type: 'field-update', piece: r.int(0, 15) as PieceCode, field: r.int(0, 63), quick: r.bool() });
    else if (k < 8) out.push({ type: 'clock', side: r.bool() ? 'left' : 'right', hours: r.int(0, 9), minutes: r.int(0, 59), seconds: r.int(0, 59) });
    else if (k < 9) out.push({ type: 'tag', tag: r.pick(TAGS) });
    // Bytes that begin no entry: 0x01–0x3f and the two "future" codes.
    else out.push({ type: 'unknown', byte: r.bool() ? r.int(0x01, 0x3f) : r.pick([0x7d, 0x7e]) });
  }
  out.push({ type: 'tag', tag: 'eof' });
  return out;
}

function digits(r: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String(r.int(0, 9));
  return s;
}

function printable(r: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(r.int(0x20, 0x7e));
  return s;
}

export function randomBoard(r: Rng): PieceCode[] {
  return Array.from({ length: 64 }, () => (r.bool(0.5) ? 0 : r.int(1, 12)) as PieceCode);
}

/** Every message type, canonical (decode∘encode gives it back), weighted towards the live-game mix. */
export function randomMessage(r: Rng): BoardMessage {
  const k = r.int(0, 99);
  if (k < 45) return { type: 'field-update', field: r.int(0, 63), piece: r.int(0, 15) as PieceCode };
  if (k < 75) return randomClockTimes(r);
  if (k < 80) return { type: 'board-dump', board: randomBoard(r) };
  if (k < 84) {
    const ack1 = r.pick([0x81, 0x88, 0x8a, 0x01, 0x08, 0x09, 0x0a, 0x0b, 0x0c]);
    return clockAck(r.pick([0x10, 0x40]), ack1, r.int(0, 0xff), ack1 === 0x88 ? r.int(0x31, 0x36) : r.int(0, 0xff));
  }
  if (k < 86) return { type: 'clock-zero' };
  if (k < 87) return { type: 'serial-number', serial: digits(r, 5) };
  if (k < 88) return { type: 'long-serial-number', serial: digits(r, 10) };
  if (k < 89) return { type: 'version', major: r.int(0, 127), minor: r.int(0, 127) };
  if (k < 90) return { type: 'bus-address', address: r.int(0, 0x3fff) };
  if (k < 91) return { type: 'trademark', text: printable(r, r.int(0, 200)) };
  if (k < 92) return batteryMessage(Array.from({ length: r.int(4, 9) }, () => r.int(0, 0x7f)));
  if (k < 95) return { type: 'ee-moves', entries: randomEeprom(r, r.int(0, r.bool(0.1) ? 2000 : 60)) };
  if (k < 97) return { type: 'unknown', id: r.pick([0x80, 0x96, 0xa3, 0xa4, 0xa5, 0xff]), data: Array.from({ length: r.int(0, 40) }, () => r.int(0, 0x7f)) };
  if (k < 98) return { type: 'malformed', id: 0x8e, reason: 'field 100 > 63', data: [100, 1] };
  return { type: 'field-update', field: 63, piece: 0 };
}

/**
 * A realistic live stream for the benchmark: mostly field updates and clock times, a board dump
 * now and then, an occasional ACK.
 */
export function liveMessage(r: Rng): BoardMessage {
  const k = r.int(0, 99);
  if (k < 55) return { type: 'field-update', field: r.int(0, 63), piece: r.int(0, 12) as PieceCode };
  if (k < 93) return randomClockTimes(r);
  if (k < 97) return { type: 'board-dump', board: randomBoard(r) };
  return clockAck(0x10, 0x88, 0, r.int(0x31, 0x35));
}

export interface EncodedStream {
  messages: BoardMessage[];
  bytes: Uint8Array;
  /** starts[k] … starts[k + 1] are message k's bytes. */
  starts: number[];
}

export function encodeStream(messages: BoardMessage[]): EncodedStream {
  const parts = messages.map(encodeMessage);
  const starts: number[] = [];
  let total = 0;
  for (const p of parts) {
    starts.push(total);
    total += p.length;
  }
  starts.push(total);
  const bytes = new Uint8Array(total);
  parts.forEach((p, k) => bytes.set(p, starts[k]!));
  return { messages, bytes, starts };
}

/** Chunk sizes from 1 byte to 64 KiB, log-uniform so tiny and huge chunks both occur often. */
export function randomChunks(r: Rng, bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let i = 0;
  while (i < bytes.length) {
    const n = Math.max(1, Math.floor(2 ** ((r.u32() / 4294967296) * 16)));
    out.push(bytes.subarray(i, Math.min(bytes.length, i + n)));
    i += n;
  }
  return out;
}
