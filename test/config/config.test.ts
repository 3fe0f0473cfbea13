import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hallTables, loadConfig, tournamentSetup } from '../../daemon/tournament/config.ts';

const dir = mkdtempSync(join(tmpdir(), 'boardcast-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const good = {
  event: { name: 'Club Championship', site: 'Maribor SLO' },
  rounds: { count: 7, dates: ['2026-03-01'] },
  timeControl: '90+30',
  tables: [
    { number: 1, board: '/dev/ttyUSB0' },
    { number: 2, board: '12345', whiteOnClock: 'right' },
    { number: 3, board: '/dev/ttyACM1' },
  ],
};

let n = 0;
function load(json: unknown) {
  const file = join(dir, `c${n++}.json`);
  writeFileSync(file, typeof json === 'string' ? json : JSON.stringify(json));
  return loadConfig(file);
}
function errorsOf(json: unknown): string[] {
  const r = load(json);
  if (r.ok) throw new Error('expected a config error');
  return r.error.messages;
}
const clone = <T>(x: T): T => structuredClone(x);

describe('loadConfig', () => {
  it('loads the embedded default: 8 emulated tables, port 8080, ./data', () => {
    const r = loadConfig();
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.source).toBeNull();
    expect(r.value.emulate?.count).toBe(8);
    expect(hallTables(r.value).map((t) => t.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(r.value.httpPort).toBe(8080);
    expect(r.value.dataDir).toBe(join(process.cwd(), 'data'));
    expect(r.value.rules).toEqual({ edition: '2018', category: 'standard', chess960: false });
  });

  it('loads the example with real devices and a structured time control', () => {
    const r = loadConfig('config/example.json');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.tables).toHaveLength(6);
    expect(r.value.emulate).toBeNull();
    expect(tournamentSetup(r.value)).toMatchObject({ name: 'Ljubljana Open 2026', timeControl: '5400+30', roundCount: 9, endDate: '2026-07-12' });
  });

  it('fills defaults and resolves dataDir against the config file directory', () => {
    const r = load(good);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.dataDir).toBe(join(dir, 'data'));
    expect(r.value.httpPort).toBe(8080);
    expect(r.value.rules.edition).toBe('2018');
    expect(r.value.tables[0]!.whiteOnClock).toBe('left');
    expect(r.value.tables[1]!.whiteOnClock).toBe('right');
    expect(r.value.timeControl).toEqual({ baseSeconds: 5400, incrementSeconds: 30, movesToSecondPeriod: null, secondPeriodSeconds: null });
  });

  it('names a missing key', () => {
    const c = clone(good) as Record<string, unknown>;
    delete c.rounds;
    expect(errorsOf(c)).toEqual(['config error: rounds: is required']);
    const t = clone(good);
    delete (t.tables[1] as Partial<(typeof t.tables)[1]>).board;
    expect(errorsOf(t)).toEqual(['config error: tables[1].board: is required']);
  });

  it('names a key of the wrong type', () => {
    expect(errorsOf({ ...good, httpPort: '8080' })).toEqual(['config error: httpPort: must be integer']);
    expect(errorsOf({ ...good, rounds: { count: 'seven' } })).toEqual(['config error: rounds.count: must be integer']);
  });

  it('names a bad enum value and lists the allowed ones', () => {
    expect(errorsOf({ ...good, rules: { edition: '2014' } })).toEqual([
      'config error: rules.edition: must be one of "2018", "2009", "1997"',
    ]);
    const t = clone(good);
    (t.tables[0] as Record<string, unknown>).whiteOnClock = 'middle';
    expect(errorsOf(t)).toEqual(['config error: tables[0].whiteOnClock: must be one of "left", "right"']);
  });

  it('takes any absolute device path for a board, such as a pseudo-terminal outside /dev', () => {
    const t = clone(good);
    t.tables[2]!.board = '/tmp/hall/board3';
    const r = load(t);
    expect(r.ok && r.value.tables[2]!.board).toBe('/tmp/hall/board3');
    expect(r.ok && r.value.httpHost).toBe('127.0.0.1');
  });

  it('names a bad table board', () => {
    const t = clone(good);
    t.tables[2]!.board = 'ttyUSB3';
    expect(errorsOf(t)).toEqual(['config error: tables[2].board: must be an absolute device path (/dev/ttyUSB0, a pseudo-terminal such as /tmp/boards/board1), COMn, or a 5-digit serial number']);
    t.tables[2]!.board = '1234';
    expect(errorsOf(t)).toEqual(['config error: tables[2].board: must be an absolute device path (/dev/ttyUSB0, a pseudo-terminal such as /tmp/boards/board1), COMn, or a 5-digit serial number']);
  });

  it('reports a bad time control once, unknown keys, and duplicates', () => {
    expect(errorsOf({ ...good, timeControl: '90 min' })).toEqual([
      'config error: timeControl: must be FIDE-style "90+30" (minutes + seconds increment) or {"baseMinutes": 90, "incrementSeconds": 30}',
    ]);
    expect(errorsOf({ ...good, httpPrt: 80 })).toEqual(['config error: httpPrt: unknown key']);
    const t = clone(good);
    t.tables[2]!.number = 1;
    expect(errorsOf(t)).toEqual(['config error: tables[2].number: table 1 is already used by tables[0]']);
    expect(errorsOf({ ...good, tables: [] })).toEqual([
      'config error: tables: must list at least one table (or add an "emulate" section)',
    ]);
  });

  it('reports every problem at once', () => {
    const msgs = errorsOf({ event: {}, rounds: { count: 0 }, timeControl: '90+30', httpPort: 70000 });
    expect(msgs).toEqual([
      'config error: event.name: is required',
      'config error: rounds.count: must be >= 1',
      'config error: httpPort: must be <= 65535',
    ]);
  });

  it('reports unreadable files and bad JSON as values', () => {
    const missing = loadConfig(join(dir, 'nope.json'));
    expect(missing.ok ? '' : missing.error.messages[0]).toMatch(/cannot read .*nope\.json: ENOENT/);
    expect(errorsOf('{"event": ')[0]).toMatch(/is not valid JSON/);
  });
});
