import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDaemon } from '../../daemon/app/daemon.ts';
import { TableWatch } from '../../daemon/app/table-watch.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { parseConfig } from '../../daemon/tournament/config.ts';
import { eventually, getJson } from './daemon-child.ts';

const root = mkdtempSync(join(tmpdir(), 'boardcast-health-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

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
