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
 * cannot starve the window). Server errors (5xx, 429) and network failures are retried with
 * exponential back-off; other 4xx (bad token, unknown round) are reported and wait for the next
 * change. Nothing is thrown: every outcome is a `PushReport`.
 */

export interface RoundTarget {
  /** boardcast round number. */
  round: number;
  /** The platform's round id (lichess: 8 characters). */
  roundId: string;
}

export interface RelayPushOptions {
  source: LiveSource;
  rounds: RoundTarget[];
  token: string;
  /** Default https://lichess.org; tests point it at a local server. */
  baseUrl?: string;
  /** Default 1000 ms. */
  debounceMs?: number;
  /** First retry delay and cap, doubling per consecutive failure. Default 1 s … 60 s. */
  backoff?: { initialMs: number; maxMs: number };
  /** Per-request timeout, default 15 s. */
  timeoutMs?: number;
  onReport?: (r: PushReport) => void;
}

export type PushGameResult = { tags: Record<string, string>; moves: number } | { tags: Record<string, string>; error: string };

export type PushReport =
  | { kind: 'pushed'; round: number; roundId: string; status: number; games: PushGameResult[]; gameErrors: number }
  | { kind: 'retrying'; round: number; roundId: string; status: number | null; message: string; attempt: number; inMs: number }
  | { kind: 'rejected'; round: number; roundId: string; status: number; message: string };

export interface RelayPush {
  /** Pushes every round with unpushed changes now and resolves when nothing is in flight. */
  flush(): Promise<void>;
  /** Stops listening and cancels pending pushes and retries. */
  stop(): void;
  readonly reports: readonly PushReport[];
}

interface RoundState {
  target: RoundTarget;
  lastPushed: string | null;
  timer: NodeJS.Timeout | null;
  inFlight: Promise<void> | null;
  /** A change arrived while a request was in flight. */
  dirty: boolean;
  failures: number;
}

export function pushEndpoint(baseUrl: string, roundId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/api/broadcast/round/${encodeURIComponent(roundId)}/push`;
}

export function startRelayPush(opts: RelayPushOptions): RelayPush {
  const baseUrl = opts.baseUrl ?? 'https://lichess.org';
  const debounceMs = opts.debounceMs ?? 1000;
  const backoff = opts.backoff ?? { initialMs: 1000, maxMs: 60_000 };
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const reports: PushReport[] = [];
  const states = new Map<number, RoundState>();
  let stopped = false;
  for (const target of opts.rounds) {
    states.set(target.round, { target, lastPushed: null, timer: null, inFlight: null, dirty: false, failures: 0 });
  }

  const report = (r: PushReport): void => {
    reports.push(r);
    try {
      opts.onReport?.(r);
    } catch {
      // A failing observer must not stop the pushes.
    }
  };

  const schedule = (s: RoundState, inMs: number): void => {
    if (stopped || s.timer) return;
    s.timer = setTimeout(() => {
      s.timer = null;
      void push(s);
    }, inMs);
  };

  const push = (s: RoundState): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (s.inFlight) {
      s.dirty = true;
      return s.inFlight;
    }
    const pgn = roundPgn(opts.source, s.target.round);
    // An empty round has nothing to push (lichess answers an empty body with an error).
    if (pgn === undefined || pgn === '' || pgn === s.lastPushed) return Promise.resolve();
    s.dirty = false;
    s.inFlight = send(s, pgn).finally(() => {
      s.inFlight = null;
      if (s.dirty && !s.timer) schedule(s, debounceMs);
    });
    return s.inFlight;
  };

  const send = async (s: RoundState, pgn: string): Promise<void> => {
    const { round, roundId } = s.target;
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
        s.lastPushed = pgn;
        s.failures = 0;
        const games = parseGames(text);
        report({ kind: 'pushed', round, roundId, status, games, gameErrors: games.filter((g) => 'error' in g).length });
        return;
      }
      message = errorText(text) ?? `HTTP ${status}`;
      if (status < 500 && status !== 429) {
        report({ kind: 'rejected', round, roundId, status, message });
        return;
      }
    } catch (e) {
      message = e instanceof Error ? e.message : String(e);
    }
    s.failures++;
    const inMs = Math.min(backoff.maxMs, backoff.initialMs * 2 ** (s.failures - 1));
    report({ kind: 'retrying', round, roundId, status, message, attempt: s.failures, inMs });
    if (s.timer) clearTimeout(s.timer);
    s.timer = null;
    schedule(s, inMs);
  };

  const roundOf = (gameId: string, summaryRound?: number): number | undefined => summaryRound ?? opts.source.game(gameId)?.round;

  const unsubscribe = opts.source.subscribe((c) => {
    // Incidents are arbiter-only and never reach a public PGN.
    if (c.kind === 'incident') return;
    const round = roundOf(c.gameId, c.kind === 'game' ? c.summary.round : undefined);
    const s = round === undefined ? undefined : states.get(round);
    if (!s) return;
    if (s.inFlight) s.dirty = true;
    else schedule(s, debounceMs);
  });

  // The platform gets the current state at once, not only after the next move.
  for (const s of states.values()) schedule(s, 0);

  return {
    reports,
    async flush() {
      await Promise.all(
        [...states.values()].map(async (s) => {
          while (s.inFlight) await s.inFlight;
          // A round in back-off keeps its retry schedule: flushing must not hammer a failing server.
          if (s.failures > 0) return;
          if (s.timer) clearTimeout(s.timer);
          s.timer = null;
          await push(s);
        }),
      );
    },
    stop() {
      stopped = true;
      unsubscribe();
      for (const s of states.values()) if (s.timer) clearTimeout(s.timer);
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
