import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDaemon } from '../../daemon/app/daemon.ts';
import { TableWatch } from '../../daemon/app/table-watch.ts';
import { batteryMessage, decodeBwtime } from '../../protocols/dgt/index.ts';
import { problemsFirst, type HallReport, type TableConnection } from '../../protocols/feed/hall.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { parseConfig } from '../../daemon/tournament/config.ts';
import { eventually, getJson } from './daemon-child.ts';

const root = mkdtempSync(join(tmpdir(), 'boardcast-health-'));
// The in-process daemon's server reads the arbiter token from the environment; put back after.
const TOKEN = 'health-test-token';
const tokenBefore = process.env.BOARDCAST_ARBITER_TOKEN;
process.env.BOARDCAST_ARBITER_TOKEN = TOKEN;
afterAll(() => {
  if (tokenBefore === undefined) delete process.env.BOARDCAST_ARBITER_TOKEN;
  else process.env.BOARDCAST_ARBITER_TOKEN = tokenBefore;
  rmSync(root, { recursive: true, force: true });
});

describe('a table watch', () => {
  it('tells live from out of step, counts line noise over reconnects, and says a lost board once', () => {
    let t = 1_000;
    const w = new TableWatch(() => t);
    expect(w.state('live')).toBe('live');
    expect(w.sinceLastEventMs()).toBeNull();
    w.see({ type: 'board', event: { type: 'field', at: 1, field: 3, piece: 0 } });
    t += 250;
    expect(w.sinceLastEventMs()).toBe(250);
    w.see({ type: 'drift', at: 2, fields: [3, 4] });
    expect(w.state('live')).toBe('out-of-step');
    expect(w.outOfStep).toBe(2);
    // The next dump is the board as it is: in step again.
    w.see({ type: 'board', event: { type: 'dump', at: 3, board: new Array(64).fill(0) } });
    expect(w.state('live')).toBe('live');
    const stats = (discardedBytes: number) => ({ frames: 0, discardedBytes, resyncs: 0, badLengths: 0, truncated: 0 });
    w.see({ type: 'decoder-stats', at: 4, stats: stats(10) });
    expect(w.see({ type: 'state', at: 5, state: 'retrying' })).toBe('first-retry');
    expect(w.see({ type: 'state', at: 6, state: 'retrying' })).toBeNull();
    w.see({ type: 'state', at: 7, state: 'connecting' });
    w.see({ type: 'decoder-stats', at: 8, stats: stats(3) });
    expect(w.discardedBytes).toBe(13);
    w.see({ type: 'state', at: 9, state: 'live' });
    expect(w.see({ type: 'state', at: 10, state: 'retrying' })).toBe('first-retry');
  });
});

describe("a table watch's clock and battery", () => {
  const raw = new Uint8Array();
  // BWTIME data bytes: 0:05:00 on both sides; the status byte's bit 5 is "no clock".
  const times = (status: number) => decodeBwtime([0x00, 0x05, 0x00, 0x00, 0x05, 0x00, status]);

  it('says whether a clock is on the board from its readings, and keeps the last battery status', () => {
    let t = 5_000;
    const w = new TableWatch(() => t);
    expect(w.clockConnected).toBeNull();
    expect(w.battery).toBeNull();
    w.see({ type: 'frame', at: 1, message: times(0x01), raw });
    expect(w.clockConnected).toBe(true);
    w.see({ type: 'frame', at: 2, message: times(0x20), raw });
    expect(w.clockConnected).toBe(false);
    // An acknowledgement says nothing of the clock being there.
    w.see({ type: 'frame', at: 3, message: { type: 'clock-zero' }, raw });
    expect(w.clockConnected).toBe(false);
    t = 6_000;
    w.see({ type: 'frame', at: 4, message: batteryMessage([87, 5, 30, 1, 2, 0, 0, 0, 0x01]), raw });
    expect(w.battery).toEqual({ percent: 87, charging: true, at: 6_000 });
    // A bus board's clock reading counts the same.
    w.see({ type: 'frame', at: 5, bus: { ok: true, address: 1, reply: { type: 'bwtime', clock: times(0x00) }, raw }, raw });
    expect(w.clockConnected).toBe(true);
  });
});

describe('the hall order', () => {
  it('puts boards that are away first, then those being read again, then the rest, live last; table order within a state', () => {
    const tables = [
      { table: 1, state: 'live' as const },
      { table: 2, state: 'retrying' as const },
      { table: 3, state: 'out-of-step' as const },
      { table: 4, state: 'idle' as const },
      { table: 5, state: 'searching' as const },
      { table: 6, state: 'retrying' as const },
      { table: 7, state: 'live' as const },
    ];
    expect(problemsFirst(tables).map((t) => t.table)).toEqual([2, 6, 5, 3, 4, 1, 7]);
    expect(tables.map((t) => t.table)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});

describe('/health on a running daemon', () => {
  it('shows each table with the time since its last event and its line noise, and answers 503 once the store cannot write', async () => {
    const cfg = parseConfig({ event: { name: 'health' }, rounds: { count: 1 }, timeControl: '90+30', dataDir: join(root, 'data'), emulate: { count: 2 } }, null, root);
    if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
    const started = await startDaemon({ config: cfg.value, log: createLogger({ write: () => {} }), port: 0, host: '127.0.0.1', pace: 20, viewer: false });
    if (!started.ok) throw new Error(started.error);
    const d = started.value;
    type Health = { ok: boolean; tables: { state: string; sinceLastEventMs: number | null; discardedBytes: number }[]; store: { lastCommitAt: number | null; lastError: string | null } };
    const healthy = await eventually(
      async () => {
        const h = await getJson<Health>(`${d.url}/health`);
        return h.tables.every((t) => t.state === 'live' && t.sinceLastEventMs !== null) && h.store.lastCommitAt !== null ? h : undefined;
      },
      15_000,
      'both tables live',
    );
    expect(healthy.ok).toBe(true);
    expect(healthy.tables.every((t) => t.discardedBytes === 0 && (t.sinceLastEventMs ?? -1) >= 0)).toBe(true);

    // The hall report is the officials': the same connections, with each game's last move.
    expect((await fetch(`${d.url}/api/hall`)).status).toBe(401);
    const asArbiter = { headers: { authorization: `Bearer ${TOKEN}` } };
    const hall = await eventually(
      async () => {
        const h = (await (await fetch(`${d.url}/api/hall`, asArbiter)).json()) as HallReport;
        return h.tables.every((t) => t.lastMove !== null && t.clockConnected === true) ? h : undefined;
      },
      15_000,
      'a move and a clock on both tables',
    );
    const health = await getJson<{ tables: TableConnection[] }>(`${d.url}/health`);
    expect(hall.tables.map((t) => t.table).sort((a, b) => a - b)).toEqual(health.tables.map((t) => t.table));
    for (const t of hall.tables) {
      expect(t.gameId).toBe(d.live.games(1)!.find((g) => g.table === t.table)!.id);
      expect(t.battery).toBeNull();
    }
    expect(health.tables.every((t) => !('lastMove' in t))).toBe(true);
    expect(hall.outputs).toEqual({ liveChessApi: null, lichessPush: null, pgnFolder: null });

    // The store goes away under the daemon (as a disk that fails would take it): commits fail.
    d.store.close();
    const sick = await eventually(
      async () => {
        const res = await fetch(`${d.url}/health`);
        return res.status === 503 ? ((await res.json()) as Health) : undefined;
      },
      15_000,
      '/health to answer 503',
    );
    expect(sick.ok).toBe(false);
    expect(sick.store.lastError).toMatch(/not open/);
    await d.stop().catch(() => undefined);
  }, 40_000);
});
