import type { Result } from '../result.ts';
import type { ClientMessage, ResumePoint, Scope } from './client-messages.ts';
import type { GameChange, GameState, GameSummary, RoundInfo, TournamentInfo } from './model.ts';

/**
 * The websocket feed, version 1 (docs/api.md). One JSON object per text frame, every message
 * carries `v: 1`. The client subscribes to scopes; for each scope the server sends a snapshot
 * stamped with the scope's sequence number, then deltas numbered seq+1, seq+2, … A reconnecting
 * client resumes with `since: {epoch, seq}` and gets exactly the deltas it missed, or a fresh
 * snapshot when they are no longer kept.
 */
export const FEED_VERSION = 1;
export const FEED_PATH = '/ws';

// What clients send is checked against schemas (client-messages.ts, for the server); its types are
// re-exported here so a client (the viewer) reads them without loading the validator.
export type { ClientMessage, ResumePoint, Scope };

/** Canonical text form of a scope, also the `scope` field of server messages: "tournament", "round:3", "game:<id>". */
export function scopeKey(s: Scope): string {
  switch (s.kind) {
    case 'tournament':
      return 'tournament';
    case 'round':
      return `round:${s.round}`;
    case 'game':
      return `game:${s.gameId}`;
  }
}

export type Role = 'public' | 'arbiter';

/** Snapshot payload: tournament/round scopes list summaries, a game scope carries the whole game. */
export type SnapshotBody =
  | { kind: 'tournament'; tournament: TournamentInfo; rounds: RoundInfo[]; games: GameSummary[] }
  | { kind: 'round'; tournament: TournamentInfo; round: RoundInfo; games: GameSummary[] }
  | { kind: 'game'; game: GameState };

export type SnapshotReason = 'subscribe' | 'resume-too-old' | 'resume-other-epoch' | 'resync';

export type ErrorCode = 'bad-json' | 'bad-message' | 'unsupported-version' | 'unknown-scope' | 'rate-limited' | 'bad-token' | 'too-many-subscriptions';

export type ServerMessage =
  | { v: 1; type: 'welcome'; role: Role; serverNow: number; maxPayload: number }
  | { v: 1; type: 'authed'; role: Role }
  | {
      v: 1;
      type: 'snapshot';
      scope: string;
      epoch: string;
      seq: number;
      serverNow: number;
      /**
       * Why a snapshot rather than deltas: first subscribe; the missed deltas are no longer kept;
       * the resume point is from another server run; or the client fell behind (flow control).
       */
      reason: SnapshotReason;
      body: SnapshotBody;
    }
  /** Resume accepted: deltas from `seq + 1` follow (possibly none). */
  | { v: 1; type: 'resumed'; scope: string; epoch: string; seq: number; serverNow: number }
  | { v: 1; type: 'delta'; scope: string; seq: number; serverNow: number; change: GameChange }
  | { v: 1; type: 'unsubscribed'; scope: string }
  | { v: 1; type: 'pong'; t?: number; serverNow: number }
  | { v: 1; type: 'error'; code: ErrorCode; message: string; scope?: string };

export function encode(msg: ServerMessage | ClientMessage): string {
  return JSON.stringify(msg);
}

/** A decoded frame, or the error to answer with. */
export type Decoded<T> = Result<T, { code: ErrorCode; message: string }>;

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Client side: parses a server frame, checking only the envelope (the server is trusted for bodies). */
export function decodeServerMessage(text: string): Decoded<ServerMessage> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: { code: 'bad-json', message: `not JSON: ${(e as Error).message}` } };
  }
  if (!isObj(raw) || raw.v !== FEED_VERSION || typeof raw.type !== 'string') {
    return { ok: false, error: { code: 'bad-message', message: 'not a v1 server message' } };
  }
  return { ok: true, value: raw as unknown as ServerMessage };
}
