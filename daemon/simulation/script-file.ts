import type { EmulatorAction } from './emulator/board-emulator.ts';
import type { TimeControl } from './emulator/tabletop.ts';
import { isPieceCode, type PieceCode } from '../../protocols/dgt/squares.ts';
import { err as fail, ok, type Result } from '../../protocols/result.ts';

/** A table set-up and what people do at it, as read from a --script file. */
export interface TableScript {
  board?: PieceCode[];
  clock?: TimeControl | null;
  actions: EmulatorAction[];
}

/** The script, with the parts that were skipped; or why the file is no script at all. */
export type ScriptFileResult = Result<{ script: TableScript; skipped: string[] }, string>;

const KINDS = new Set(['lift', 'place', 'knock', 'press', 'unplug', 'plug', 'button']);
const BUTTONS = new Set(['back', 'plus', 'run', 'minus', 'ok']);

function validAction(a: unknown): a is EmulatorAction {
  if (typeof a !== 'object' || a === null) return false;
  const o = a as Record<string, unknown>;
  if (typeof o.kind !== 'string' || !KINDS.has(o.kind) || typeof o.at !== 'number' || !Number.isFinite(o.at)) return false;
  const field = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 63;
  switch (o.kind) {
    case 'lift':
      return field(o.field);
    case 'place':
      return field(o.field) && typeof o.piece === 'number' && isPieceCode(o.piece);
    case 'knock':
      return field(o.field) && (o.onto === undefined || field(o.onto));
    case 'press':
      return o.by === 'white' || o.by === 'black';
    case 'button':
      return typeof o.button === 'string' && BUTTONS.has(o.button);
    default:
      return true;
  }
}

/**
 * Reads a script: either a JSON array of actions, or an object {board?, clock?, actions} (the
 * shape of a noisy-player script). Invalid actions are skipped and listed, not fatal.
 */
export function parseScriptFile(text: string): ScriptFileResult {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return fail(`not JSON: ${(err as Error).message}`);
  }
  const obj = Array.isArray(data) ? { actions: data } : (data as Record<string, unknown> | null);
  if (!obj || typeof obj !== 'object' || !Array.isArray(obj.actions)) return fail('expected an array of actions or an object with "actions"');
  const skipped: string[] = [];
  const actions: EmulatorAction[] = [];
  (obj.actions as unknown[]).forEach((a, i) => {
    if (validAction(a)) actions.push(a);
    else skipped.push(`action ${i}: ${JSON.stringify(a)}`);
  });
  const script: TableScript = { actions };
  if (Array.isArray(obj.board)) {
    if (obj.board.length === 64 && obj.board.every((p) => typeof p === 'number' && isPieceCode(p))) script.board = obj.board as PieceCode[];
    else skipped.push('board: not 64 piece codes, using the start position');
  }
  if (obj.clock === null) script.clock = null;
  else if (typeof obj.clock === 'object' && obj.clock !== null) {
    const c = obj.clock as Record<string, unknown>;
    if (typeof c.baseMs === 'number' && typeof c.incrementMs === 'number' && c.baseMs > 0 && c.incrementMs >= 0) script.clock = { baseMs: c.baseMs, incrementMs: c.incrementMs };
    else skipped.push('clock: needs baseMs > 0 and incrementMs >= 0');
  }
  return ok({ script, skipped });
}
