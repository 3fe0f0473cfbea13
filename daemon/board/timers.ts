/**
 * Time as the board code sees it. Injected so tests can drive back-off, periodic dumps and ACK
 * timeouts without waiting, and so `at` values are the session's monotonic milliseconds.
 */
export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Real timers; `now()` counts monotonic ms from the moment this was created. */
export function systemTimers(): Timers {
  const origin = performance.now();
  return {
    now: () => performance.now() - origin,
    // Looked up at call time, so test frameworks' fake timers also apply.
    setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
    clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
  };
}

/** A timer that fires this much later than it was due says the host was held up, not the board. */
export const HELD_UP_MS = 500;
/** How long a timer that fired late waits again, for the bytes that came meanwhile to be read. */
export const HELD_UP_GRACE_MS = 1_000;
/** At most this many waits per timer: a host held up at every turn must still time out. */
const MAX_GRACES = 5;

/**
 * Timers for watchdogs ("the board said nothing for 4 s", "no answer within 5 s"). Node runs due
 * timers before it reads the bytes that arrived meanwhile, so after the host's event loop was held
 * up (a long search, a table derived again for an amendment) every watchdog past its time would
 * fire with the board's answer waiting unread: a board taken for silent, a link abandoned. A timer
 * that fires more than HELD_UP_MS late waits HELD_UP_GRACE_MS more instead, in which those bytes
 * are read (and clear it, as they would have). On time, it fires as ever; virtual test timers,
 * which run each callback at its due time, see no difference.
 */
export function stallTolerantTimers(base: Timers): Timers {
  interface Handle {
    inner: unknown;
  }
  return {
    now: () => base.now(),
    setTimeout(fn, ms) {
      const handle: Handle = { inner: null };
      let graces = 0;
      const arm = (wait: number): void => {
        const due = base.now() + wait;
        handle.inner = base.setTimeout(() => {
          if (base.now() - due > HELD_UP_MS && graces < MAX_GRACES) {
            graces++;
            arm(HELD_UP_GRACE_MS);
          } else fn();
        }, wait);
      };
      arm(ms);
      return handle;
    },
    clearTimeout(handle) {
      if (handle !== null && typeof handle === 'object' && 'inner' in handle) base.clearTimeout((handle as Handle).inner);
    },
  };
}

/** Exponential back-off, capped: base, 2·base, 4·base … max. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
}
