import { Type, type Static } from '@sinclair/typebox';
import type { Result } from '../result.ts';
import { validator } from '../validation.ts';
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

/** What a client can follow: the whole tournament, one round, or one game. */
const ScopeSchema = Type.Union(
  [
    Type.Object({ kind: Type.Literal('tournament') }),
    Type.Object({ kind: Type.Literal('round'), round: Type.Integer({ minimum: 1 }) }),
    Type.Object({ kind: Type.Literal('game'), gameId: Type.String({ minLength: 1, maxLength: 200 }) }),
  ],
  { 'x-message': 'must be {"kind":"tournament"}, {"kind":"round","round":<positive integer>} or {"kind":"game","gameId":"<id>"}' },
);
export type Scope = Static<typeof ScopeSchema>;

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
const ResumePointSchema = Type.Object({ epoch: Type.String({ maxLength: 200 }), seq: Type.Integer({ minimum: 0 }) }, { 'x-message': 'must be {epoch: string, seq: non-negative integer}' });
export type ResumePoint = Static<typeof ResumePointSchema>;

const V = Type.Literal(FEED_VERSION);

/** The client's messages, one schema each (the envelope's `type` picks it): the types below come from them. */
const CLIENT_MESSAGES = {
  /** Become an arbiter client (sees incidents) for subscriptions made after this. */
  auth: Type.Object({ v: V, type: Type.Literal('auth'), token: Type.String({ maxLength: 1000 }) }),
  subscribe: Type.Object({ v: V, type: Type.Literal('subscribe'), scope: ScopeSchema, since: Type.Optional(ResumePointSchema) }),
  unsubscribe: Type.Object({ v: V, type: Type.Literal('unsubscribe'), scope: ScopeSchema }),
  ping: Type.Object({ v: V, type: Type.Literal('ping'), t: Type.Optional(Type.Number()) }),
};

export type ClientMessage = { [K in keyof typeof CLIENT_MESSAGES]: Static<(typeof CLIENT_MESSAGES)[K]> }[keyof typeof CLIENT_MESSAGES];

const checkClient = Object.fromEntries(Object.entries(CLIENT_MESSAGES).map(([type, schema]) => [type, validator(schema, 'the message')])) as {
  [K in keyof typeof CLIENT_MESSAGES]: (data: unknown) => Result<Static<(typeof CLIENT_MESSAGES)[K]>, string>;
};

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

/** Validates one client frame. Never throws: bad input is a value with a message for the client. */
export function decodeClientMessage(text: string): Decoded<ClientMessage> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: { code: 'bad-json', message: `not JSON: ${(e as Error).message}` } };
  }
  if (!isObj(raw)) return { ok: false, error: { code: 'bad-message', message: 'a message must be a JSON object' } };
  if (raw.v !== FEED_VERSION) {
    return { ok: false, error: { code: 'unsupported-version', message: `unsupported protocol version ${JSON.stringify(raw.v)}; this server speaks v${FEED_VERSION}` } };
  }
  const type = raw.type;
  if (typeof type !== 'string' || !Object.hasOwn(CLIENT_MESSAGES, type)) return { ok: false, error: { code: 'bad-message', message: `unknown message type ${JSON.stringify(type)}` } };
  const checked: Result<ClientMessage, string> = checkClient[type as keyof typeof CLIENT_MESSAGES](raw);
  return checked.ok ? { ok: true, value: checked.value } : { ok: false, error: { code: 'bad-message', message: checked.error } };
}

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
