import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDaemon } from '../../daemon/app/daemon.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import type { GameState } from '../../protocols/feed/model.ts';
import type { Timeline } from '../../protocols/feed/timeline.ts';
import { eventually, getJson } from './daemon-child.ts';
import { randomGame } from '../../daemon/simulation/games/random.ts';
import { NOISE_MODELS, playNoisy, sessionEvents, type NoiseModel } from '../../daemon/simulation/noisy-player/player.ts';
import { hallRouter, newLiveSource } from '../../daemon/runtime/store-replay.ts';
import { gameTimeline } from '../../daemon/runtime/timeline.ts';
import { RawEventWriter } from '../../daemon/store/raw-event-writer.ts';
import { openStore, type Store } from '../../daemon/store/store.ts';
import { parseConfig, tournamentSetup, type BoardcastConfig } from '../../daemon/tournament/config.ts';

const root = mkdtempSync(join(tmpdir(), 'boardcast-timeline-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function hallConfig(tables: number): BoardcastConfig {
  const c = parseConfig(
    {
      event: { name: 'timeline test' },
      rounds: { count: 1 },
      timeControl: '90+30',
      tables: Array.from({ length: tables }, (_, i) => ({ number: i + 1, board: `/dev/ttyUSB${i}` })),
    },
    null,
    root,
  );
  if (!c.ok) throw new Error(c.error.messages.join('\n'));
  return c.value;
}

function newStore(name: string, config: BoardcastConfig): Store {
  const opened = openStore(join(root, `${name}.sqlite`));
  if (!opened.ok) throw new Error(opened.error.message);
  opened.value.upsertTournament(tournamentSetup(config));
  return opened.value;
}

/** What the live engine showed after one event: the state an arbiter's replay must show again. */
interface Seen {
  fen: string;
  ply: number;
  moves: string;
  incidents: number;
  result: string;
}

describe('the arbiter timeline replays what the live engine showed', () => {
  it('for 100 noisy games, the replay state at every event equals the live state at that event', () => {
    const games = 100;
    const config = hallConfig(games);
    const store = newStore('property', config);
    // Live: each board event straight into a router, never through the store.
    const live = newLiveSource(config);
    const router = hallRouter(config, live);
    const seen = new Map<number, Seen[]>();
    const writer = new RawEventWriter(store, { onCommitted: () => {} });
    for (let t = 1; t <= games; t++) {
      const model: NoiseModel = NOISE_MODELS[t % NOISE_MODELS.length]!;
      let script = playNoisy(randomGame(1000 + t, { chess960: t % 10 === 0 }), { model, seed: t });
      // Scripts that need an arbiter's decision are covered where decisions are stored (hall-router tests).
      if (script.arbiter.length > 0) script = playNoisy(randomGame(1000 + t), { model: 'mixed', seed: t });
      const states: Seen[] = [];
      let id = 0;
      for (const ev of sessionEvents(script)) {
        writer.push({ tableNumber: t, boardSerial: null, monoMs: ev.at, wallMs: 1_763_700_000_000 + Math.round(ev.at), event: ev, raw: new Uint8Array(0) });
        const gameId = router.route(t, ev, ++id);
        const g = gameId ? live.game(gameId) : undefined;
        states.push(
          g ? { fen: g.fen, ply: g.ply, moves: g.moves.map((m) => m.san).join(' '), incidents: g.incidents.length, result: g.result } : { fen: '', ply: -1, moves: '', incidents: 0, result: '' },
        );
      }
      seen.set(t, states);
    }
    writer.close();

    let compared = 0;
    for (let t = 1; t <= games; t++) {
      const timeline = gameTimeline(store, config, `r1-t${t}`);
      expect(timeline, `table ${t}`).toBeDefined();
      const states = seen.get(t)!;
      // The timeline starts with the game's first event; the live list holds every event.
      const offset = states.findIndex((s) => s.ply >= 0);
      const events = timeline!.steps.filter((s) => s.kind === 'event');
      expect(events.length, `table ${t} events`).toBe(states.length - offset);
      events.forEach((step, i) => {
        const want = states[offset + i]!;
        const got = { fen: step.engine.fen, ply: step.engine.ply, moves: step.moves.join(' '), incidents: timeline!.incidents.filter((x) => x.step <= step.index).length, result: step.engine.result };
        if (JSON.stringify(got) !== JSON.stringify(want)) expect(got, `table ${t}, event ${i}`).toEqual(want);
        compared++;
      });
    }
    expect(compared).toBeGreaterThan(10_000);
    store.close();
  }, 120_000);

  it('shows an illegal move where it happened: the article, the rules in force, the squares where board and engine differ', () => {
    const config = hallConfig(1);
    const store = newStore('illegal', config);
    // A player completes an illegal move (presses the clock), then it is put right on the board.
    const script = playNoisy(randomGame(7), { model: 'illegal-completed', seed: 3 });
    expect(script.arbiter).toEqual([]);
    const writer = new RawEventWriter(store, { onCommitted: () => {} });
    for (const ev of sessionEvents(script)) writer.push({ tableNumber: 1, boardSerial: '12001', monoMs: ev.at, wallMs: 1_763_700_000_000 + Math.round(ev.at), event: ev, raw: new Uint8Array(0) });
    writer.close();
    const timeline = gameTimeline(store, config, 'r1-t1')!;
    expect(timeline.rules).toEqual({ edition: '2018', category: 'standard', chess960: false });
    const illegal = timeline.incidents.find((i) => i.kind === 'illegal-move');
    expect(illegal, JSON.stringify(timeline.incidents)).toBeDefined();
    expect(illegal!.article).toMatch(/^7\.5/);
    const at = timeline.steps[illegal!.step]!;
    // The board shows the illegal move, the engine still holds the legal position.
    expect(at.differ.length).toBeGreaterThanOrEqual(1);
    expect(at.sensors).not.toBe(at.engine.fen.split(' ')[0]);
    // Put right later: board and engine agree again by the end of the game.
    const last = timeline.steps[timeline.steps.length - 1]!;
    expect(last.differ).toEqual([]);
    expect(last.moves.length).toBe(script.expected.sans.length);
    expect(timeline.steps.every((s, i) => s.index === i)).toBe(true);
    store.close();
  });

  it('knows no game the store does not hold', () => {
    const config = hallConfig(1);
    const store = newStore('empty', config);
    expect(gameTimeline(store, config, 'r1-t1')).toBeUndefined();
    expect(gameTimeline(store, config, 'nonsense')).toBeUndefined();
    store.close();
  });
});

describe('GET /api/arbiter/games/:id/timeline on a running daemon', () => {
  it('answers the arbiter with the steps of the game so far, and nobody else', async () => {
    const token = 'timeline-test-token';
    process.env.BOARDCAST_ARBITER_TOKEN = token;
    const cfg = parseConfig(
      { event: { name: 'timeline daemon' }, rounds: { count: 1 }, timeControl: '90+30', dataDir: join(root, 'daemon'), emulate: { count: 1, games: 'random', seed: 4 } },
      null,
      root,
    );
    if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
    const started = await startDaemon({ config: cfg.value, log: createLogger({ write: () => {} }), port: 0, host: '127.0.0.1', pace: 60, viewer: false });
    if (!started.ok) throw new Error(started.error);
    const daemon = started.value;
    try {
      await eventually(async () => ((await getJson<GameState>(`${daemon.url}/api/games/r1-t1`)).ply >= 4 ? true : undefined), 30_000, 'four plies');
      const anonymous = await fetch(`${daemon.url}/api/arbiter/games/r1-t1/timeline`);
      expect(anonymous.status).toBe(401);
      const wrong = await fetch(`${daemon.url}/api/arbiter/games/r1-t1/timeline`, { headers: { authorization: 'Bearer nope' } });
      expect(wrong.status).toBe(401);
      const res = await fetch(`${daemon.url}/api/arbiter/games/r1-t1/timeline`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      const t = (await res.json()) as Timeline;
      expect(t).toMatchObject({ gameId: 'r1-t1', round: 1, table: 1, rules: { edition: '2018', category: 'standard', chess960: false } });
      const moves = t.steps.flatMap((s) => s.produced.filter((p) => p.kind === 'move'));
      expect(moves.length).toBeGreaterThanOrEqual(4);
      // Frames from the (emulated) serial line keep their bytes.
      expect(t.steps.some((s) => s.raw.length > 0)).toBe(true);
      const unknown = await fetch(`${daemon.url}/api/arbiter/games/r9-t9/timeline`, { headers: { authorization: `Bearer ${token}` } });
      expect(unknown.status).toBe(404);
    } finally {
      await daemon.stop();
      delete process.env.BOARDCAST_ARBITER_TOKEN;
    }
  }, 60_000);
});
