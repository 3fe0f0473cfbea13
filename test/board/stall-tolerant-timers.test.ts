import { describe, expect, it } from 'vitest';
import { HELD_UP_GRACE_MS, HELD_UP_MS, stallTolerantTimers, type Timers } from '../../daemon/board/timers.ts';

/** Timers whose callbacks run when the test says: late, as after the host's event loop was held up. */
class HeldUpTimers implements Timers {
  t = 0;
  private seq = 0;
  readonly queue = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    this.queue.set(++this.seq, { at: this.t + ms, fn });
    return this.seq;
  }
  clearTimeout(handle: unknown): void {
    this.queue.delete(handle as number);
  }
  /** Time jumps to `to` (the loop was held), then every timer due by then runs, oldest first. */
  runAt(to: number): void {
    this.t = to;
    for (const [id, e] of [...this.queue].sort((a, b) => a[1].at - b[1].at)) {
      if (e.at > to || !this.queue.has(id)) continue;
      this.queue.delete(id);
      e.fn();
    }
  }
}

describe('watchdog timers and a host held up', () => {
  it('fire as ever when on time', () => {
    const base = new HeldUpTimers();
    const timers = stallTolerantTimers(base);
    let fired = 0;
    timers.setTimeout(() => fired++, 4_000);
    base.runAt(4_000 + HELD_UP_MS);
    expect(fired).toBe(1);
  });

  it('wait a grace period when they fire late, and are cleared by what is read meanwhile', () => {
    const base = new HeldUpTimers();
    const timers = stallTolerantTimers(base);
    let fired = 0;
    const silence = timers.setTimeout(() => fired++, 4_000);
    // The loop is held up until 10 s: the watchdog runs 6 s late, before the board's bytes are read.
    base.runAt(10_000);
    expect(fired).toBe(0);
    // The bytes are read: the session clears its watchdog (and arms a new one).
    timers.clearTimeout(silence);
    base.runAt(10_000 + HELD_UP_GRACE_MS);
    expect(fired).toBe(0);
    expect(base.queue.size).toBe(0);
  });

  it('still fire after the grace when nothing came', () => {
    const base = new HeldUpTimers();
    const timers = stallTolerantTimers(base);
    let fired = 0;
    timers.setTimeout(() => fired++, 4_000);
    base.runAt(10_000);
    base.runAt(10_000 + HELD_UP_GRACE_MS);
    expect(fired).toBe(1);
  });

  it('do not wait for ever on a host held up at every turn', () => {
    const base = new HeldUpTimers();
    const timers = stallTolerantTimers(base);
    let fired = 0;
    timers.setTimeout(() => fired++, 4_000);
    let at = 4_000;
    for (let turn = 0; turn < 10 && fired === 0; turn++) base.runAt((at += HELD_UP_GRACE_MS + 2 * HELD_UP_MS));
    expect(fired).toBe(1);
    expect(at).toBeLessThanOrEqual(4_000 + 6 * (HELD_UP_GRACE_MS + 2 * HELD_UP_MS));
  });
});
