import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hallRouter, newLiveSource } from '../../daemon/runtime/store-replay.ts';
import { DerivedRows } from '../../daemon/runtime/derived-rows.ts';
import { openStore, type Store } from '../../daemon/store/store.ts';
import { loadConfig } from '../../daemon/tournament/config.ts';
import { randomGame } from '../../daemon/simulation/games/random.ts';
import { playNoisy, sessionEvents } from '../../daemon/simulation/noisy-player/player.ts';
import { withSql } from '../store/helpers.ts';
import type { GameState } from '../../protocols/feed/model.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempStore(): Store {
  const dir = mkdtempSync(join(tmpdir(), 'boardcast-derived-'));
  dirs.push(dir);
  const r = openStore(join(dir, 'boardcast.sqlite'));
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

function hall() {
  const cfg = loadConfig();
  if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
  const live = newLiveSource(cfg.value);
  const router = hallRouter(cfg.value, live);
  const track = router.track(4);
  const routeEvent = (_live: unknown, t: typeof track, e: Parameters<typeof router.route>[1]) => router.route(t.number, e);
  const script = playNoisy(randomGame(11, { maxPlies: 40 }), { model: 'clean', seed: 2, clock: { baseMs: 600_000, incrementMs: 5_000 }, reversed: false });
  return { live, track, routeEvent, events: sessionEvents(script), sans: script.expected.sans };
}

describe('DerivedRows: the store made equal to the replayed read model', () => {
  it('fills a gap left by a crash between raw and derived writes, and a second reconcile writes nothing', () => {
    const store = tempStore();
    const { live, track, routeEvent, events, sans } = hall();
    const derived = new DerivedRows(store);
    const half = Math.floor(events.length / 2);
    for (const e of events.slice(0, half)) routeEvent(live, track, e);
    derived.reconcile(live.game(track.gameId!)!, 0);
    const id = withSql(store.file, (db) => db.prepare('SELECT id FROM games WHERE table_number = 4').pluck().get()) as number;
    const before = store.moves(id).length;
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(sans.length);

    // The rest arrives, but the derived writes are "lost" (as if the daemon died first).
    for (const e of events.slice(half)) routeEvent(live, track, e);
    const fresh = new DerivedRows(store);
    const first = fresh.reconcile(live.game(track.gameId!)!, 0);
    expect(first.problems).toEqual([]);
    expect(first.written).toBeGreaterThan(0);
    expect(store.moves(id).map((m) => m.san)).toEqual(sans);
    const clocks = store.moves(id).map((m) => m.clockMs);
    expect(clocks.every((c) => c !== null)).toBe(true);

    const again = fresh.reconcile(live.game(track.gameId!)!, 0);
    expect(again).toEqual({ written: 0, problems: [] });
    expect(withSql(store.file, (db) => db.prepare('SELECT COUNT(*) FROM games').pluck().get())).toBe(1);
    expect(store.moves(id, { includeSuperseded: true })).toHaveLength(sans.length);
    store.close();
  });

  it('stores moves and incidents whose event times are fractional (caught up from a board log) at whole ms', () => {
    const store = tempStore();
    const { live, track, routeEvent, events } = hall();
    for (const e of events) routeEvent(live, track, e);
    const g = live.game(track.gameId!)!;
    const odd = { ...g, moves: g.moves.map((m, i) => ({ ...m, at: 1_700_000_000_000 + i * 333.333 })) };
    const r = new DerivedRows(store).reconcile(odd, 0);
    expect(r.problems).toEqual([]);
    const id = withSql(store.file, (db) => db.prepare('SELECT id FROM games').pluck().get()) as number;
    expect(store.moves(id).map((m) => m.at)).toEqual(odd.moves.map((m) => Math.round(m.at)));
    store.close();
  });

  it('replaces moves the read model no longer has (an amended or taken-back tail)', () => {
    const store = tempStore();
    const { live, track, routeEvent, events } = hall();
    for (const e of events) routeEvent(live, track, e);
    const g = live.game(track.gameId!)!;
    const derived = new DerivedRows(store);
    derived.reconcile(g, 0);
    const id = withSql(store.file, (db) => db.prepare('SELECT id FROM games').pluck().get()) as number;
    // A read model two plies shorter (the engine took them back): the store follows.
    const shorter = { ...g, moves: g.moves.slice(0, -2), ply: g.ply - 2, status: 'live' as const, result: '*' as const };
    const r = derived.reconcile(shorter, 0);
    expect(r.problems).toEqual([]);
    expect(store.moves(id).map((m) => m.uci)).toEqual(shorter.moves.map((m) => m.uci));
    store.close();
  });

  it('replaces incidents the game no longer has once derived again (an amendment or its undo), from the first that differs', () => {
    const store = tempStore();
    const { live, track, routeEvent, events } = hall();
    for (const e of events) routeEvent(live, track, e);
    const g = live.game(track.gameId!)!;
    const incident = (ply: number, kind: GameState['incidents'][number]['kind'], message: string, id: number): GameState['incidents'][number] => ({
      id,
      ply,
      at: 1_700_000_000_000 + ply,
      kind,
      article: '7.5.1',
      consequence: null,
      message,
    });
    const derived = new DerivedRows(store);
    const first = { ...g, incidents: [incident(3, 'illegal-move', 'white: illegal move', 1), incident(9, 'clock-without-move', 'black pressed', 2)] };
    derived.reconcile(first, 0);
    const id = withSql(store.file, (db) => db.prepare('SELECT id FROM games').pluck().get()) as number;
    const stored = () => store.incidents(id).map((i) => [i.ply, i.kind, i.message]);
    expect(stored()).toEqual([
      [3, 'illegal-move', 'white: illegal move'],
      [9, 'clock-without-move', 'black pressed'],
    ]);
    // Derived again: the first stands, the second is gone, another came later.
    const again = { ...g, incidents: [first.incidents[0]!, incident(12, 'clock-without-move', 'white pressed', 2)] };
    expect(derived.reconcile(again, 0, { rederived: true }).problems).toEqual([]);
    expect(stored()).toEqual([
      [3, 'illegal-move', 'white: illegal move'],
      [12, 'clock-without-move', 'white pressed'],
    ]);
    // None at all (the amendment that raised them undone), and a reconcile that changes nothing.
    derived.reconcile({ ...g, incidents: [] }, 0, { rederived: true });
    expect(stored()).toEqual([]);
    expect(derived.reconcile({ ...g, incidents: [] }, 0).written).toBe(0);
    store.close();
  });
});

describe('DerivedRows: clock readings', () => {
  it('stores each reading once, keyed by its raw event, all of a batch or none', () => {
    const store = tempStore();
    const { live, track, routeEvent, events } = hall();
    const derived = new DerivedRows(store);
    const clocks = events.filter((e) => e.type === 'clock');
    expect(clocks.length).toBeGreaterThan(10);
    const raw = store.appendRawEvents(events.map((event) => ({ tableNumber: 4, boardSerial: null, monoMs: event.at, wallMs: 1_700_000_000_000 + event.at, event, raw: new Uint8Array(0) })));
    const rows = raw.flatMap((e) => {
      routeEvent(live, track, e.event!);
      const ev = e.event!;
      return ev.type === 'clock' ? [{ game: live.progress(track.gameId!)!, rawEventId: e.id, wallMs: e.wallMs, reading: ev }] : [];
    });
    derived.clockReadings(rows.slice(0, 5));
    expect(store.lastClockRawEventId()).toBe(rows[4]!.rawEventId);
    // The start-up replay offers everything again: nothing is stored twice.
    derived.clockReadings(rows);
    const stored = withSql(store.file, (db) => db.prepare('SELECT raw_event_id, white_ms, black_ms, running FROM clock_readings ORDER BY id').all()) as {
      raw_event_id: number;
      white_ms: number;
      black_ms: number;
      running: string | null;
    }[];
    expect(stored.map((r) => r.raw_event_id)).toEqual(rows.map((r) => r.rawEventId));
    expect(stored.map((r) => [r.white_ms, r.black_ms, r.running])).toEqual(rows.map((r) => [r.reading.whiteMs, r.reading.blackMs, r.reading.running]));
    expect(store.lastClock(withSql(store.file, (db) => db.prepare('SELECT id FROM games').pluck().get()) as number)).toMatchObject({ whiteMs: rows.at(-1)!.reading.whiteMs });
    store.close();
  });
});
