import type { TimedBytes } from './board-emulator.ts';
import { concatBytes } from './script.ts';

/** 9600 baud, 10 bits per byte on the wire (start, 8 data, stop). */
export const BYTE_TIME_MS = 10_000 / 9600;

/** Float sums of byte times must not hold back the byte that ends exactly now. */
const EPSILON_MS = 1e-6;

interface OnTheWire {
  /** When its first bit leaves: when it was sent, or when the wire came free. */
  start: number;
  bytes: Uint8Array;
  /** Bytes of it already delivered. */
  delivered: number;
}

/**
 * One direction of a serial line at 9600 baud: bytes arrive no faster than the line carries them,
 * in the order they were sent. A board that answers at once still takes 8.3 s to put a full
 * EEPROM log (0x1f00 bytes) on the wire, and whatever it sends meanwhile (a clock reading, a field
 * change) arrives after it. Pure: time is whatever the caller passes.
 */
export class SerialWire {
  private queue: OnTheWire[] = [];
  private freeAt = 0;

  /** Bytes leaving the sender at `at` (queued behind what is still on the wire). */
  send(chunks: readonly TimedBytes[]): void {
    for (const c of chunks) {
      if (c.bytes.length === 0) continue;
      const start = Math.max(c.at, this.freeAt);
      this.freeAt = start + c.bytes.length * BYTE_TIME_MS;
      this.queue.push({ start, bytes: c.bytes, delivered: 0 });
    }
  }

  /** Every byte whose last bit has arrived by `now`, in order. */
  arrived(now: number): Uint8Array {
    const parts: Uint8Array[] = [];
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      const whole = Math.floor((now - head.start + EPSILON_MS) / BYTE_TIME_MS);
      const upTo = Math.min(head.bytes.length, Math.max(0, whole));
      if (upTo > head.delivered) parts.push(head.bytes.subarray(head.delivered, upTo));
      head.delivered = Math.max(head.delivered, upTo);
      if (head.delivered < head.bytes.length) break;
      this.queue.shift();
    }
    return parts.length === 1 ? parts[0]! : concatBytes(parts.map((bytes) => ({ at: now, bytes })));
  }

  /** When the last byte sent so far will have arrived. */
  get idleAt(): number {
    return this.freeAt;
  }

  /** Bytes not yet arrived. */
  get pending(): number {
    return this.queue.reduce((n, c) => n + c.bytes.length - c.delivered, 0);
  }

  /** The line is cut: what was still on it never arrives. */
  cut(): void {
    this.queue = [];
  }
}
