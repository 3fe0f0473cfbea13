import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hallTables, loadConfig, parseConfig, SCHEMA_FILE, tournamentSetup } from '../../daemon/tournament/config.ts';
import { configSchemaJson } from '../../daemon/tournament/config-schema.ts';

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
    expect(r.value.tables).toHaveLength(8);
    expect(r.value.tables.filter((t) => t.bus !== undefined).map((t) => t.board)).toEqual(['12007', '12008']);
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
    expect(errorsOf({ ...good, rules: { edition: '2014' } })).toEqual(['config error: rules.edition: must be one of "2018", "2009", "1997"']);
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

  describe('tables[i].bus', () => {
    const busHall = () => {
      const c = clone(good) as { tables: Record<string, unknown>[] };
      c.tables.push({ number: 4, board: '12007', bus: '/dev/ttyUSB2' }, { number: 5, board: '12008', bus: '/dev/ttyUSB2', whiteOnClock: 'right' });
      return c;
    };

    it('keeps the bus line of boards given by serial number, and leaves other tables without one', () => {
      const r = load(busHall());
      expect(r.ok ? [] : r.error.messages).toEqual([]);
      if (!r.ok) return;
      expect(r.value.tables.slice(3)).toEqual([
        { number: 4, board: '12007', bus: '/dev/ttyUSB2', whiteOnClock: 'left' },
        { number: 5, board: '12008', bus: '/dev/ttyUSB2', whiteOnClock: 'right' },
      ]);
      expect(r.value.tables[0]!.bus).toBeUndefined();
    });

    it('takes a pseudo-terminal or COMn as the line, and several lines', () => {
      const c = busHall();
      c.tables[3]!.bus = '/tmp/hall/bus1';
      c.tables[4]!.bus = 'COM4';
      const r = load(c);
      expect(r.ok && r.value.tables.map((t) => t.bus)).toEqual([undefined, undefined, undefined, '/tmp/hall/bus1', 'COM4']);
    });

    it('names a line that is not a device path', () => {
      const c = busHall();
      c.tables[3]!.bus = 'ttyUSB2';
      expect(errorsOf(c)).toEqual([
        'config error: tables[3].bus: must be the absolute device path of the DGT bus line the board hangs on (/dev/ttyUSB2, a pseudo-terminal such as /tmp/boards/bus1) or COMn',
      ]);
      c.tables[3]!.bus = '';
      expect(errorsOf(c)).toHaveLength(1);
    });

    it('needs the board to be the serial number the line addresses it by', () => {
      const c = busHall();
      c.tables[3]!.board = '/dev/ttyUSB3';
      expect(errorsOf(c)).toEqual(['config error: tables[3].bus: needs tables[3].board to be the board\'s serial number (5 digits, e.g. "12007"), not "/dev/ttyUSB3"']);
    });

    it("refuses a line that is also a table's board port", () => {
      const c = busHall();
      c.tables[4]!.bus = '/dev/ttyUSB0';
      expect(errorsOf(c)).toEqual(["config error: tables[4].bus: /dev/ttyUSB0 is also tables[0].board; a line is either one board's port or a bus line"]);
    });

    it('refuses two boards with one address on a line, and address 0', () => {
      const c = busHall();
      // 28391 = 12007 + 16384: the 14-bit address of both is 12007.
      c.tables[4]!.board = '28391';
      expect(errorsOf(c)).toEqual(['config error: tables[4].board: serial 28391 has bus address 12007 on /dev/ttyUSB2, the same as tables[3].board 12007 (addresses are the serial modulo 16384)']);
      // On separate lines the same address is fine.
      c.tables[4]!.bus = '/dev/ttyUSB3';
      expect(load(c).ok).toBe(true);
      c.tables[4]!.board = '16384';
      expect(errorsOf(c)).toEqual(['config error: tables[4].board: serial 16384 gives bus address 0 (the broadcast address), which no board can be polled at']);
    });
  });

  it('reports a bad time control once, unknown keys, and duplicates', () => {
    expect(errorsOf({ ...good, timeControl: '90 min' })).toEqual([
      'config error: timeControl: must be FIDE-style "90+30" (minutes + seconds increment) or {"baseMinutes": 90, "incrementSeconds": 30}',
    ]);
    expect(errorsOf({ ...good, httpPrt: 80 })).toEqual(['config error: httpPrt: unknown key']);
    const t = clone(good);
    t.tables[2]!.number = 1;
    expect(errorsOf(t)).toEqual(['config error: tables[2].number: table 1 is already used by tables[0]']);
    expect(errorsOf({ ...good, tables: [] })).toEqual(['config error: tables: must list at least one table (or add an "emulate" section)']);
  });

  it('reports every problem at once', () => {
    const msgs = errorsOf({ event: {}, rounds: { count: 0 }, timeControl: '90+30', httpPort: 70000 });
    expect(msgs).toEqual(['config error: event.name: is required', 'config error: rounds.count: must be >= 1', 'config error: httpPort: must be <= 65535']);
  });

  it('reports unreadable files and bad JSON as values', () => {
    const missing = loadConfig(join(dir, 'nope.json'));
    expect(missing.ok ? '' : missing.error.messages[0]).toMatch(/cannot read .*nope\.json: ENOENT/);
    expect(errorsOf('{"event": ')[0]).toMatch(/is not valid JSON/);
  });
});

describe('the config schema file', () => {
  it('is what the schema in the code writes (npm run schema rewrites it)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(configSchemaJson());
  });
});

describe('round dates', () => {
  it('must be days of the calendar, not only look like them', () => {
    const c = (dates: string[]) => parseConfig({ event: { name: 'x' }, rounds: { count: 3, dates }, timeControl: '90+30', emulate: { count: 1 } }, null, '/tmp');
    expect(c(['2026-02-28', '2028-02-29']).ok).toBe(true);
    const bad = c(['2026-13-45', '2026-02-29']);
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.error.messages).toEqual(['config error: rounds.dates[0]: 2026-13-45 is not a date in the calendar', 'config error: rounds.dates[1]: 2026-02-29 is not a date in the calendar']);
  });
});

describe('accounts', () => {
  const withAccounts = (accounts: unknown, more: Record<string, unknown> = {}) =>
    parseConfig({ event: { name: 'x' }, rounds: { count: 1 }, timeControl: '90+30', emulate: { count: 1 }, access: { accounts, ...more } }, null, '/tmp');
  const HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

  it('takes accounts with hashes, and defaults to none and 12-hour sessions', () => {
    const none = parseConfig({ event: { name: 'x' }, rounds: { count: 1 }, timeControl: '90+30', emulate: { count: 1 } }, null, '/tmp');
    expect(none.ok && none.value.access).toEqual({ accounts: [], sessionHours: 12, secureCookie: false });
    const some = withAccounts([{ name: 'IA Mojca Novak', role: 'arbiter', password: HASH }], { sessionHours: 8 });
    expect(some.ok && some.value.access).toEqual({ accounts: [{ name: 'IA Mojca Novak', role: 'arbiter', password: HASH }], sessionHours: 8, secureCookie: false });
  });

  it('refuses a password in place of its hash, a duplicate name and an unknown role, saying which', () => {
    const bad = withAccounts([
      { name: 'A', role: 'arbiter', password: 'hunter2hunter2' },
      { name: 'A', role: 'organiser', password: HASH },
      { name: 'B', role: 'spectator', password: HASH },
    ]);
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.messages).toContain('config error: access.accounts[2].role: must be "arbiter" (decides on games) or "organiser" (runs the hall: rounds)');
      const again = withAccounts([
        { name: 'A', role: 'arbiter', password: 'hunter2hunter2' },
        { name: 'A', role: 'organiser', password: HASH },
      ]);
      expect(!again.ok && again.error.messages).toEqual([
        'config error: access.accounts[0].password: must be a hash printed by `boardcast hash-password` (scrypt$N$r$p$salt$hash), never the password itself',
        'config error: access.accounts[1].name: "A" is already used by access.accounts[0]',
      ]);
    }
  });
});
