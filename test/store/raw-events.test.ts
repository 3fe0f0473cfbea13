import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RawEventWriter } from '../../daemon/store/raw-event-writer.ts';
import type { Store } from '../../daemon/store/store.ts';
import type { RawEventInput, StoredRawEvent } from '../../daemon/store/types.ts';
import { clockFrame, mustOpen, tempDir, withSql } from './helpers.ts';

let dir: string;
let cleanup: () => void;
let store: Store;
let file: string;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  file = join(dir, 'boardcast.sqlite');
  store = mustOpen(file);
});
afterEach(() => {
  store.close();
  cleanup();
});

const nextTick = () => new Promise<void>((r) => setImmediate(r));
const countOnDisk = () => {
  const other = new Database(file, { readonly: true });
  try {
    return other.prepare('SELECT COUNT(*) FROM raw_events').pluck().get() as number;
  } finally {
    other.close();
  }
};

describe('raw events', () => {
  it('keeps clock readings compact and gives back the same events (old JSON rows too)', () => {
    const clock = (at: number, extra: object): RawEventInput => ({
      tableNumber: 1,
      boardSerial: null,
      monoMs: at,
      wallMs: 1_763_700_000_000 + Math.round(at),
      event: { type: 'clock', at, whiteMs: 5_399_000, blackMs: 5_400_000, running: 'white', whiteFlag: false, blackFlag: false, ...extra } as RawEventInput['event'],
      raw: Uint8Array.from([0x8d]),
    });
    const inputs = [
      clock(1000, {}),
      clock(2000.5, { running: null, whiteFlag: true }),
      clock(3000, { running: 'black', blackFlag: true, logged: true }),
      // A reading whose time is not its row's mono_ms is kept whole.
      { ...clock(4000, {}), monoMs: 4001 },
    ];
    store.appendRawEvents(inputs);
    const jsons = withSql(file, (db) => db.prepare('SELECT event_json FROM raw_events ORDER BY id').pluck().all()) as string[];
    expect(jsons.slice(0, 3)).toEqual(['[5399000,5400000,1,0]', '[5399000,5400000,0,1]', '[5399000,5400000,2,6]']);
    expect(jsons[3]).toMatch(/^\{"type":"clock"/);
    // A row an earlier release wrote: the whole JSON.
    withSql(file, (db) =>
      db
        .prepare("INSERT INTO raw_events (table_number, board_serial, mono_ms, wall_ms, kind, event_json, raw) VALUES (1, NULL, 5000, 0, 'clock', ?, x'8d')")
        .run(JSON.stringify(clock(5000, { running: 'black' }).event)),
    );
    expect([...store.readRawEvents(1)].map((e) => e.event)).toEqual([...inputs.map((i) => i.event), clock(5000, { running: 'black' }).event]);
  });

  it('round-trips the decoded event and the exact raw bytes, per table, in order', () => {
    const fieldFrame: RawEventInput = {
      tableNumber: 2,
      boardSerial: '12345',
      monoMs: 1500.25,
      wallMs: 1_763_700_001_500,
      event: { type: 'field', at: 1500.25, field: 52, piece: 0 },
      raw: Uint8Array.from([0x8e, 0x00, 0x05, 0x34, 0x00]),
    };
    const undecoded: RawEventInput = { ...fieldFrame, event: null, raw: Uint8Array.from([0xff, 0x13]) };
    const stored = store.appendRawEvents([clockFrame(1, 5), fieldFrame, undecoded, clockFrame(1, 6)]);
    expect(stored.map((e) => e.id)).toEqual([1, 2, 3, 4]);
    const t2 = [...store.readRawEvents(2)];
    expect(t2).toEqual([
      { ...fieldFrame, id: 2, raw: new Uint8Array(fieldFrame.raw) },
      { ...undecoded, id: 3, raw: new Uint8Array(undecoded.raw) },
    ]);
    expect([...store.readRawEvents(1, 2)].map((e) => e.id)).toEqual([4]);
    expect(withSql(store.file, (db) => db.prepare('SELECT kind FROM raw_events ORDER BY id').pluck().all())).toEqual(['clock', 'field', 'undecoded', 'clock']);
  });

  it('reads long histories in pages, including events appended while iterating', () => {
    store.appendRawEvents(Array.from({ length: 2500 }, (_, i) => clockFrame(3, i)));
    let n = 0;
    for (const e of store.readRawEvents(3)) {
      if (n === 0) store.appendRawEvents([clockFrame(3, 99_999)]); // the connection is not held busy
      expect(e.tableNumber).toBe(3);
      n++;
    }
    expect(n).toBe(2501);
  });

  it('rejects UPDATE and DELETE of raw events (append-only triggers)', () => {
    store.appendRawEvents([clockFrame(1, 1)]);
    expect(() => withSql(store.file, (db) => db.prepare('UPDATE raw_events SET mono_ms = 2').run())).toThrow(/append-only/);
    expect(() => withSql(store.file, (db) => db.prepare("UPDATE raw_events SET raw = x'00'").run())).toThrow(/append-only/);
    expect(() => withSql(store.file, (db) => db.prepare('DELETE FROM raw_events').run())).toThrow(/append-only/);
    const [e] = [...store.readRawEvents(1)];
    expect(e!.monoMs).toBe(1);
  });

  it('rejects UPDATE and DELETE of the arbiter audit trail', () => {
    store.recordAmendment({ gameId: null, wallMs: 1, arbiter: 'IA Novak', action: 'note', reason: 'test' });
    expect(() => withSql(store.file, (db) => db.prepare("UPDATE amendments SET reason = 'x'").run())).toThrow(/append-only/);
    expect(() => withSql(store.file, (db) => db.prepare('DELETE FROM amendments').run())).toThrow(/append-only/);
  });

  it('writes a batch all or nothing', () => {
    store.appendRawEvents([clockFrame(1, 1)]);
    const bad = { ...clockFrame(1, 3), tableNumber: 'one' as unknown as number }; // STRICT table rejects it
    expect(() => store.appendRawEvents([clockFrame(1, 2), bad, clockFrame(1, 4)])).toThrow();
    expect([...store.readRawEvents(1)].map((e) => e.monoMs)).toEqual([1]);
    expect(countOnDisk()).toBe(1);
  });
});

describe('RawEventWriter', () => {
  it('commits everything pushed in one tick as one batch, before the listener sees it', async () => {
    const seen: { batch: StoredRawEvent[]; onDisk: number }[] = [];
    const writer = new RawEventWriter(store, {
      // Another connection sees the rows when the listener runs: they are committed, not pending.
      onCommitted: (batch) => seen.push({ batch, onDisk: countOnDisk() }),
    });
    for (let i = 0; i < 5; i++) writer.push(clockFrame(1 + (i % 2), i));
    expect(writer.pending).toBe(5);
    expect(countOnDisk()).toBe(0);
    await nextTick();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.batch.map((e) => e.monoMs)).toEqual([0, 1, 2, 3, 4]);
    expect(seen[0]!.onDisk).toBe(5);
    writer.push(clockFrame(1, 5));
    await nextTick();
    expect(seen.map((s) => s.batch.length)).toEqual([5, 1]);
    expect(writer.close()).toEqual([]);
    expect(() => writer.push(clockFrame(1, 6))).toThrow();
  });

  it('keeps a batch whose commit failed and retries it in order; nothing is lost or duplicated', async () => {
    // A store that waits only 10 ms for the lock, then another writer that holds it.
    store.close();
    store = mustOpen(file, 10);
    const blocker = new Database(file);
    blocker.prepare('BEGIN IMMEDIATE').run();
    const errors: string[] = [];
    const committed: number[] = [];
    const writer = new RawEventWriter(store, {
      onCommitted: (b) => committed.push(...b.map((e) => e.monoMs)),
      onError: (e, phase, pending) => errors.push(`${phase}:${pending}:${(e as { code?: string }).code}`),
      retryMs: 5,
    });
    writer.push(clockFrame(1, 1));
    writer.push(clockFrame(1, 2));
    await nextTick();
    expect(errors[0]).toBe('commit:2:SQLITE_BUSY');
    expect(committed).toEqual([]);
    writer.push(clockFrame(1, 3));
    blocker.prepare('COMMIT').run();
    blocker.close();
    await vi.waitFor(() => expect(committed).toEqual([1, 2, 3]), { timeout: 5000, interval: 5 });
    expect([...store.readRawEvents(1)].map((e) => e.monoMs)).toEqual([1, 2, 3]);
    writer.close();
  });

  it('flush() is a synchronous barrier: committed on return', () => {
    const got: number[] = [];
    const writer = new RawEventWriter(store, { onCommitted: (b) => got.push(b.length) });
    writer.push(clockFrame(4, 1));
    writer.push(clockFrame(4, 2));
    const out = writer.flush();
    expect(out.map((e) => e.id)).toEqual([1, 2]);
    expect(countOnDisk()).toBe(2);
    expect(got).toEqual([2]);
  });

  it('reports a throwing listener without losing the committed batch', async () => {
    const errors: string[] = [];
    const writer = new RawEventWriter(store, {
      onCommitted: () => {
        throw new Error('broadcast failed');
      },
      onError: (e, phase) => errors.push(`${phase}:${(e as Error).message}`),
    });
    writer.push(clockFrame(1, 1));
    await nextTick();
    expect(errors).toEqual(['listener:broadcast failed']);
    expect(countOnDisk()).toBe(1);
  });
});
