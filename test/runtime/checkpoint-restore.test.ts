import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { restoreHall } from '../../daemon/app/rebuild.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { gameActionHandler } from '../../daemon/runtime/arbiter-actions.ts';
import { hallPairings } from '../../daemon/runtime/hall-pairings.ts';
import type { MemoryLiveSource } from '../../daemon/runtime/memory-live-source.ts';
import { hallRouter, newLiveSource, replayStore } from '../../daemon/runtime/store-replay.ts';
import { openStore, type Store } from '../../daemon/store/store.ts';
import { loadConfig, tournamentSetup, type BoardcastConfig } from '../../daemon/tournament/config.ts';
import { writeHallStore } from '../bench/hall-store.ts';
import { withSql } from '../store/helpers.ts';
import { SCHEMA_VERSION } from '../../daemon/store/migrations.ts';
import { liveSnapshotWriter } from '../../daemon/app/live-snapshot-writer.ts';
import type { RawEventInput } from '../../daemon/store/types.ts';
import { startDaemon } from '../../daemon/app/daemon.ts';
import { verifyStore, runInBackground, type VerificationResult } from '../../daemon/runtime/store-verification.ts';
import { parseConfig } from '../../daemon/tournament/config.ts';
import { eventually, getJson } from './daemon-child.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const TABLES = [1, 2, 3];

function setup(): { file: string; config: BoardcastConfig } {
  const dir = mkdtempSync(join(tmpdir(), 'boardcast-checkpoints-'));
  dirs.push(dir);
  const file = join(dir, 'boardcast.sqlite');
  const cfg = loadConfig();
  if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
  const config: BoardcastConfig = { ...cfg.value, emulate: null, rounds: { ...cfg.value.rounds, start: 'board', count: 3 } };
  const store = open(file);
  // Three tables, three rounds each, the last round's games cut half-way (still live).
  writeHallStore(store, { tables: TABLES.length, rounds: 3, thinkMs: 4000, maxPlies: 60, lastRoundPlayed: 0.5, seed: 7 });
  store.close();
  return { file, config };
}

function open(file: string): Store {
  const r = openStore(file);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const warnings: string[] = [];
const log = createLogger({ write: (level, line) => (level === 'warn' || level === 'error' ? warnings.push(line) : undefined) });

/** What `serve` does at start with the store: rebuild the hall and write what a crash left out. */
function start(file: string, config: BoardcastConfig) {
  const store = open(file);
  const tournamentId = store.upsertTournament(tournamentSetup(config));
  const hall = restoreHall(store, config, { tables: TABLES, tournamentId, pairings: hallPairings(store, config, null), log });
  return { store, tournamentId, ...hall };
}

/** Every game of the hall as the read model holds it. */
function games(live: MemoryLiveSource): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of live.rounds()) for (const g of live.games(r.round) ?? []) out[g.id] = live.game(g.id);
  return out;
}

/** The hall replayed from every table's first event (what a restart must equal). */
function wholeReplay(file: string, config: BoardcastConfig): { games: Record<string, unknown>; events: number } {
  const store = open(file);
  const live = newLiveSource(config, store);
  const events = replayStore(store, hallRouter(config, live, hallPairings(store, config, null)), TABLES);
  store.close();
  return { games: games(live), events };
}

describe('restart from game boundaries (issue 14)', () => {
  it('puts finished games back from their snapshots and replays only the live ones, equal to a whole replay', () => {
    const { file, config } = setup();
    const first = start(file, config);
    expect(first.rebuilt.fromCheckpoint).toBe(0);
    const whole = wholeReplay(file, config);
    expect(games(first.live)).toEqual(whole.games);
    first.store.close();

    const second = start(file, config);
    expect(second.rebuilt.fromCheckpoint).toBe(TABLES.length);
    expect(second.rebuilt.restoredGames).toBe(TABLES.length * 2);
    // Only the third round's games were replayed: far fewer events than the whole store.
    expect(second.rebuilt.events).toBeLessThan(whole.events / 3);
    expect(Object.keys(games(second.live)).sort()).toEqual(Object.keys(whole.games).sort());
    expect(games(second.live)).toEqual(whole.games);
    second.store.close();
  });

  it('rebuilds a restored game from the store when the arbiter decides on it, and the next start includes the decision', () => {
    const { file, config } = setup();
    start(file, config).store.close();
    const hall = start(file, config);
    expect(hall.live.hasEngine('r1-t2')).toBe(false);
    const decide = gameActionHandler({ store: hall.store, tournamentId: hall.tournamentId, router: hall.router, reconcile: hall.derived.reconcile });
    const decided = decide('r1-t2', { kind: 'result', result: '0-1', reason: 'test: a result corrected after the round', arbiter: 'A. Arbiter' });
    expect(decided.ok).toBe(true);
    expect(hall.live.hasEngine('r1-t2')).toBe(true);
    expect(hall.live.game('r1-t2')?.result).toBe('0-1');
    const after = games(hall.live);
    hall.store.close();

    expect(after).toEqual(wholeReplay(file, config).games);
    const next = start(file, config);
    // The snapshot was written again with the decision: the table still starts from its checkpoint.
    expect(next.rebuilt.fromCheckpoint).toBe(TABLES.length);
    expect(next.live.game('r1-t2')?.result).toBe('0-1');
    expect(games(next.live)).toEqual(after);
    next.store.close();
  });

  it('gives a restored game the players of pairings imported while the daemon was down', () => {
    const { file, config } = setup();
    start(file, config).store.close();
    const store = open(file);
    const round1 = store.round(store.upsertTournament(tournamentSetup(config)), 1)!;
    const player = (name: string) => ({ name, title: null, rating: 2500, federation: 'SLO', fideId: null });
    store.replacePairings(round1.id, [{ table: 2, white: player('Novak, Ana'), black: player('Kranjc, Eva') }]);
    store.close();
    const hall = start(file, config);
    expect(hall.rebuilt.fromCheckpoint).toBe(TABLES.length);
    expect(hall.live.game('r1-t2')?.white.name).toBe('Novak, Ana');
    expect(games(hall.live)).toEqual(wholeReplay(file, config).games);
    hall.store.close();
    // The snapshot was written again with them: the verification finds nothing.
    expect(verify(file, config).differences).toEqual([]);
  });

  it('keeps a swap of colours and its undo on a restored game across restarts', () => {
    const { file, config } = setup();
    start(file, config).store.close();
    const hall = start(file, config);
    const white = hall.live.game('r1-t3')!.white.name;
    const decide = gameActionHandler({ store: hall.store, tournamentId: hall.tournamentId, router: hall.router, reconcile: hall.derived.reconcile });
    expect(decide('r1-t3', { kind: 'swap-colours', reason: 'test: players sat the wrong way', arbiter: 'A. Arbiter' }).ok).toBe(true);
    expect(hall.live.game('r1-t3')!.black.name).toBe(white);
    const swap = hall.store.amendments().at(-1)!.id;
    hall.store.close();
    const after = start(file, config);
    expect(after.live.game('r1-t3')!.black.name).toBe(white);
    expect(games(after.live)).toEqual(wholeReplay(file, config).games);
    const undo = gameActionHandler({ store: after.store, tournamentId: after.tournamentId, router: after.router, reconcile: after.derived.reconcile });
    expect(undo('r1-t3', { kind: 'undo', amendment: swap, reason: 'test: they had not', arbiter: 'A. Arbiter' }).ok).toBe(true);
    expect(after.live.game('r1-t3')!.white.name).toBe(white);
    after.store.close();
    const again = start(file, config);
    expect(again.live.game('r1-t3')!.white.name).toBe(white);
    expect(games(again.live)).toEqual(wholeReplay(file, config).games);
    again.store.close();
    expect(verify(file, config).differences).toEqual([]);
  });

  it('replays a table whole when a snapshot was altered, and says so', () => {
    const { file, config } = setup();
    start(file, config).store.close();
    const whole = wholeReplay(file, config);
    withSql(file, (db) => db.prepare(`UPDATE game_snapshots SET state_json = replace(state_json, '"result":"', '"result":"1-0') WHERE live_id = 'r2-t3'`).run());
    warnings.length = 0;
    const hall = start(file, config);
    expect(hall.rebuilt.fromCheckpoint).toBe(TABLES.length - 1);
    expect(warnings.join('\n')).toMatch(/r2-t3 does not match its digest/);
    expect(games(hall.live)).toEqual(whole.games);
    hall.store.close();
  });
});

describe('serving live games from their live snapshots, their tables caught up after (issue 14)', () => {
  /**
   * Three tables, two rounds played and the third under way, written as the daemon writes them
   * (in commit order); `cut` of the third round's events stored before the first start, the rest
   * after it: what the boards sent after the last live snapshot, before a crash.
   */
  function stored(cut: number): { file: string; config: BoardcastConfig; rest: RawEventInput[] } {
    // The hall store setup() writes is not used: only its directory and config.
    const { config } = setup();
    const rows: RawEventInput[] = [];
    const scratch = { appendRawEvents: (batch: readonly RawEventInput[]) => void rows.push(...batch) } as unknown as Store;
    writeHallStore(scratch, { tables: TABLES.length, rounds: 3, thinkMs: 4000, maxPlies: 60, lastRoundPlayed: 0.9, seed: 11 });
    rows.sort((a, b) => a.monoMs - b.monoMs);
    const third = rows.findIndex((r) => r.monoMs >= 2 * 8 * 3_600_000);
    const at = third + Math.floor((rows.length - third) * cut);
    const fresh = join(dirs.at(-1)!, 'live.sqlite');
    const store = open(fresh);
    store.appendRawEvents(rows.slice(0, at));
    store.close();
    return { file: fresh, config, rest: rows.slice(at) };
  }

  it('serves them at once as they stood, then the catch-up makes every game what a whole replay gives', () => {
    const { file, config, rest } = stored(0.5);
    const first = start(file, config);
    liveSnapshotWriter(first.store, first.router, log)();
    const atSnapshot = games(first.live);
    first.store.close();
    // The boards went on after the snapshot; then the daemon was killed.
    const more = open(file);
    more.appendRawEvents(rest);
    more.close();

    const second = start(file, config);
    expect(second.rebuilt.deferred.map((d) => d.table)).toEqual(TABLES);
    expect(second.rebuilt.events).toBe(0);
    // Served as they stood at the snapshot: every game present, the live ones with no engine yet.
    expect(games(second.live)).toEqual(atSnapshot);
    for (const t of TABLES) expect(second.live.hasEngine(`r3-t${t}`)).toBe(false);
    expect(second.catchUp.state()).toMatchObject({ tables: 3, pending: 3 });
    for (const t of TABLES) second.catchUp.settle(t);
    expect(second.catchUp.state()).toMatchObject({ tables: 3, pending: 0 });
    const whole = wholeReplay(file, config);
    expect(games(second.live)).toEqual(whole.games);
    expect(games(second.live)).not.toEqual(atSnapshot);
    // The moves of the events after the snapshot are in the store now.
    const round3 = second.store.round(second.tournamentId, 3)!.id;
    for (const t of TABLES) expect(second.store.moves(second.store.gameIdsAt(round3, t)[0]!).length).toBe((whole.games[`r3-t${t}`] as { ply: number }).ply);
    second.store.close();
    expect(verify(file, config).differences).toEqual([]);
  });

  it('holds a table’s board events until it is caught up, and an arbiter’s decision catches it up at once', () => {
    const { file, config, rest } = stored(1);
    expect(rest).toEqual([]);
    const first = start(file, config);
    liveSnapshotWriter(first.store, first.router, log)();
    first.store.close();
    const hall = start(file, config);
    expect(hall.catchUp.state().pending).toBe(3);
    const decide = gameActionHandler({ store: hall.store, tournamentId: hall.tournamentId, router: hall.router, reconcile: hall.derived.reconcile });
    expect(decide('r3-t2', { kind: 'result', result: '1/2-1/2', reason: 'test: a draw agreed', arbiter: 'A. Arbiter' }).ok).toBe(true);
    expect(hall.catchUp.pending(2)).toBe(false);
    expect(hall.catchUp.pending(1)).toBe(true);
    expect(hall.live.game('r3-t2')).toMatchObject({ result: '1/2-1/2', status: 'finished' });
    for (const t of TABLES) hall.catchUp.settle(t);
    expect(games(hall.live)).toEqual(wholeReplay(file, config).games);
    // A decision since the snapshots: none of them is served at the next start (it would not show it).
    hall.store.close();
    const next = start(file, config);
    expect(next.rebuilt.deferred).toEqual([]);
    expect(next.live.game('r3-t2')?.result).toBe('1/2-1/2');
    next.store.close();
  });
});

describe('a store written by an earlier release (schema 2, clock readings as whole JSON)', () => {
  it('is migrated, replayed whole once, and then starts from checkpoints, with the same games as a store written now', () => {
    const { file, config } = setup();
    const now = wholeReplay(file, config).games;
    // The same raw events as the release before this one wrote them: no checkpoint or snapshot
    // tables, schema version 2, every event its whole JSON.
    const old = join(dirs.at(-1)!, 'old.sqlite');
    const created = open(old);
    created.close();
    withSql(old, (db) => {
      db.exec('DROP TABLE table_checkpoints; DROP TABLE game_snapshots; DROP TABLE live_snapshots; PRAGMA user_version = 2;');
      const insert = db.prepare('INSERT INTO raw_events (id, table_number, board_serial, mono_ms, wall_ms, kind, event_json, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      const source = open(file);
      db.transaction(() => {
        for (const t of TABLES)
          for (const e of source.readRawEvents(t))
            insert.run(e.id, e.tableNumber, e.boardSerial, e.monoMs, e.wallMs, e.event?.type ?? 'undecoded', e.event ? JSON.stringify(e.event) : null, Buffer.from(e.raw));
      })();
      source.close();
    });
    expect(withSql(old, (db) => db.prepare("SELECT event_json FROM raw_events WHERE kind = 'clock' LIMIT 1").pluck().get())).toMatch(/^\{"type":"clock"/);
    const first = start(old, config);
    expect(first.store.settings().schemaVersion).toBe(SCHEMA_VERSION);
    expect(first.rebuilt.fromCheckpoint).toBe(0);
    expect(games(first.live)).toEqual(now);
    first.store.close();
    const second = start(old, config);
    expect(second.rebuilt.fromCheckpoint).toBe(TABLES.length);
    expect(games(second.live)).toEqual(now);
    second.store.close();
  });
});

function verify(file: string, config: BoardcastConfig): VerificationResult {
  const store = open(file);
  try {
    const steps = verifyStore(store, config, TABLES, hallPairings(store, config, null));
    let r = steps.next();
    while (!r.done) r = steps.next();
    return r.value;
  } finally {
    store.close();
  }
}

describe('the verification: a whole replay compared with what the store derived (issue 14)', () => {
  it('finds nothing on a sound store, and names an altered move row and an altered snapshot', () => {
    const { file, config } = setup();
    start(file, config).store.close();
    const sound = verify(file, config);
    expect(sound.games).toBe(TABLES.length * 2);
    expect(sound.events).toBeGreaterThan(5_000);
    expect(sound.differences).toEqual([]);

    // A move row changed behind the daemon's back (not the raw events: they cannot be updated).
    withSql(file, (db) => {
      const id = db.prepare(`SELECT m.id FROM moves m JOIN games g ON g.id = m.game_id WHERE g.table_number = 1 AND m.ply = 3 ORDER BY g.id LIMIT 1`).pluck().get() as number;
      db.prepare(`UPDATE moves SET san = 'Qh5', uci = 'd1h5' WHERE id = ?`).run(id);
    });
    withSql(file, (db) => db.prepare(`UPDATE game_snapshots SET state_json = replace(state_json, '"ply":1,', '"ply":1,"x":1,') WHERE live_id = 'r1-t3'`).run());
    const found = verify(file, config).differences;
    expect(found).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ gameId: 'r1-t1', row: 'moves', detail: expect.stringMatching(/^ply 3: Qh5 \(d1h5\) stored, /) }),
        expect.objectContaining({ gameId: 'r1-t3', row: 'snapshot' }),
      ]),
    );
  });

  it('runs in slices between other work and gives the same result', async () => {
    const { file, config } = setup();
    start(file, config).store.close();
    const store = open(file);
    // Other work scheduled beside it gets turns while it runs.
    let turns = 0;
    let finished = false;
    const other = (): void => {
      turns++;
      if (!finished) setImmediate(other);
    };
    setImmediate(other);
    const result = await new Promise<VerificationResult>((resolve, reject) => runInBackground(verifyStore(store, config, TABLES, hallPairings(store, config, null)), resolve, reject, 0));
    finished = true;
    store.close();
    expect(turns).toBeGreaterThanOrEqual(2);
    expect(result.differences).toEqual([]);
  });

  it('a daemon restarted on a store with an altered derived row reports it on /health and in its log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'boardcast-verify-daemon-'));
    dirs.push(dir);
    const cfg = parseConfig(
      {
        event: { name: 'verify' },
        rounds: { count: 3, start: 'board' },
        timeControl: '90+30',
        dataDir: join(dir, 'data'),
        // Boards on paths that are not there: the tables retry, the stored games are served.
        tables: TABLES.map((n) => ({ number: n, board: join(dir, `tty${n}`) })),
      },
      null,
      dir,
    );
    if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
    const config = cfg.value;
    const file = join(config.dataDir, 'boardcast.sqlite');
    const store = openStore(file, { allowNew: true });
    if (!store.ok) throw new Error(store.error.message);
    writeHallStore(store.value, { tables: TABLES.length, rounds: 3, thinkMs: 4000, maxPlies: 60, lastRoundPlayed: 0.5, seed: 7 });
    store.value.close();
    const lines: string[] = [];
    const run = async () => {
      const started = await startDaemon({ config, log: createLogger({ write: (_l, line) => lines.push(line) }), port: 0, host: '127.0.0.1', viewer: false });
      if (!started.ok) throw new Error(started.error);
      return started.value;
    };
    type Health = { store: { verification: { state: string; games: number; differences: { gameId: string; row: string }[] } } };
    const first = await run();
    const passed = await eventually(async () => ((await getJson<Health>(`${first.url}/health`)).store.verification.state === 'passed' ? true : undefined), 30_000, 'verification passed');
    expect(passed).toBe(true);
    await first.stop();

    withSql(file, (db) => db.prepare(`UPDATE games SET result = '1-0' WHERE table_number = 2 AND id = (SELECT MIN(id) FROM games WHERE table_number = 2)`).run());
    lines.length = 0;
    const second = await run();
    expect(second.rebuilt.games).toBe(TABLES.length * 3);
    const h = await eventually(
      async () => {
        const r = await getJson<Health>(`${second.url}/health`);
        return r.store.verification.state === 'running' ? undefined : r;
      },
      30_000,
      'verification done',
    );
    await second.stop();
    expect(h.store.verification.state).toBe('differences');
    expect(h.store.verification.differences).toEqual([expect.objectContaining({ gameId: 'r1-t2', row: 'game' })]);
    expect(lines.join('\n')).toMatch(/store verification: a derived row differs/);
  });
});
