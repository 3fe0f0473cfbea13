import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { startDaemon, type RunningDaemon } from '../../daemon/app/daemon.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { parseConfig } from '../../daemon/tournament/config.ts';
import { encode, FEED_PATH, type Scope } from '../../protocols/feed/messages.ts';

/**
 * `npm run bench -- scale`: the whole daemon (issue 14) against the number of boards and of
 * viewers. Each run starts `serve`'s daemon in this process on the embedded demo hall with N
 * emulated tables: real games at their real pace, every byte through the emulated serial port,
 * the DGT decoder, the board session, the store (WAL, synchronous=FULL), the engines and the
 * feed. After a warm-up, the daemon's CPU (this process: the emulators are included, they are
 * part of the load here) and RSS are sampled for the measuring window, and the raw events the
 * store committed are counted. With viewers, V websocket clients in two child processes subscribe
 * (by default 80 % one game, 10 % a round, 10 % the tournament; SCALE_WIDE_PERCENT sets the share
 * of the two wide scopes together) and time each move from its board event (the move's `at`,
 * wall time) to its arrival.
 *
 * Knobs (env): SCALE_BOARDS ("100,250,500,1000"), SCALE_VIEWERS ("0,2000,10000" against the
 * largest board count), SCALE_SECONDS (20), SCALE_WARMUP_SECONDS (10), SCALE_WAVE_SECONDS (20: how
 * long a wave of viewers may take to connect before the next starts).
 */

const list = (k: string, d: number[]): number[] => (process.env[k] ? process.env[k]!.split(',').map(Number) : d);
const BOARDS = list('SCALE_BOARDS', [100, 250, 500, 1000]);
const VIEWERS = list('SCALE_VIEWERS', [0, 2000, 10000]);
const SECONDS = Number(process.env.SCALE_SECONDS ?? 20);
const WARMUP = Number(process.env.SCALE_WARMUP_SECONDS ?? 10);
const WAVE_MS = Number(process.env.SCALE_WAVE_SECONDS ?? 20) * 1000;
const CHILD = process.env.BOARDCAST_SCALE_BENCH_CHILD === '1';
const MOVE = /"change":\{"kind":"move","gameId":"[^"]+","move":\{[^}]*"at":(\d+)/;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Latencies as a histogram: [ms, count] pairs (millions of deliveries, too many to send one by one). */
type FromChild = { type: 'ready'; connected: number; failed: number } | { type: 'latencies'; histogram: [number, number][] };

/** Per cent of viewers on a wide scope (half the tournament, half round 1); the others follow one game. */
const WIDE = Number(process.env.SCALE_WIDE_PERCENT ?? 20);

function scopeFor(i: number, tables: number): Scope {
  const r = i % 200;
  if (r < WIDE) return { kind: 'tournament' };
  if (r < 2 * WIDE) return { kind: 'round', round: 1 };
  return { kind: 'game', gameId: `r1-t${(i % tables) + 1}` };
}

/** Child: `count` viewers; measures move deltas from `from` on, reports when told to stop. */
async function runViewers(): Promise<void> {
  const url = process.env.SCALE_URL!;
  const count = Number(process.env.SCALE_COUNT);
  const tables = Number(process.env.SCALE_TABLES);
  const histogram = new Map<number, number>();
  let measuring = false;
  let connected = 0;
  let failed = 0;
  const sockets: WebSocket[] = [];
  // Viewers arrive in waves of BATCH (a hall's spectators do not all connect in the same
  // millisecond); each wave waits for its snapshots.
  const BATCH = 250;
  for (let from = 0; from < count; from += BATCH) await wave(from, Math.min(count, from + BATCH));
  async function wave(from: number, to: number): Promise<void> {
    await new Promise<void>((done) => {
      // A wave that has not all connected in time goes on without the rest (reported as not connected).
      setTimeout(done, WAVE_MS).unref();
      let pending = to - from;
      const settle = (): void => {
        if (--pending === 0) done();
      };
      for (let i = from; i < to; i++) {
        // No permessage-deflate: a browser inflates in its own process, while here thousands of
        // sockets would queue on this process's few zlib threads and the load generator, not the
        // daemon, would set the pace.
        const ws = new WebSocket(url, { perMessageDeflate: false });
        let first = true;
        ws.on('open', () => ws.send(encode({ v: 1, type: 'subscribe', scope: scopeFor(i + Number(process.env.SCALE_OFFSET), tables) })));
        ws.on('message', (data) => {
          if (first) {
            first = false;
            connected++;
            settle();
            return;
          }
          if (!measuring) return;
          const m = MOVE.exec((data as Buffer).toString('utf8'));
          if (m) {
            const ms = Math.max(0, Date.now() - Number(m[1]));
            histogram.set(ms, (histogram.get(ms) ?? 0) + 1);
          }
        });
        const lost = (): void => {
          if (first) {
            first = false;
            failed++;
            settle();
          }
        };
        ws.on('error', lost);
        ws.on('close', lost);
        sockets.push(ws);
      }
    });
  }
  process.send!({ type: 'ready', connected, failed } satisfies FromChild);
  process.on('message', (m: { type: string }) => {
    if (m.type === 'measure') measuring = true;
    if (m.type === 'stop') {
      process.send!({ type: 'latencies', histogram: [...histogram] } satisfies FromChild, () => {
        for (const s of sockets) s.terminate();
        process.exit(0);
      });
    }
  });
}

async function start(root: string, boards: number): Promise<RunningDaemon> {
  const cfg = parseConfig(
    {
      event: { name: `scale ${boards}` },
      rounds: { count: 3 },
      timeControl: '90+30',
      dataDir: join(root, `data-${boards}-${Date.now()}`),
      emulate: { count: boards },
      feed: { maxConnections: 20_000, maxConnectionsPerIp: 20_000 },
      store: { verifyAfterStart: false },
    },
    null,
    root,
  );
  if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
  const d = await startDaemon({ config: cfg.value, log: createLogger({ write: () => {} }), port: 0, host: '127.0.0.1', viewer: false });
  if (!d.ok) throw new Error(d.error);
  return d.value;
}

async function measure(d: RunningDaemon, viewers: number, boards: number): Promise<string> {
  const children: ChildProcess[] = [];
  const procs = viewers > 0 ? 2 : 0;
  const ready: Promise<FromChild>[] = [];
  for (let p = 0; p < procs; p++) {
    const child = fork(fileURLToPath(import.meta.url), {
      env: {
        ...process.env,
        BOARDCAST_SCALE_BENCH_CHILD: '1',
        SCALE_URL: d.url.replace(/^http/, 'ws') + FEED_PATH,
        SCALE_COUNT: String(viewers / procs),
        SCALE_TABLES: String(boards),
        SCALE_OFFSET: String(p),
      },
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(child);
    ready.push(new Promise((r) => child.once('message', (m: FromChild) => r(m))));
  }
  const connected = (await Promise.all(ready)).reduce((n, m) => n + (m.type === 'ready' ? m.connected : 0), 0);
  await sleep(WARMUP * 1000);
  for (const c of children) c.send({ type: 'measure' });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const events0 = d.store.lastRawEventId();
  let rssMax = 0;
  for (let s = 0; s < SECONDS; s++) {
    await sleep(1000);
    rssMax = Math.max(rssMax, process.memoryUsage().rss);
  }
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  const events = d.store.lastRawEventId() - events0;
  const merged = new Map<number, number>();
  for (const h of await Promise.all(
    children.map(
      (c) =>
        new Promise<[number, number][]>((r) => {
          c.once('message', (m: FromChild) => r(m.type === 'latencies' ? m.histogram : []));
          c.send({ type: 'stop' });
        }),
    ),
  ))
    for (const [ms, n] of h) merged.set(ms, (merged.get(ms) ?? 0) + n);
  const buckets = [...merged].sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((n, [, c]) => n + c, 0);
  const at = (p: number): number => {
    let seen = 0;
    for (const [ms, c] of buckets) if ((seen += c) > (p / 100) * total) return ms;
    return buckets.at(-1)?.[0] ?? NaN;
  };
  const live = d.tables().filter((t) => t.state === 'live').length;
  const cpuPct = (100 * (cpu.user + cpu.system)) / 1000 / wall;
  const lat = viewers > 0 ? ` | ${total} | ${at(50)} / ${at(99)} / ${buckets.at(-1)?.[0] ?? NaN}` : ' | – | –';
  return `${boards} (${live} live) | ${viewers > 0 ? `${connected} of ${viewers}` : 0} | ${((events * 1000) / wall).toFixed(0)} | ${cpuPct.toFixed(0)} % | ${(rssMax / 2 ** 20).toFixed(0)} MiB${lat}`;
}

export default async function scaleBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'boardcast-bench-scale-'));
  try {
    console.log(`command: npm run bench -- scale (warm-up ${WARMUP} s, measured ${SECONDS} s; the daemon process includes the emulated boards; ${WIDE} % of viewers on the round or the tournament)`);
    console.log('boards | viewers connected | raw events/s stored | daemon CPU (of one core) | daemon RSS max | move deltas timed | board event → viewer p50 / p99 / max ms');
    const runs: [number, number][] = [...BOARDS.map((b): [number, number] => [b, 0]), ...VIEWERS.filter((v) => v > 0).map((v): [number, number] => [Math.max(...BOARDS), v])];
    for (const [boards, viewers] of runs) {
      const d = await start(root, boards);
      try {
        console.log(await measure(d, viewers, boards));
      } finally {
        await d.stop();
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (CHILD) void runViewers();
