import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BoardEvent } from '../../protocols/board-events.ts';
import { FramePairing } from '../../daemon/runtime/frame-pairing.ts';
import { RawEventWriter } from '../../daemon/store/raw-event-writer.ts';
import type { Store } from '../../daemon/store/store.ts';
import type { StoredRawEvent } from '../../daemon/store/types.ts';
import { mustOpen, tempDir } from '../store/helpers.ts';

/** Rows as a second connection to the same file sees them: what is on disk, not in our memory. */
function committedIds(file: string): number[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT id FROM raw_events ORDER BY id').pluck().all() as number[];
  } finally {
    db.close();
  }
}

const field = (at: number): BoardEvent => ({ type: 'field', at, field: 28, piece: 1 });
const FIELD_BYTES = Uint8Array.from([0x8e, 0x00, 0x05, 28, 1]);

describe('pairing frames with their board events, store before broadcast', () => {
  let dir: { dir: string; cleanup: () => void };
  let store: Store;
  let file: string;
  let delivered: StoredRawEvent[][];
  let onDisk: number[];
  let writer: RawEventWriter;
  let pairing: FramePairing;

  beforeEach(() => {
    dir = tempDir();
    file = join(dir.dir, 'boardcast.sqlite');
    store = mustOpen(file);
    delivered = [];
    onDisk = [];
    writer = new RawEventWriter(store, {
      onCommitted: (batch) => {
        // What the engines and the feed are handed must already be readable from the file.
        onDisk.push(...committedIds(file));
        delivered.push(batch);
      },
    });
    pairing = new FramePairing(
      3,
      () => '12003',
      (row) => writer.push(row),
      () => 1_763_700_000_000,
      () => writer.commits,
    );
  });
  afterEach(() => {
    writer.close();
    store.close();
    dir.cleanup();
  });

  it('stores a decoded event in the row of the frame that carried it', () => {
    pairing.frame({ at: 10, raw: FIELD_BYTES, messageType: 'field-update' });
    pairing.event(field(10));
    writer.flush();
    const [row] = delivered.flat();
    expect(delivered.flat()).toHaveLength(1);
    expect(row).toMatchObject({ tableNumber: 3, boardSerial: '12003', monoMs: 10, event: field(10) });
    expect([...row!.raw]).toEqual([...FIELD_BYTES]);
  });

  it('gives an event no frame carries a row of its own with no bytes, after the frame it follows', () => {
    pairing.frame({ at: 10, raw: Uint8Array.from([0x86, 0x00, 0x43, ...new Array<number>(64).fill(0)]), messageType: 'board-dump' });
    pairing.event({ type: 'dump', at: 10, board: new Array(64).fill(0) });
    // A second event of the same instant (the session's catch-up, a lost link): not the frame's.
    pairing.event({ type: 'connection', at: 10, connected: false });
    // A field event at the time of a clock frame is not that frame's either.
    pairing.frame({ at: 11, raw: Uint8Array.from([0x8d, 0, 10, 1, 0x29, 0x59, 1, 0x30, 0, 9]), messageType: 'clock-times' });
    pairing.event(field(11));
    writer.flush();
    const rows = delivered.flat();
    expect(rows.map((r) => [r.event?.type ?? null, r.raw.length])).toEqual([
      ['dump', 67],
      ['connection', 0],
      [null, 10],
      ['field', 0],
    ]);
  });

  it('hands nothing on before its commit, and everything it hands on is on disk', () => {
    pairing.frame({ at: 10, raw: FIELD_BYTES, messageType: 'field-update' });
    pairing.event(field(10));
    pairing.frame({ at: 12, raw: FIELD_BYTES, messageType: 'field-update' });
    pairing.event(field(12));
    expect(delivered).toEqual([]);
    expect(committedIds(file)).toEqual([]);
    writer.flush();
    const ids = delivered.flat().map((r) => r.id);
    expect(ids).toHaveLength(2);
    expect(onDisk).toEqual(ids);
  });

  it('keeps a bus reply that carries several events: the first rides in the frame, the rest stand alone', () => {
    pairing.frame({ at: 20, raw: Uint8Array.from([0x90, 0x01, 0x02]) });
    pairing.event(field(20));
    pairing.event({ type: 'clock', at: 20, whiteMs: 1000, blackMs: 2000, running: 'white', whiteFlag: false, blackFlag: false });
    writer.flush();
    expect(delivered.flat().map((r) => [r.event?.type, r.raw.length])).toEqual([
      ['field', 3],
      ['clock', 0],
    ]);
  });

  it('stores an event that comes a turn after its frame in a row of its own, not in the frame row already committed', async () => {
    // The handshake dump at a board's return, held while its EEPROM log is asked for.
    const dump = Uint8Array.from([0x86, 0x00, 0x43, ...new Array<number>(64).fill(0)]);
    pairing.frame({ at: 10, raw: dump, messageType: 'board-dump' });
    // The writer commits on the next turn; the catch-up gives up seconds later and lets the
    // held dump through: the board live again, then the dump, both of that instant.
    await new Promise((r) => setImmediate(r));
    expect(delivered.flat().map((r) => r.event)).toEqual([null]);
    pairing.event({ type: 'connection', at: 10, connected: true });
    pairing.event({ type: 'dump', at: 10, board: new Array(64).fill(0) });
    writer.flush();
    expect(delivered.flat().map((r) => [r.event?.type ?? null, r.raw.length])).toEqual([
      [null, 67],
      ['connection', 0],
      ['dump', 0],
    ]);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT kind FROM raw_events ORDER BY id').pluck().all()).toEqual(['undecoded', 'connection', 'dump']);
    } finally {
      db.close();
    }
  });

  it("keeps a bus reply's event, a few microtasks after its frame, in its row: nothing was committed in between", async () => {
    pairing.frame({ at: 20, raw: Uint8Array.from([0x85, 0x00, 0x08, 0x08, 0x00, 0x41, 28, 0x4d]) });
    // The bus session awaits the reply, then emits what it carried.
    await Promise.resolve();
    await Promise.resolve();
    pairing.event(field(20));
    writer.flush();
    expect(delivered.flat().map((r) => [r.event?.type ?? null, r.raw.length])).toEqual([['field', 8]]);
  });
});
