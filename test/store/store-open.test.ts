import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, SCHEMA_VERSION } from '../../daemon/store/migrations.ts';
import { openStore } from '../../daemon/store/store.ts';
import { clockFrame, mustOpen, tempDir, withSql } from './helpers.ts';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

describe('openStore: migrations', () => {
  it('creates every table from an empty directory and sets user_version', () => {
    const store = mustOpen(join(dir, 'nested', 'boardcast.sqlite'));
    expect(store.settings().schemaVersion).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
    const tables = withSql(store.file, (db) => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[]);
    expect(tables).toEqual([
      'amendments',
      'board_serials',
      'clock_readings',
      'game_snapshots',
      'games',
      'hall_tables',
      'incidents',
      'live_snapshots',
      'moves',
      'pairings',
      'players',
      'raw_events',
      'rounds',
      'table_checkpoints',
      'tournaments',
    ]);
    expect(store.settings().journalMode).toBe('wal');
    expect(store.settings().synchronous).toBe(2); // FULL
    store.close();
  });

  it('re-opens an existing file without re-running migrations or losing data', () => {
    const file = join(dir, 'b.sqlite');
    const a = mustOpen(file);
    a.appendRawEvents([clockFrame(1, 10), clockFrame(1, 20)]);
    a.close();
    const b = mustOpen(file);
    expect(b.settings().schemaVersion).toBe(SCHEMA_VERSION);
    expect([...b.readRawEvents(1)].map((e) => e.monoMs)).toEqual([10, 20]);
    b.close();
    const c = mustOpen(file);
    expect(c.lastRawEventId()).toBe(2);
    c.close();
  });

  it('refuses a file with a newer schema and leaves it alone', () => {
    const file = join(dir, 'newer.sqlite');
    mustOpen(file).close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    raw.close();
    const before = readFileSync(file);
    const r = openStore(file);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe('newer-schema');
    expect(r.error.file).toBe(file);
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});

describe('openStore: locked and corrupt files', () => {
  it('reports a file held by another connection as locked, naming the file, and changes nothing', () => {
    const file = join(dir, 'locked.sqlite');
    mustOpen(file).close();
    const other = new Database(file);
    other.pragma('locking_mode = EXCLUSIVE');
    other.prepare('BEGIN EXCLUSIVE').run();
    other.prepare("INSERT INTO players (name) VALUES ('holder')").run();
    const r = openStore(file, { busyTimeoutMs: 50 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe('locked');
    expect(r.error.file).toBe(file);
    expect(r.error.message).toMatch(/locked/);
    other.prepare('COMMIT').run();
    other.close();
    // The holder's write survived and the file is still a good store.
    const s = mustOpen(file);
    expect(withSql(s.file, (db) => db.prepare('SELECT name FROM players').pluck().all())).toEqual(['holder']);
    s.close();
  });

  it('reports a rollback-journal file under BEGIN EXCLUSIVE as locked', () => {
    const file = join(dir, 'rollback.sqlite');
    const other = new Database(file);
    other.exec('CREATE TABLE t (x)');
    other.prepare('BEGIN EXCLUSIVE').run();
    other.prepare('INSERT INTO t VALUES (1)').run();
    const r = openStore(file, { busyTimeoutMs: 50 });
    expect(r.ok ? 'opened' : r.error.kind).toBe('locked');
    other.prepare('ROLLBACK').run();
    other.close();
  });

  it('reports garbage bytes as corrupt and leaves the file byte-for-byte untouched', () => {
    const file = join(dir, 'garbage.sqlite');
    const garbage = Buffer.alloc(8192);
    for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 131 + 7) & 0xff;
    writeFileSync(file, garbage);
    const r = openStore(file);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe('corrupt');
    expect(r.error.file).toBe(file);
    expect(r.error.message).toMatch(/not a valid SQLite database|damaged/);
    expect(readFileSync(file).equals(garbage)).toBe(true);
    expect(readdirSync(dir)).toEqual(['garbage.sqlite']);
  });

  it('reports a store whose pages were damaged as corrupt when asked to check', () => {
    const file = join(dir, 'damaged.sqlite');
    const s = mustOpen(file);
    s.appendRawEvents(Array.from({ length: 2000 }, (_, i) => clockFrame(1, i)));
    s.checkpoint();
    s.close();
    const bytes = readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    // Overwrite a page in the middle of the raw_events b-tree, keeping the header valid.
    bytes.fill(0x5a, pageSize * 10, pageSize * 11);
    writeFileSync(file, bytes);
    const r = openStore(file, { check: 'quick' });
    expect(r.ok ? 'opened' : r.error.kind).toBe('corrupt');
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('reports a directory in place of the file as unavailable', () => {
    const r = openStore(dir);
    expect(r.ok ? 'opened' : r.error.kind).toBe('unavailable');
  });
});
