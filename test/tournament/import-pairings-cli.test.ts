import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../daemon/cli/command.ts';
import command from '../../daemon/cli/commands/import-pairings.ts';
import { tempDir } from '../store/helpers.ts';

const fixtures = join(import.meta.dirname, '../fixtures/pairings');
let dir: string;
let cleanup: () => void;
let out: string[];
let errs: string[];

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  out = [];
  errs = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void errs.push(a.join(' ')));
  writeFileSync(
    join(dir, 'hall.json'),
    JSON.stringify({
      event: { name: 'Ljubljana Open 2026', site: 'Ljubljana SLO' },
      rounds: { count: 9 },
      timeControl: '90+30',
      tables: Array.from({ length: 6 }, (_, i) => ({ number: i + 1, board: `1200${i + 1}` })),
      dataDir: './data',
    }),
  );
});
afterEach(() => {
  vi.restoreAllMocks();
  cleanup();
});

const db = () => new Database(join(dir, 'data', 'boardcast.sqlite'), { readonly: true });

describe('boardcast import-pairings', () => {
  it('imports a TRF round into <dataDir>/boardcast.sqlite', async () => {
    const code = await command.run(['--config', join(dir, 'hall.json'), '--round', '3', join(fixtures, 'ljubljana-open-r3.trf')]);
    expect(errs).toEqual([]);
    expect(code).toBe(0);
    expect(out.at(-1)).toMatch(/round 3: 6 games imported .*; without a game: Vidmar, Nik$/);
    const d = db();
    expect(d.prepare('SELECT COUNT(*) FROM pairings').pluck().get()).toBe(6);
    expect(d.prepare("SELECT title || ' ' || rating || ' ' || federation FROM players WHERE fide_id = 14902217").pluck().get()).toBe('WGM 2402 SVK');
    d.close();
  });

  it('reports bad lines with file and line number, exit 1, and writes nothing', async () => {
    const code = await command.run(['--config', join(dir, 'hall.json'), '--round', '1', join(fixtures, 'bad-rating.trf')]);
    expect(code).toBe(1);
    expect(errs[0]).toBe(`${join(fixtures, 'bad-rating.trf')}:17: rating "23x8" (columns 49–52) is not a number up to 3500`);
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });

  it('reports config errors by key', async () => {
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ event: { name: 'x' }, rounds: { count: 1 }, timeControl: '90+30', tables: [{ number: 1, board: 'usb0' }] }));
    const code = await command.run(['--config', join(dir, 'bad.json'), '--round', '1', join(fixtures, 'ljubljana-open-r4.csv')]);
    expect(code).toBe(1);
    expect(errs).toEqual(['config error: tables[0].board: must be an absolute device path (/dev/ttyUSB0, a pseudo-terminal such as /tmp/boards/board1), COMn, or a 5-digit serial number']);
  });

  it('dry run checks and writes nothing', async () => {
    const code = await command.run(['--config', join(dir, 'hall.json'), '--round', '4', '--dry-run', join(fixtures, 'ljubljana-open-r4.csv')]);
    expect(code).toBe(0);
    expect(out[0]).toBe('table 1: Kranjc, Matej - Kovačič, Luka');
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });

  it('rejects bad arguments as usage errors', async () => {
    await expect(command.run(['x.csv'])).rejects.toThrow(UsageError);
    await expect(command.run(['--round', 'two', 'x.csv'])).rejects.toThrow(/--round needs a round number/);
    await expect(command.run(['--round', '1', 'x.pgn'])).rejects.toThrow(/--format trf\|csv/);
  });

  it('prints its usage with --help through the boardcast CLI', () => {
    const text = execFileSync(process.execPath, ['--import', 'tsx', 'daemon/cli/main.ts', 'import-pairings', '--help'], { encoding: 'utf8' });
    expect(text).toMatch(/^usage: boardcast import-pairings/);
    expect(text).toMatch(/--round <n>/);
  });
});
