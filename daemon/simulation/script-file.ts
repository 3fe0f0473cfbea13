import type { EmulatorAction } from './emulator/board-emulator.ts';
import type { TimeControl } from './emulator/tabletop.ts';
import { isPieceCode, type PieceCode } from '../../protocols/dgt/squares.ts';
import { err as fail, ok, type Result } from '../../protocols/result.ts';
import { validator } from '../../protocols/validation.ts';
import { Type } from '@sinclair/typebox';

/** A table set-up and what people do at it, as read from a --script file. */
export interface TableScript {
  board?: PieceCode[];
  clock?: TimeControl | null;
  actions: EmulatorAction[];
}

/** The script, with the parts that were skipped; or why the file is no script at all. */
export type ScriptFileResult = Result<{ script: TableScript; skipped: string[] }, string>;

const At = Type.Number();
const Field = Type.Integer({ minimum: 0, maximum: 63 });

/** One action of a script file, a schema per kind (the `kind` field picks it). */
const ACTIONS = {
  lift: Type.Object({ kind: Type.Literal('lift'), at: At, field: Field }),
  place: Type.Object({ kind: Type.Literal('place'), at: At, field: Field, piece: Type.Integer({ minimum: 0, maximum: 15 }) }),
  knock: Type.Object({ kind: Type.Literal('knock'), at: At, field: Field, onto: Type.Optional(Field) }),
  press: Type.Object({ kind: Type.Literal('press'), at: At, by: Type.Union([Type.Literal('white'), Type.Literal('black')]) }),
  'clock-adjust': Type.Object({ kind: Type.Literal('clock-adjust'), at: At, by: Type.Union([Type.Literal('white'), Type.Literal('black')]), ms: Type.Number() }),
  unplug: Type.Object({ kind: Type.Literal('unplug'), at: At }),
  plug: Type.Object({ kind: Type.Literal('plug'), at: At }),
  'link-down': Type.Object({ kind: Type.Literal('link-down'), at: At }),
  'link-up': Type.Object({ kind: Type.Literal('link-up'), at: At }),
  'power-off': Type.Object({ kind: Type.Literal('power-off'), at: At }),
  'power-on': Type.Object({ kind: Type.Literal('power-on'), at: At }),
  'clock-cable-out': Type.Object({ kind: Type.Literal('clock-cable-out'), at: At }),
  'clock-cable-in': Type.Object({ kind: Type.Literal('clock-cable-in'), at: At }),
  button: Type.Object({ kind: Type.Literal('button'), at: At, button: Type.Union(['back', 'plus', 'run', 'minus', 'ok'].map((b) => Type.Literal(b))) }),
};
const checkAction = Object.fromEntries(Object.entries(ACTIONS).map(([k, schema]) => [k, validator(schema, 'the action')])) as Record<keyof typeof ACTIONS, (a: unknown) => Result<unknown, string>>;

/** A script file's own shape: an action array, or {board?, clock?, actions}. */
const checkFile = validator(
  Type.Object({
    board: Type.Optional(Type.Unknown()),
    clock: Type.Optional(Type.Unknown()),
    actions: Type.Array(Type.Unknown()),
  }),
  'the script',
);
const checkBoard = validator(Type.Array(Type.Integer({ minimum: 0, maximum: 15 }), { minItems: 64, maxItems: 64 }));
const checkClock = validator(Type.Object({ baseMs: Type.Number({ exclusiveMinimum: 0 }), incrementMs: Type.Number({ minimum: 0 }) }));

/** An action the emulator can perform, or why it is skipped. */
function readAction(a: unknown): Result<EmulatorAction, string> {
  const kind = typeof a === 'object' && a !== null ? (a as { kind?: unknown }).kind : undefined;
  if (typeof kind !== 'string' || !Object.hasOwn(ACTIONS, kind)) return fail(`unknown kind ${JSON.stringify(kind ?? null)}`);
  const checked = checkAction[kind as keyof typeof ACTIONS](a);
  // The schemas above are the emulator's actions, field by field (piece codes 0–15 are DGT's).
  return checked.ok ? ok(checked.value as EmulatorAction) : checked;
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
  const file = checkFile(Array.isArray(data) ? { actions: data } : data);
  if (!file.ok) return fail('expected an array of actions or an object with "actions"');
  const obj = file.value;
  const skipped: string[] = [];
  const actions: EmulatorAction[] = [];
  obj.actions.forEach((a, i) => {
    const r = readAction(a);
    if (r.ok) actions.push(r.value);
    else skipped.push(`action ${i}: ${JSON.stringify(a)}`);
  });
  const script: TableScript = { actions };
  if (obj.board !== undefined) {
    const board = checkBoard(obj.board);
    if (board.ok && board.value.every(isPieceCode)) script.board = board.value as PieceCode[];
    else skipped.push('board: not 64 piece codes, using the start position');
  }
  if (obj.clock === null) script.clock = null;
  else if (obj.clock !== undefined) {
    const clock = checkClock(obj.clock);
    if (clock.ok) script.clock = clock.value;
    else skipped.push('clock: needs baseMs > 0 and incrementMs >= 0');
  }
  return ok({ script, skipped });
}
