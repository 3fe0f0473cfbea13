import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../daemon/store/store.ts';
import type { RawEventInput } from '../../daemon/store/types.ts';

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'boardcast-store-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function mustOpen(path: string, busyTimeoutMs = 100): Store {
  const r = openStore(path, { busyTimeoutMs });
  if (!r.ok) throw new Error(`openStore failed: ${r.error.kind}: ${r.error.message}`);
  return r.value;
}

/** A clock frame as the driver would hand it over (DGT BWTIME message 0x8d, 10 bytes). */
export function clockFrame(table: number, at: number): RawEventInput {
  return {
    tableNumber: table,
    boardSerial: `2${String(table).padStart(4, '0')}`,
    monoMs: at,
    wallMs: 1_763_700_000_000 + at,
    event: { type: 'clock', at, whiteMs: 5_400_000 - at, blackMs: 5_400_000, running: 'white', whiteFlag: false, blackFlag: false },
    raw: Uint8Array.from([0x8d, 0x00, 0x0a, 0x01, 0x29, 0x59, 0x01, 0x30, 0x00, 0x09]),
  };
}

/**
 * A second connection to a store's file, for what a test must read or try behind the store's back
 * (counts, triggers): the store itself only offers named methods. Closed when `fn` returns.
 */
export function withSql<T>(file: string, fn: (db: Database.Database) => T): T {
  const db = new Database(file, { timeout: 2000 });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
