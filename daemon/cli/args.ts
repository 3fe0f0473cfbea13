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

export interface IntBounds {
  min?: number;
  max?: number;
  /** Replaces the generated message where a command words it for its users. */
  message?: string;
}

/** A decimal integer option value within bounds, or a UsageError such as "--round needs an integer >= 1". */
export function intOption(value: string, name: string, bounds: IntBounds = {}): number {
  const n = /^[+-]?\d+$/.test(value.trim()) ? Number(value) : NaN;
  const ok = Number.isSafeInteger(n) && (bounds.min === undefined || n >= bounds.min) && (bounds.max === undefined || n <= bounds.max);
  if (ok) return n;
  throw new UsageError(bounds.message ?? `${name} needs an integer${describeBounds(bounds.min, bounds.max)}`);
}

export interface NumberBounds {
  /** Exclusive lower bound: "--speed needs a number > 0". */
  above?: number;
  min?: number;
  max?: number;
  message?: string;
}

/** A finite number option value within bounds, or a UsageError such as "--speed needs a number > 0". */
export function numberOption(value: string, name: string, bounds: NumberBounds = {}): number {
  const n = value.trim() === '' ? NaN : Number(value);
  const ok =
    Number.isFinite(n) &&
    (bounds.above === undefined || n > bounds.above) &&
    (bounds.min === undefined || n >= bounds.min) &&
    (bounds.max === undefined || n <= bounds.max);
  if (ok) return n;
  const above = bounds.above !== undefined && bounds.min === undefined && bounds.max === undefined ? ` > ${bounds.above}` : '';
  throw new UsageError(bounds.message ?? `${name} needs a number${above || describeBounds(bounds.min, bounds.max)}`);
}

function describeBounds(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return ` ${min}..${max}`;
  if (min !== undefined) return ` >= ${min}`;
  if (max !== undefined) return ` <= ${max}`;
  return '';
}

/** One of a fixed set of words, or a UsageError such as "--format must be trf or csv". */
export function choiceOption<const C extends string>(value: string, name: string, choices: readonly C[]): C {
  if ((choices as readonly string[]).includes(value)) return value as C;
  const list = choices.length > 1 ? `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}` : String(choices[0]);
  throw new UsageError(`${name} must be ${list}`);
}

/** A path option made absolute against the current directory (commands may chdir or hand it on). */
export function pathOption(value: string): string {
  return resolve(value);
}
