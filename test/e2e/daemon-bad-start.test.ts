import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type Child } from '../runtime/daemon-child.ts';

const root = mkdtempSync(join(tmpdir(), 'boardcast-bad-start-'));
const children: Child[] = [];
afterAll(() => {
  for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

function serve(args: string[]): Child {
  const c = runCli(['serve', '--port', '0', '--no-viewer', ...args]);
  children.push(c);
  return c;
}

function configFile(name: string, body: unknown): string {
  const file = join(root, name);
  writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body));
  return file;
}

const good = {
  event: { name: 'Test Open', site: 'Here' },
  rounds: { count: 1 },
  timeControl: '90+30',
  rules: { edition: '2018', category: 'standard' },
  httpPort: 0,
  dataDir: './data',
  emulate: { count: 1, games: 'random', seed: 1, noise: 'clean', serialBase: 10001 },
};

describe('serve refuses a bad start with a clear message, a non-zero exit, and the files untouched', () => {
  it('names the offending config key', async () => {
    const file = configFile('bad-key.json', { ...good, httpPort: 'eighty' });
    const c = serve(['--config', file]);
    expect(await c.exit).toBe(1);
    expect(c.stderr()).toContain('httpPort');
    expect(c.stderr()).toContain(file);
  }, 30_000);

  it('names a config file that is not JSON', async () => {
    const file = configFile('broken.json', '{ "event": ');
    const c = serve(['--config', file]);
    expect(await c.exit).toBe(1);
    expect(c.stderr()).toMatch(/not valid JSON/);
  }, 30_000);

  it('reports a usage error with exit 2', async () => {
    const c = serve(['--pace', 'fast']);
    expect(await c.exit).toBe(2);
    expect(c.stderr()).toContain('--pace');
  }, 30_000);

  it('leaves a corrupt database file byte for byte as it was', async () => {
    const data = join(root, 'corrupt');
    mkdirSync(data);
    const file = join(data, 'boardcast.sqlite');
    const garbage = Buffer.alloc(8192);
    for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) & 0xff;
    writeFileSync(file, garbage);
    const c = serve(['--data', data]);
    expect(await c.exit).toBe(1);
    expect(c.stderr()).toContain(file);
    expect(c.stderr()).toMatch(/not a valid SQLite database|damaged/);
    expect(readFileSync(file).equals(garbage)).toBe(true);
  }, 30_000);

  it('reports a database locked by another process and does not touch it', async () => {
    const data = join(root, 'locked');
    mkdirSync(data);
    const file = join(data, 'boardcast.sqlite');
    const holder = new Database(file);
    holder.exec('CREATE TABLE mine (x INTEGER); INSERT INTO mine VALUES (42);');
    holder.exec('BEGIN EXCLUSIVE');
    holder.exec('INSERT INTO mine VALUES (43)');
    try {
      const c = serve(['--data', data]);
      expect(await c.exit).toBe(1);
      expect(c.stderr()).toContain(file);
      expect(c.stderr()).toMatch(/locked/);
    } finally {
      holder.exec('ROLLBACK');
    }
    expect(holder.prepare('SELECT x FROM mine').pluck().all()).toEqual([42]);
    const tables = holder.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    expect(tables).toEqual(['mine']);
    holder.close();
  }, 30_000);
});
