import type { LiveSource } from '../../protocols/feed/model.ts';
import { roundPgn } from './round-pgn.ts';

/**
 * Pushes round PGN to a broadcast platform instead of waiting to be polled. The shape follows
 * lichess's broadcast API: `POST {baseUrl}/api/broadcast/round/{roundId}/push`, body the round's
 * PGN as text/plain, `Authorization: Bearer <token>` (scope study:write); the answer is
 * `{"games":[{"tags":{…},"moves":n} | {"tags":{…},"error":"…"}]}`, one entry per game pushed.
 *
 * Changes are coalesced: the first change after a push starts a `debounceMs` window and everything
 * arriving in it goes out in one request (a move and its clock press are one push, and a busy hall
 * cannot starve the window). What a failure costs the platform is kept small:
 * - 429: lichess asks a client to wait a full minute; the client waits what `Retry-After` says,
 *   `rateLimitMs` (60 s) without it, and sends nothing to that round meanwhile.
 * - 401/403 (a bad or revoked token, not a contributor): nothing more is sent to that round until
 *   the daemon restarts with a new config or `authRetryMs` (30 min) has passed; reported once.
 * - 5xx and network failures: retried with exponential back-off.
 * - other 4xx (unknown round, a PGN it refuses): reported, sent again on the next change.
 * Nothing is thrown: every outcome is a `PushReport`, and `state()` says where each target stands.
 */

export interface RoundTarget {
  /** boardcast round number. */
  round: number;
  /** The platform's round id (lichess: 8 characters). */
  roundId: string;
}

export interface RelayPushOptions {
  source: LiveSource;
  /** Each target gets its round's PGN; one round may go to several platform rounds. */
  rounds: RoundTarget[];
  token: string;
  /** Default https://lichess.org; tests point it at a local server. */
  baseUrl?: string;
  /** Default 1000 ms. */
  debounceMs?: number;
  /** First retry delay and cap after 5xx/network failures, doubling per consecutive failure. Default 1 s … 60 s. */
  backoff?: { initialMs: number; maxMs: number };
  /** Wait after a 429 without a usable Retry-After. Default 60 s (lichess: "wait a full minute"). */
  rateLimitMs?: number;
  /** Silence after a 401/403 before the token is tried again. Default 30 min. */
  authRetryMs?: number;
  /** Per-request timeout, default 15 s. */
  timeoutMs?: number;
  /** Wall clock for `state()` (epoch ms); injectable for tests. */
  now?: () => number;
  onReport?: (r: PushReport) => void;
}

export type PushGameResult = { tags: Record<string, string>; moves: number } | { tags: Record<string, string>; error: string };

export type PushReport =
  | { kind: 'pushed'; round: number; roundId: string; status: number; games: PushGameResult[]; gameErrors: number }
  | { kind: 'retrying'; round: number; roundId: string; status: number | null; message: string; attempt: number; inMs: number }
  /** 401/403: nothing is sent to the round for `inMs` (or until a restart with a new token). */
  | { kind: 'unauthorized'; round: number; roundId: string; status: number; message: string; inMs: number }
  | { kind: 'rejected'; round: number; roundId: string; status: number; message: string };

/** Where one push target stands, for /health. Times are epoch ms. */
export interface PushTargetState {
  round: number;
  roundId: string;
  /** ok: the last push was accepted (or nothing was pushed yet); the others name the last failure. */
  state: 'ok' | 'retrying' | 'unauthorized' | 'rejected';
  lastPushAt: number | null;
  /** Games the platform reported an error for in the last accepted push. */
  lastGameErrors: number;
  lastError: { at: number; status: number | null; message: string } | null;
  /** When the next attempt is due while retrying or unauthorized, else null. */
  nextRetryAt: number | null;
  pushes: number;
}

export interface RelayPush {
  /** Pushes every target with unpushed changes now and resolves when nothing is in flight (targets waiting out a failure keep their schedule). */
  flush(): Promise<void>;
  /** Stops listening and cancels pending pushes and retries. */
  stop(): void;
  readonly reports: readonly PushReport[];
  state(): PushTargetState[];
}

interface Target {
  target: RoundTarget;
  lastPushed: string | null;
  timer: NodeJS.Timeout | null;
  inFlight: Promise<void> | null;
  /** A change arrived while a request was in flight or while waiting out a failure. */
  dirty: boolean;
  /** Consecutive 5xx/network failures (the back-off exponent). */
  failures: number;
  /** Until when nothing may be sent (429 or 401/403), else null. */
  holdUntil: number | null;
  view: PushTargetState;
}

export function pushEndpoint(baseUrl: string, roundId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/api/broadcast/round/${encodeURIComponent(roundId)}/push`;
}

/** How long a 429 asks to wait: Retry-After in seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const v = header.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** A Retry-After beyond this is taken as this: a round is never silenced for longer by one answer. */
const MAX_RETRY_AFTER_MS = 60 * 60_000;

export function startRelayPush(opts: RelayPushOptions): RelayPush {
  const baseUrl = opts.baseUrl ?? 'https://lichess.org';
  const debounceMs = opts.debounceMs ?? 1000;
  const backoff = opts.backoff ?? { initialMs: 1000, maxMs: 60_000 };
  const rateLimitMs = opts.rateLimitMs ?? 60_000;
  const authRetryMs = opts.authRetryMs ?? 30 * 60_000;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const now = opts.now ?? Date.now;
  const reports: PushReport[] = [];
  let stopped = false;
  const targets: Target[] = opts.rounds.map((target) => ({
    target,
    lastPushed: null,
    timer: null,
    inFlight: null,
    dirty: false,
    failures: 0,
    holdUntil: null,
    view: { round: target.round, roundId: target.roundId, state: 'ok', lastPushAt: null, lastGameErrors: 0, lastError: null, nextRetryAt: null, pushes: 0 },
  }));

  const report = (r: PushReport): void => {
    reports.push(r);
    try {
      opts.onReport?.(r);
    } catch {
      // A failing observer must not stop the pushes.
    }
  };

  const schedule = (t: Target, inMs: number): void => {
    if (stopped || t.timer) return;
    t.timer = setTimeout(() => {
      t.timer = null;
      t.holdUntil = null;
      void push(t);
    }, inMs);
  };

  /** Waits `inMs` before anything more is sent to the target (replacing a pending debounce). */
  const hold = (t: Target, inMs: number): void => {
    if (t.timer) clearTimeout(t.timer);
    t.timer = null;
    t.holdUntil = now() + inMs;
    t.view.nextRetryAt = t.holdUntil;
    schedule(t, inMs);
  };

  const push = (t: Target): Promise<void> => {
    if (stopped || t.holdUntil !== null) return Promise.resolve();
    if (t.inFlight) {
      t.dirty = true;
      return t.inFlight;
    }
    const pgn = roundPgn(opts.source, t.target.round);
    // An empty round has nothing to push (lichess answers an empty body with an error).
    if (pgn === undefined || pgn === '' || pgn === t.lastPushed) return Promise.resolve();
    t.dirty = false;
    t.inFlight = send(t, pgn).finally(() => {
      t.inFlight = null;
      if (t.dirty && !t.timer) schedule(t, debounceMs);
    });
    return t.inFlight;
  };

  const failed = (t: Target, state: PushTargetState['state'], status: number | null, message: string): void => {
    t.view.state = state;
    t.view.lastError = { at: now(), status, message };
    t.view.nextRetryAt = null;
  };

  const send = async (t: Target, pgn: string): Promise<void> => {
    const { round, roundId } = t.target;
    let status: number | null = null;
    let message: string;
    try {
      const res = await fetch(pushEndpoint(baseUrl, roundId), {
        method: 'POST',
        headers: { Authorization: `Bearer ${opts.token}`, 'Content-Type': 'text/plain; charset=utf-8' },
        body: pgn,
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = res.status;
      const text = await res.text();
      if (res.ok) {
        t.lastPushed = pgn;
        t.failures = 0;
        const games = parseGames(text);
        const gameErrors = games.filter((g) => 'error' in g).length;
        Object.assign(t.view, { state: 'ok', lastPushAt: now(), lastGameErrors: gameErrors, nextRetryAt: null, pushes: t.view.pushes + 1 });
        report({ kind: 'pushed', round, roundId, status, games, gameErrors });
        return;
      }
      message = errorText(text) ?? `HTTP ${status}`;
      if (status === 429) {
        const asked = retryAfterMs(res.headers.get('Retry-After'), now());
        const inMs = Math.min(MAX_RETRY_AFTER_MS, asked ?? rateLimitMs);
        failed(t, 'retrying', status, message);
        report({ kind: 'retrying', round, roundId, status, message, attempt: t.failures + 1, inMs });
        t.dirty = true;
        hold(t, inMs);
        return;
      }
      if (status === 401 || status === 403) {
        failed(t, 'unauthorized', status, message);
        report({ kind: 'unauthorized', round, roundId, status, message, inMs: authRetryMs });
        hold(t, authRetryMs);
        return;
      }
      if (status < 500) {
        failed(t, 'rejected', status, message);
        report({ kind: 'rejected', round, roundId, status, message });
        return;
      }
    } catch (e) {
      message = e instanceof Error ? e.message : String(e);
    }
    t.failures++;
    const inMs = Math.min(backoff.maxMs, backoff.initialMs * 2 ** (t.failures - 1));
    failed(t, 'retrying', status, message);
    report({ kind: 'retrying', round, roundId, status, message, attempt: t.failures, inMs });
    hold(t, inMs);
  };

  const roundOf = (gameId: string, summaryRound?: number): number | undefined => summaryRound ?? opts.source.game(gameId)?.round;

  const unsubscribe = opts.source.subscribe((c) => {
    // Incidents are arbiter-only and never reach a public PGN. A clock reading alone (about once a
    // second per table) changes only the WhiteClock/BlackClock tags: it rides along with the next
    // push a move or a result makes, instead of pushing the round every second (lichess's rate limit).
    if (c.kind === 'incident' || c.kind === 'clock') return;
    const round = roundOf(c.gameId, c.kind === 'game' ? c.summary.round : undefined);
    for (const t of targets) {
      if (t.target.round !== round) continue;
      // While waiting out a failure the change goes with the retry, not before it.
      if (t.inFlight || t.holdUntil !== null) t.dirty = true;
      else schedule(t, debounceMs);
    }
  });

  // The platform gets the current state at once, not only after the next move.
  for (const t of targets) schedule(t, 0);

  return {
    reports,
    state: () => targets.map((t) => ({ ...t.view, lastError: t.view.lastError && { ...t.view.lastError } })),
    async flush() {
      await Promise.all(
        targets.map(async (t) => {
          while (t.inFlight) await t.inFlight;
          // A target waiting out a failure keeps its schedule: flushing must not hammer the platform.
          if (t.holdUntil !== null) return;
          if (t.timer) clearTimeout(t.timer);
          t.timer = null;
          await push(t);
        }),
      );
    },
    stop() {
      stopped = true;
      unsubscribe();
      for (const t of targets) if (t.timer) clearTimeout(t.timer);
    },
  };
}

function parseGames(text: string): PushGameResult[] {
  try {
    const v = JSON.parse(text) as { games?: unknown };
    return Array.isArray(v.games) ? (v.games as PushGameResult[]) : [];
  } catch {
    return [];
  }
}

function errorText(text: string): string | undefined {
  try {
    const v = JSON.parse(text) as { error?: unknown };
    if (typeof v.error === 'string') return v.error;
  } catch {
    // not JSON: use the text itself
  }
  const t = text.trim();
  return t ? t.slice(0, 200) : undefined;
}
