import { Type } from '@sinclair/typebox';
import { validator } from '../../protocols/validation.ts';
import type { Result } from '../../protocols/result.ts';

/**
 * The LiveChess eBoard websocket API (DGT LiveChess 2, ws://localhost:1982/api/v1.0) as a real
 * client speaks it: lichess's DGT play page (lila ui/dgt/src/play.ts). Every request carries a
 * numeric `id` that the answer echoes; subscriptions carry their own id, which feed messages echo.
 */

export type BoardState = 'ACTIVE' | 'INACTIVE' | 'NOTRESPONDING' | 'DELAYED';

export type ClientMessage =
  | { call: 'eboards'; id: number }
  | { call: 'subscribe'; id: number; feed: string; subscription: number; serialnr: string }
  | { call: 'unsubscribe'; id: number; subscription: number }
  | { call: 'call'; id: number; subscription: number; method: string; param: Record<string, unknown> };

/** A decoded call, or the error to answer with (echoing the call's id when it had one). */
export type Decoded = Result<ClientMessage, { id: number | null; message: string }>;

export interface LiveChessClock {
  /** Remaining whole seconds. */
  white: number;
  black: number;
  /** Whose clock runs, as DGT's interface has it: true White's, false Black's, null stopped (a finished game's clock is stopped). */
  run: boolean | null;
  /** Epoch ms of the reading (clients extrapolate the running side from it). */
  time: number;
}

export interface EboardInfo {
  serialnr: string;
  source: string;
  state: BoardState;
  battery: null;
  comment: string | null;
  board: string;
  flipped: boolean;
  clock: LiveChessClock | null;
}

export interface EboardEvent {
  serialnr: string;
  flipped: boolean;
  board: string;
  clock: LiveChessClock | null;
  san: string[];
}

/** What the server sends (each goes out with `time`, the epoch ms it was sent, as LiveChess's do). */
export type ServerMessage =
  { response: 'call'; id: number; param: EboardInfo[] | null } | { response: 'feed'; id: number; param: EboardEvent } | { response: 'error'; id: number | null; param: { message: string } };

const Id = Type.Integer({ 'x-message': 'must be an integer' });

/** The calls as they arrive on the wire, one schema each (the `call` field picks it). */
const WIRE_CALLS = {
  eboards: Type.Object({ call: Type.Literal('eboards'), id: Id }),
  subscribe: Type.Object({
    call: Type.Literal('subscribe'),
    id: Id,
    param: Type.Object({ feed: Type.String(), id: Id, param: Type.Object({ serialnr: Type.String() }) }, { 'x-message': 'must be {feed, id, param: {serialnr}}' }),
  }),
  unsubscribe: Type.Object({ call: Type.Literal('unsubscribe'), id: Id, param: Type.Object({ id: Id }, { 'x-message': 'must be {id}' }) }),
  call: Type.Object({
    call: Type.Literal('call'),
    id: Id,
    param: Type.Object({ id: Id, method: Type.String(), param: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }, { 'x-message': 'must be {id, method, param}' }),
  }),
};
const checkCall = {
  eboards: validator(WIRE_CALLS.eboards, 'the call'),
  subscribe: validator(WIRE_CALLS.subscribe, 'the call'),
  unsubscribe: validator(WIRE_CALLS.unsubscribe, 'the call'),
  call: validator(WIRE_CALLS.call, 'the call'),
};

export function decodeClientMessage(text: string): Decoded {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { ok: false, error: { id: null, message: 'not JSON' } };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { ok: false, error: { id: null, message: 'not a JSON object' } };
  const raw = v as Record<string, unknown>;
  const id = typeof raw.id === 'number' && Number.isInteger(raw.id) ? raw.id : null;
  if (id === null) return { ok: false, error: { id: null, message: 'missing integer "id"' } };
  const bad = (message: string): Decoded => ({ ok: false, error: { id, message } });
  const call = raw.call;
  if (typeof call !== 'string' || !Object.hasOwn(WIRE_CALLS, call)) return bad(`unknown call ${JSON.stringify(call)}`);
  switch (call as keyof typeof WIRE_CALLS) {
    case 'eboards': {
      const c = checkCall.eboards(raw);
      return c.ok ? { ok: true, value: { call: 'eboards', id } } : bad(c.error);
    }
    case 'subscribe': {
      const c = checkCall.subscribe(raw);
      if (!c.ok) return bad(`subscribe: ${c.error}`);
      const p = c.value.param;
      return { ok: true, value: { call: 'subscribe', id, feed: p.feed, subscription: p.id, serialnr: p.param.serialnr } };
    }
    case 'unsubscribe': {
      const c = checkCall.unsubscribe(raw);
      return c.ok ? { ok: true, value: { call: 'unsubscribe', id, subscription: c.value.param.id } } : bad(`unsubscribe: ${c.error}`);
    }
    case 'call': {
      const c = checkCall.call(raw);
      if (!c.ok) return bad(`call: ${c.error}`);
      const p = c.value.param;
      return { ok: true, value: { call: 'call', id, subscription: p.id, method: p.method, param: p.param ?? {} } };
    }
  }
}
