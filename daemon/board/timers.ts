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

/** Exponential back-off, capped: base, 2·base, 4·base … max. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
}
