import type { BoardEmulator, TimedBytes } from './board-emulator.ts';
import { concatBytes } from './script.ts';
import { BYTE_TIME_MS } from './wire.ts';

/**
 * Several boards in bus mode on one line: every board hears every host byte, and their replies
 * share one wire. Replies are put on the wire in time order; a reply that starts while another is
 * still being sent is counted as a collision (on a real bus both would be garbled; here the later
 * one waits, so tests can still read both and check the host's recovery separately).
 */
export class EmulatedBus {
  collisions = 0;
  private wireFreeAt = 0;
  private out: TimedBytes[] = [];

  constructor(readonly boards: readonly BoardEmulator[]) {}

  receive(hostBytes: Uint8Array, at: number): void {
    for (const b of this.boards) b.receive(hostBytes, at);
    this.collect();
  }

  advanceTo(at: number): void {
    for (const b of this.boards) b.advanceTo(at);
    this.collect();
  }

  /** The earliest moment any board will send by itself. */
  nextWakeup(): number | null {
    let next: number | null = null;
    for (const b of this.boards) {
      const w = b.nextWakeup();
      if (w !== null && (next === null || w < next)) next = w;
    }
    return next;
  }

  takeTimedOutput(): TimedBytes[] {
    const out = this.out;
    this.out = [];
    return out;
  }

  takeOutput(): Uint8Array {
    return concatBytes(this.takeTimedOutput());
  }

  private collect(): void {
    const chunks: TimedBytes[] = [];
    for (const b of this.boards) chunks.push(...b.takeTimedOutput());
    // Stable: equal times keep board order.
    chunks.sort((a, b) => a.at - b.at);
    for (const c of chunks) {
      if (c.at < this.wireFreeAt) this.collisions++;
      const start = Math.max(c.at, this.wireFreeAt);
      this.wireFreeAt = start + c.bytes.length * BYTE_TIME_MS;
      this.out.push({ at: start, bytes: c.bytes });
    }
  }
}
