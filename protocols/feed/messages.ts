import type {
  GameChange,
  GameState,
  GameSummary,
  RoundInfo,
  TournamentInfo,
} from './model.ts';

/**
 * The websocket feed, version 1 (docs/api.md). One JSON object per text frame, every message
 * carries `v: 1`. The client subscribes to scopes; for each scope the server sends a snapshot
 * stamped with the scope's sequence number, then deltas numbered seq+1, seq+2, … A reconnecting
 * client resumes with `since: {epoch, seq}` and gets exactly the deltas it missed, or a fresh
 * snapshot when they are no longer kept.
 */
export const FEED_VERSION = 1;
export const FEED_PATH = '/ws';

/** What a client can follow: the whole tournament, one round, or one game. */
export type Scope =
  | { kind: 'tournament' }
  | { kind: 'round'; round: number }
  | { kind: 'game'; gameId: string };

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

/** Where a client left off in a scope's stream: `epoch` changes when the server restarts. */
export interface ResumePoint {
  epoch: string;
  seq: number;
}

export type ClientMessage =
  /** Become an arbiter client (sees incidents) for subscriptions made after this. */
  | { v: 1; type: 'auth'; token: string }
  | { v: 1; type: 'subscribe'; scope: Scope; since?: ResumePoint }
  | { v: 1; type: 'unsubscribe'; scope: Scope }
  | { v: 1; type: 'ping'; t?: number };

export type Role = 'public' | 'arbiter';

/** Snapshot payload: tournament/round scopes list summaries, a game scope carries the whole game. */
export type SnapshotBody =
  | { kind: 'tournament'; tournament: TournamentInfo; rounds: RoundInfo[]; games: GameSummary[] }
  | { kind: 'round'; tournament: TournamentInfo; round: RoundInfo; games: GameSummary[] }
  | { kind: 'game'; game: GameState };

export type SnapshotReason = 'subscribe' | 'resume-too-old' | 'resume-other-epoch' | 'resync';

export type ErrorCode =
  | 'bad-json'
  | 'bad-message'
  | 'unsupported-version'
  | 'unknown-scope'
  | 'rate-limited'
  | 'bad-token'
  | 'too-many-subscriptions';

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

export type Decoded<T> = { ok: true; value: T } | { ok: false; code: ErrorCode; message: string };

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function parseScope(x: unknown): Scope | string {
  if (!isObj(x)) return 'scope must be an object';
  switch (x.kind) {
    case 'tournament':
      return { kind: 'tournament' };
    case 'round':
      return Number.isInteger(x.round) && (x.round as number) >= 1
        ? { kind: 'round', round: x.round as number }
        : 'scope.round must be a positive integer';
    case 'game':
      return typeof x.gameId === 'string' && x.gameId.length > 0 && x.gameId.length <= 200
        ? { kind: 'game', gameId: x.gameId }
        : 'scope.gameId must be a non-empty string';
    default:
      return 'scope.kind must be "tournament", "round" or "game"';
  }
}

/** Validates one client frame. Never throws: bad input is a value with a message for the client. */
export function decodeClientMessage(text: string): Decoded<ClientMessage> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, code: 'bad-json', message: `not JSON: ${(e as Error).message}` };
  }
  if (!isObj(raw)) return { ok: false, code: 'bad-message', message: 'a message must be a JSON object' };
  if (raw.v !== FEED_VERSION) {
    return { ok: false, code: 'unsupported-version', message: `unsupported protocol version ${JSON.stringify(raw.v)}; this server speaks v${FEED_VERSION}` };
  }
  const bad = (message: string): Decoded<ClientMessage> => ({ ok: false, code: 'bad-message', message });
  switch (raw.type) {
    case 'auth':
      return typeof raw.token === 'string' && raw.token.length <= 1000
        ? { ok: true, value: { v: 1, type: 'auth', token: raw.token } }
        : bad('auth.token must be a string');
    case 'subscribe':
    case 'unsubscribe': {
      const scope = parseScope(raw.scope);
      if (typeof scope === 'string') return bad(scope);
      if (raw.type === 'unsubscribe') return { ok: true, value: { v: 1, type: 'unsubscribe', scope } };
      if (raw.since === undefined) return { ok: true, value: { v: 1, type: 'subscribe', scope } };
      const s = raw.since;
      if (!isObj(s) || typeof s.epoch !== 'string' || !Number.isInteger(s.seq) || (s.seq as number) < 0) {
        return bad('since must be {epoch: string, seq: non-negative integer}');
      }
      return { ok: true, value: { v: 1, type: 'subscribe', scope, since: { epoch: s.epoch, seq: s.seq as number } } };
    }
    case 'ping':
      return { ok: true, value: typeof raw.t === 'number' ? { v: 1, type: 'ping', t: raw.t } : { v: 1, type: 'ping' } };
    default:
      return bad(`unknown message type ${JSON.stringify(raw.type)}`);
  }
}

/** Client side: parses a server frame, checking only the envelope (the server is trusted for bodies). */
export function decodeServerMessage(text: string): Decoded<ServerMessage> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, code: 'bad-json', message: `not JSON: ${(e as Error).message}` };
  }
  if (!isObj(raw) || raw.v !== FEED_VERSION || typeof raw.type !== 'string') {
    return { ok: false, code: 'bad-message', message: 'not a v1 server message' };
  }
  return { ok: true, value: raw as unknown as ServerMessage };
}
