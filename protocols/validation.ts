import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject } from 'ajv';
import { err, ok, type Result } from './result.ts';

// Every external input (feed messages, arbiter bodies, LiveChess calls, script files, the config)
// is checked against a TypeBox schema, and its TypeScript type is derived from that same schema.
// TypeBox because its schemas are plain JSON Schema that the project's ajv checks, and its
// `Static` gives the type without writing it twice (valibot and zod keep their own schema format).

const ajv = new Ajv({ allErrors: false, strict: true });
ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });

/** "/scope/round" → "scope.round", "/actions/3/at" → "actions[3].at" */
export function keyPath(pointer: string): string {
  let out = '';
  for (const p of pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')))
    out += /^\d+$/.test(p) ? `[${p}]` : out === '' ? p : `.${p}`;
  return out;
}

/**
 * The deepest `x-message` on the schema path of an error (what a person is told), with the number
 * of instance steps (properties, items) down to the value it speaks about.
 */
function customMessage(schema: TSchema, schemaPath: string): { message: string; depth: number } | undefined {
  let node: unknown = schema;
  let found: { message: string; depth: number } | undefined;
  let depth = 0;
  const segs = schemaPath
    .replace(/^#\/?/, '')
    .split('/')
    .filter((x) => x !== '');
  for (let i = 0; ; i++) {
    if (node === null || typeof node !== 'object') break;
    const msg = (node as Record<string, unknown>)['x-message'];
    if (typeof msg === 'string') found = { message: msg, depth };
    if (i >= segs.length) break;
    const seg = segs[i]!.replace(/~1/g, '/').replace(/~0/g, '~');
    // properties/<name> and items step into the value; anyOf/<n> and the like stay on it.
    if (seg === 'items' || segs[i - 1] === 'properties') depth++;
    node = (node as Record<string, unknown>)[seg];
  }
  return found;
}

function describe(schema: TSchema, e: ErrorObject, what: string): string {
  if (e.keyword === 'required') {
    const key = keyPath(`${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`);
    return `${key} is required`;
  }
  if (e.keyword === 'additionalProperties') {
    return `${keyPath(`${e.instancePath}/${(e.params as { additionalProperty: string }).additionalProperty}`)}: unknown key`;
  }
  const custom = customMessage(schema, e.schemaPath);
  if (custom) {
    const at =
      keyPath(
        e.instancePath
          .split('/')
          .slice(0, custom.depth + 1)
          .join('/'),
      ) || what;
    return `${at} ${custom.message}`;
  }
  return `${keyPath(e.instancePath) || what} ${e.message ?? 'is invalid'}`;
}

/**
 * A check for one kind of input: `Result<the schema's type, one line saying what is wrong>`.
 * `what` names the input in messages about the whole value (e.g. "the body").
 */
export function validator<T extends TSchema>(schema: T, what = 'the value'): (data: unknown) => Result<Static<T>, string> {
  const check = ajv.compile<Static<T>>(schema);
  return (data) => {
    if (check(data)) return ok(data);
    const first = check.errors?.[0];
    return err(first ? describe(schema, first, what) : `${what} is invalid`);
  };
}
