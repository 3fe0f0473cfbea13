import { describe, expect, it } from 'vitest';
import { isAbsolute } from 'node:path';
import { choiceOption, intOption, numberOption, parseOptions, pathOption, requiredOption } from '../../daemon/cli/args.ts';
import { UsageError } from '../../daemon/cli/command.ts';

const spec = { round: { type: 'string' }, bus: { type: 'boolean' }, port: { type: 'string', multiple: true } } as const;

function usageMessage(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('parseOptions', () => {
  it('parses values, flags and repeated options', () => {
    const r = parseOptions(['--round', '3', '--bus', '--port', 'a', '--port=b'], spec);
    expect(r.values).toEqual({ round: '3', bus: true, port: ['a', 'b'] });
    expect(r.positionals).toEqual([]);
  });

  it('names an unknown option', () => {
    expect(usageMessage(() => parseOptions(['--bus', '--rounds', '3'], spec))).toBe('unknown option --rounds');
    expect(usageMessage(() => parseOptions(['-x'], spec))).toBe('unknown option -x');
  });

  it('names an option whose value is missing', () => {
    expect(usageMessage(() => parseOptions(['--round'], spec))).toBe('--round needs a value');
    expect(usageMessage(() => parseOptions(['--round', '--bus'], spec))).toBe('--round needs a value');
    expect(usageMessage(() => parseOptions(['--round', '-3'], spec))).toBe('write --round=-3 for a value starting with "-"');
    expect(parseOptions(['--round=-3'], spec).values.round).toBe('-3');
  });

  it('rejects a value given to a flag', () => {
    expect(usageMessage(() => parseOptions(['--bus=yes'], spec))).toBe('--bus takes no value');
  });

  it('rejects positionals unless the command takes them', () => {
    expect(usageMessage(() => parseOptions(['--bus', 'games.pgn'], spec))).toBe('unexpected argument games.pgn');
    expect(parseOptions(['games.pgn', '--bus'], spec, { positionals: true }).positionals).toEqual(['games.pgn']);
  });
});

describe('converters', () => {
  it('intOption accepts decimal integers within bounds', () => {
    expect(intOption('12', '--round', { min: 1 })).toBe(12);
    expect(intOption('0', '--port', { min: 0, max: 65535 })).toBe(0);
  });

  it('intOption names the option and its bounds', () => {
    expect(usageMessage(() => intOption('two', '--round', { min: 1 }))).toBe('--round needs an integer >= 1');
    expect(usageMessage(() => intOption('1.5', '--round', { min: 1 }))).toBe('--round needs an integer >= 1');
    expect(usageMessage(() => intOption('0', '--round', { min: 1 }))).toBe('--round needs an integer >= 1');
    expect(usageMessage(() => intOption('', '--round'))).toBe('--round needs an integer');
    expect(usageMessage(() => intOption('70000', '--port', { min: 0, max: 65535 }))).toBe('--port needs an integer 0..65535');
    expect(usageMessage(() => intOption('x', '--round', { message: '--round needs a round number' }))).toBe('--round needs a round number');
  });

  it('numberOption checks finiteness and bounds', () => {
    expect(numberOption('0.5', '--speed', { above: 0 })).toBe(0.5);
    expect(usageMessage(() => numberOption('0', '--speed', { above: 0 }))).toBe('--speed needs a number > 0');
    expect(usageMessage(() => numberOption('fast', '--speed', { above: 0 }))).toBe('--speed needs a number > 0');
    expect(usageMessage(() => numberOption('', '--speed', { above: 0 }))).toBe('--speed needs a number > 0');
  });

  it('choiceOption lists the choices', () => {
    expect(choiceOption('csv', '--format', ['trf', 'csv'])).toBe('csv');
    expect(usageMessage(() => choiceOption('xls', '--format', ['trf', 'csv']))).toBe('--format must be trf or csv');
  });

  it('pathOption makes paths absolute', () => {
    expect(isAbsolute(pathOption('data'))).toBe(true);
  });

  it('an option not given stays undefined, so the command picks its default', () => {
    expect(intOption(undefined, '--round', { min: 1 }) ?? 1).toBe(1);
    expect(numberOption(undefined, '--speed', { above: 0 })).toBeUndefined();
    expect(pathOption(undefined)).toBeUndefined();
  });

  it('requiredOption names what is missing', () => {
    expect(requiredOption('d', '--data DIR')).toBe('d');
    expect(usageMessage(() => requiredOption(undefined, '--data DIR'))).toBe('--data DIR is required');
  });
});
