import { Type, type Static } from '@sinclair/typebox';
import type { Result } from '../result.ts';
import { validator } from '../validation.ts';
import { FEED_VERSION, type Decoded } from './messages.ts';

// The feed's client messages as the server checks them: one TypeBox schema per message, the types
// derived from them. Kept apart from messages.ts so a client bundle does not carry the validator.

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
