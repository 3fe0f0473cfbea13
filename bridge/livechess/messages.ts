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

export type Decoded = { ok: true; value: ClientMessage } | { ok: false; id: number | null; message: string };

export interface LiveChessClock {
  /** Remaining whole seconds. */
  white: number;
  black: number;
  /** Whose clock runs; null when stopped. */
  run: 'white' | 'black' | null;
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

export type ServerMessage =
  | { response: 'call'; id: number; param: EboardInfo[] | null }
  | { response: 'feed'; id: number; param: EboardEvent }
  | { response: 'error'; id: number | null; param: { message: string } };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export function decodeClientMessage(text: string): Decoded {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { ok: false, id: null, message: 'not JSON' };
  }
  if (!isObject(v)) return { ok: false, id: null, message: 'not a JSON object' };
  const id = isId(v.id) ? v.id : null;
  if (id === null) return { ok: false, id: null, message: 'missing integer "id"' };
  const bad = (message: string): Decoded => ({ ok: false, id, message });
  const p = v.param;
  switch (v.call) {
    case 'eboards':
      return { ok: true, value: { call: 'eboards', id } };
    case 'subscribe': {
      if (!isObject(p) || typeof p.feed !== 'string' || !isId(p.id)) return bad('subscribe needs param {feed, id, param}');
      const serialnr = isObject(p.param) ? p.param.serialnr : undefined;
      if (typeof serialnr !== 'string') return bad('subscribe needs param.param.serialnr');
      return { ok: true, value: { call: 'subscribe', id, feed: p.feed, subscription: p.id, serialnr } };
    }
    case 'unsubscribe':
      if (!isObject(p) || !isId(p.id)) return bad('unsubscribe needs param {id}');
      return { ok: true, value: { call: 'unsubscribe', id, subscription: p.id } };
    case 'call':
      if (!isObject(p) || !isId(p.id) || typeof p.method !== 'string') return bad('call needs param {id, method, param}');
      return { ok: true, value: { call: 'call', id, subscription: p.id, method: p.method, param: isObject(p.param) ? p.param : {} } };
    default:
      return bad(`unknown call ${JSON.stringify(v.call)}`);
  }
}
