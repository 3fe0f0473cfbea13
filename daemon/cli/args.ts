import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './command.ts';

/** The options a command takes, as node:util parseArgs describes them (long names without the dashes). */
export type OptionsSpec = NonNullable<ParseArgsConfig['options']>;

export interface ParseSettings {
  /** Whether the command takes positional arguments (e.g. a file name); default false. */
  positionals?: boolean;
}

/**
 * Parses a command's argv strictly with node:util parseArgs. Anything parseArgs rejects (an unknown
 * option, an option without its value, a value given to a flag, a stray positional) becomes a
 * UsageError naming the option, so main prints it with the command's usage and exits 2.
 */
export function parseOptions<const O extends OptionsSpec>(argv: string[], options: O, settings: ParseSettings = {}) {
  const allowPositionals = settings.positionals ?? false;
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_')) throw err;
    throw new UsageError(describeRejection(argv, options, allowPositionals) ?? (err as Error).message);
  }
}

/**
 * parseArgs' own messages are long and name the option only inside prose; this re-reads argv
 * leniently (tokens) to find the offending argument and say what is wrong with it in one line.
 */
function describeRejection(argv: string[], options: OptionsSpec, allowPositionals: boolean): string | undefined {
  const { tokens } = parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  for (const t of tokens) {
    if (t.kind === 'positional') {
      if (!allowPositionals) return `unexpected argument ${t.value}`;
      continue;
    }
    if (t.kind !== 'option') continue;
    const spec = options[t.name];
    if (!spec) return `unknown option ${t.rawName}`;
    if (spec.type === 'boolean') {
      if (t.value !== undefined) return `${t.rawName} takes no value`;
    } else if (t.value === undefined) {
      return `${t.rawName} needs a value`;
    } else if (!t.inlineValue && t.value.startsWith('-')) {
      // parseArgs will not take "--round --game" as round "--game": most likely the value was forgotten;
      // "--seed -1" is a value that only the inline form can carry.
      if (/^-\d/.test(t.value)) return `write ${t.rawName}=${t.value} for a value starting with "-"`;
      return `${t.rawName} needs a value`;
    }
  }
  return undefined;
}

export interface Bounds {
  /** Exclusive lower bound: "--speed needs a number > 0". */
  above?: number;
  min?: number;
  max?: number;
  /** Replaces the generated message where a command words it for its users. */
  message?: string;
}

/**
 * A decimal integer option value within bounds, or a UsageError such as "--round needs an integer >= 1".
 * An option not given (undefined) stays undefined, so callers can apply their own default with ??.
 */
export function intOption(value: string, name: string, bounds?: Bounds): number;
export function intOption(value: string | undefined, name: string, bounds?: Bounds): number | undefined;
export function intOption(value: string | undefined, name: string, bounds: Bounds = {}): number | undefined {
  if (value === undefined) return undefined;
  const n = /^[+-]?\d+$/.test(value.trim()) ? Number(value) : NaN;
  return within(Number.isSafeInteger(n) ? n : NaN, bounds, `${name} needs an integer`);
}

/** A finite number option value within bounds, or a UsageError such as "--speed needs a number > 0"; undefined stays undefined. */
export function numberOption(value: string, name: string, bounds?: Bounds): number;
export function numberOption(value: string | undefined, name: string, bounds?: Bounds): number | undefined;
export function numberOption(value: string | undefined, name: string, bounds: Bounds = {}): number | undefined {
  if (value === undefined) return undefined;
  return within(value.trim() === '' ? NaN : Number(value), bounds, `${name} needs a number`);
}

/** n if it is finite and within bounds; otherwise a UsageError: the command's message, or `needs` plus the bounds. */
function within(n: number, b: Bounds, needs: string): number {
  const ok = Number.isFinite(n) && (b.above === undefined || n > b.above) && (b.min === undefined || n >= b.min) && (b.max === undefined || n <= b.max);
  if (ok) return n;
  throw new UsageError(b.message ?? `${needs}${describeBounds(b)}`);
}

function describeBounds({ above, min, max }: Bounds): string {
  const low = min !== undefined ? `>= ${min}` : above !== undefined ? `> ${above}` : undefined;
  if (min !== undefined && max !== undefined) return ` ${min}..${max}`;
  if (low !== undefined && max !== undefined) return ` ${low} and <= ${max}`;
  if (low !== undefined) return ` ${low}`;
  if (max !== undefined) return ` <= ${max}`;
  return '';
}

/** One of a fixed set of words, or a UsageError such as "--format must be trf or csv". */
export function choiceOption<const C extends string>(value: string, name: string, choices: readonly C[]): C {
  if ((choices as readonly string[]).includes(value)) return value as C;
  const list = choices.length > 1 ? `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}` : String(choices[0]);
  throw new UsageError(`${name} must be ${list}`);
}

/** A path option made absolute against the current directory (commands may chdir or hand it on); undefined stays undefined. */
export function pathOption(value: string): string;
export function pathOption(value: string | undefined): string | undefined;
export function pathOption(value: string | undefined): string | undefined {
  return value === undefined ? undefined : resolve(value);
}

/** The value of an option the command cannot run without, or a UsageError such as "--data DIR is required". */
export function requiredOption<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new UsageError(`${what} is required`);
  return value;
}
