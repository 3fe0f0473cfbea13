import { existsSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../daemon/store/store.ts';
import { clockFrame, mustOpen, tempDir, withSql } from './helpers.ts';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

/** A store with a few thousand raw events, folded into the main file (no WAL left). */
function filledStore(name = 'boardcast.sqlite'): string {
  const file = join(dir, name);
  const s = mustOpen(file);
  for (let k = 0; k < 4; k++) s.appendRawEvents(Array.from({ length: 1000 }, (_, i) => clockFrame(1 + (i % 3), k * 1000 + i)));
  s.checkpoint();
  s.close();
  return file;
}

/** A table's or index's root page (a writable connection: as the last one, it leaves no WAL behind). */
function pageOf(file: string, name: string): number {
  return withSql(file, (db) => db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').pluck().get(name) as number);
}

/** Opening as the daemon does must refuse the file and leave every byte (and no WAL) behind. */
function expectRefusedUntouched(file: string, kind: string, message: RegExp): void {
  const before = readFileSync(file);
  const r = openStore(file, { check: 'quick' });
  expect(r.ok ? 'opened' : r.error.kind).toBe(kind);
  if (!r.ok) expect(r.error.message).toMatch(message);
  expect(readFileSync(file).equals(before)).toBe(true);
  expect(existsSync(`${file}-wal`)).toBe(false);
}

describe('a damaged store is refused at open and never written', () => {
  it('garbage in a raw_events page', () => {
    const file = filledStore();
    const bytes = readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    bytes.fill(0x5a, pageSize * 10, pageSize * 11);
    writeFileSync(file, bytes);
    expectRefusedUntouched(file, 'corrupt', /damage.*left untouched/);
  });

  it('a damaged index', () => {
    const file = filledStore();
    const page = pageOf(file, 'raw_events_by_table');
    const bytes = readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    // Keep the page header, scramble the cell pointers and cells after it.
    bytes.fill(0xa5, (page - 1) * pageSize + 12, page * pageSize);
    writeFileSync(file, bytes);
    expectRefusedUntouched(file, 'corrupt', /damage|malformed|not a valid/);
  });

  it('a file cut short by 1,000 bytes', () => {
    const file = filledStore();
    truncateSync(file, readFileSync(file).length - 1000);
    expectRefusedUntouched(file, 'corrupt', /damage|malformed|not a valid/);
  });

  it('a file truncated to nothing: refused unless a new event is asked for', () => {
    const file = filledStore();
    truncateSync(file, 0);
    expectRefusedUntouched(file, 'corrupt', /empty \(0 bytes\).*--new/);
    const fresh = openStore(file, { check: 'quick', allowNew: true });
    expect(fresh.ok).toBe(true);
    if (fresh.ok) fresh.value.close();
  });

  it('a missing store where the data directory holds other files (a backup, a WAL): refused unless --new', () => {
    writeFileSync(join(dir, 'boardcast.sqlite-wal'), Buffer.alloc(32));
    const file = join(dir, 'boardcast.sqlite');
    const r = openStore(file, { check: 'quick' });
    expect(r.ok ? 'opened' : r.error.kind).toBe('unavailable');
    if (!r.ok) expect(r.error.message).toMatch(/a store was here.*--new/);
    expect(existsSync(file)).toBe(false);
    // A directory holding only the daemon's lock is a fresh start.
    const lockOnly = tempDir();
    writeFileSync(join(lockOnly.dir, 'boardcast.lock'), '');
    const ok = openStore(join(lockOnly.dir, 'boardcast.sqlite'), { check: 'quick' });
    expect(ok.ok).toBe(true);
    if (ok.ok) ok.value.close();
    lockOnly.cleanup();
  });

  it('a sound store passes both checks', () => {
    const file = filledStore();
    for (const check of ['quick', 'full'] as const) {
      const r = openStore(file, { check });
      expect(r.ok, check).toBe(true);
      if (r.ok) r.value.close();
    }
  });
});
