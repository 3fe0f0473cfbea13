import type { Database } from 'better-sqlite3';
import type { BoardEvent } from '../../protocols/board-events.ts';
import type { RawEventInput, StoredRawEvent } from './types.ts';
import { writeTransaction } from './write-transaction.ts';

export interface RawEventLog {
  /**
   * Appends a batch in ONE transaction and returns it with ids. When this returns, the batch is
   * committed (and, with synchronous=FULL, on stable storage): only then may anything derived from
   * it be broadcast. Throws only if SQLite itself fails (disk full, I/O error); the batch is then
   * not written at all.
   */
  appendRawEvents(batch: readonly RawEventInput[]): StoredRawEvent[];
  /**
   * A table's raw events in commit order, from id `fromId` (inclusive) on, for replay. Reads in
   * pages, so the connection stays free for writes between pages; events committed while
   * iterating are included. `withBytes: false` leaves each event's `raw` empty: a replay that only
   * needs the decoded events reads about a third faster without them.
   */
  readRawEvents(tableNumber: number, fromId?: number, opts?: { withBytes?: boolean }): IterableIterator<StoredRawEvent>;
  /**
   * Every table's raw events in commit order from id `fromId` on, without their bytes (`raw`
   * empty): a start replays all tables in one pass, reading the file in order.
   */
  readAllRawEvents(fromId?: number): IterableIterator<StoredRawEvent>;
  /** Highest raw event id committed, 0 when none. */
  lastRawEventId(): number;
  /** Every table that has raw events, in table order. */
  tablesWithRawEvents(): number[];
  /** Whether the table has a raw event of `kind` with an id strictly between `afterId` and `beforeId`. */
  hasRawEventBetween(tableNumber: number, kind: string, afterId: number, beforeId: number): boolean;
}

interface RawRow {
  id: number;
  table_number: number;
  board_serial: string | null;
  mono_ms: number;
  wall_ms: number;
  event_json: string | null;
  /** Absent when read without bytes. */
  raw?: Buffer;
}

const PAGE = 1000;

type ClockEvent = Extract<BoardEvent, { type: 'clock' }>;
const RUNNING = [null, 'white', 'black'] as const;

/**
 * How a decoded event is kept in `event_json`. A clock reading (a DGT clock sends one a second
 * while it runs: nearly all of a store's rows) is kept compact, as
 * `[whiteMs,blackMs,running,flags]` (running 0 none, 1 white, 2 black; flags 1 white, 2 black,
 * 4 read from the board's log) with its time in `mono_ms`: about 30 bytes instead of 120. Every
 * other event, and a reading whose time is not its row's `mono_ms`, is its JSON.
 */
export function encodeStoredEvent(e: BoardEvent, monoMs: number): string {
  // Only a reading with no field besides these is compact: the form must give back the same event.
  if (e.type !== 'clock' || e.at !== monoMs || Object.keys(e).length !== (e.logged ? 8 : 7)) return JSON.stringify(e);
  const flags = (e.whiteFlag ? 1 : 0) | (e.blackFlag ? 2 : 0) | (e.logged ? 4 : 0);
  return `[${e.whiteMs},${e.blackMs},${e.running === null ? 0 : e.running === 'white' ? 1 : 2},${flags}]`;
}

/** The event `encodeStoredEvent` kept (rows written before the compact form are JSON, read as they are). */
export function decodeStoredEvent(json: string, monoMs: number): BoardEvent {
  if (json.charCodeAt(0) !== 0x5b /* [ */) return JSON.parse(json) as BoardEvent;
  const [whiteMs, blackMs, running, flags] = JSON.parse(json) as [number, number, 0 | 1 | 2, number];
  const e: ClockEvent = { type: 'clock', at: monoMs, whiteMs, blackMs, running: RUNNING[running], whiteFlag: (flags & 1) !== 0, blackFlag: (flags & 2) !== 0 };
  if (flags & 4) e.logged = true;
  return e;
}

export function createRawEventLog(db: Database): RawEventLog {
  const insert = db.prepare(
    `INSERT INTO raw_events (table_number, board_serial, mono_ms, wall_ms, kind, event_json, raw)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const page = db.prepare(
    `SELECT id, table_number, board_serial, mono_ms, wall_ms, event_json, raw FROM raw_events
     WHERE table_number = ? AND id >= ? ORDER BY id LIMIT ${PAGE}`,
  );
  const pageNoBytes = db.prepare(
    `SELECT id, table_number, board_serial, mono_ms, wall_ms, event_json FROM raw_events
     WHERE table_number = ? AND id >= ? ORDER BY id LIMIT ${PAGE}`,
  );
  const pageAll = db.prepare(`SELECT id, table_number, board_serial, mono_ms, wall_ms, event_json FROM raw_events WHERE id >= ? ORDER BY id LIMIT ${PAGE}`);
  const between = db.prepare('SELECT EXISTS (SELECT 1 FROM raw_events WHERE table_number = ? AND id > ? AND id < ? AND kind = ?)').pluck();
  const maxId = db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM raw_events').pluck();

  const appendAll = writeTransaction(db, (batch: readonly RawEventInput[]): StoredRawEvent[] => {
    const out: StoredRawEvent[] = new Array(batch.length);
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i]!;
      const info = insert.run(
        e.tableNumber,
        e.boardSerial,
        e.monoMs,
        e.wallMs,
        e.event ? e.event.type : 'undecoded',
        e.event ? encodeStoredEvent(e.event, e.monoMs) : null,
        Buffer.from(e.raw.buffer, e.raw.byteOffset, e.raw.byteLength),
      );
      out[i] = { ...e, id: Number(info.lastInsertRowid) };
    }
    return out;
  });

  const NO_BYTES = new Uint8Array(0);
  function* readAllRawEvents(fromId = 0): IterableIterator<StoredRawEvent> {
    yield* readPages((next) => pageAll.all(next) as RawRow[], fromId);
  }
  function* readRawEvents(tableNumber: number, fromId = 0, opts: { withBytes?: boolean } = {}): IterableIterator<StoredRawEvent> {
    const statement = opts.withBytes === false ? pageNoBytes : page;
    yield* readPages((next) => statement.all(tableNumber, next) as RawRow[], fromId);
  }
  function* readPages(pageFrom: (id: number) => RawRow[], fromId: number): IterableIterator<StoredRawEvent> {
    let next = fromId;
    for (;;) {
      const rows = pageFrom(next);
      for (const r of rows) {
        yield {
          id: r.id,
          tableNumber: r.table_number,
          boardSerial: r.board_serial,
          monoMs: r.mono_ms,
          wallMs: r.wall_ms,
          event: r.event_json === null ? null : decodeStoredEvent(r.event_json, r.mono_ms),
          raw: r.raw ? new Uint8Array(r.raw) : NO_BYTES,
        };
      }
      if (rows.length < PAGE) return;
      next = rows[rows.length - 1]!.id + 1;
    }
  }

  return {
    appendRawEvents: (batch) => (batch.length === 0 ? [] : appendAll(batch)),
    readRawEvents,
    readAllRawEvents,
    lastRawEventId: () => maxId.get() as number,
    hasRawEventBetween: (table, kind, afterId, beforeId) => between.get(table, afterId, beforeId, kind) === 1,
    tablesWithRawEvents: () => db.prepare('SELECT DISTINCT table_number FROM raw_events ORDER BY table_number').pluck().all() as number[],
  };
}
