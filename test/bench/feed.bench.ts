import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { startServer } from '../../daemon/server/server.ts';
import { decodeServerMessage, encode, type Scope } from '../../protocols/feed/messages.ts';
import { randomGame } from '../../daemon/simulation/games/random.ts';
import { Hall } from '../server/hall.ts';

/**
 * Feed delivery under hall load: TABLES tables playing real moves (Tabletop → GameEngine →
 * MemoryLiveSource → server) and CLIENTS websocket clients on 127.0.0.1. The clients live in a
 * child process (this same file, started with BOARDCAST_FEED_BENCH_CHILD=1) so the server's
 * process is measured alone. Latency = time from the board event that completed a move (taken
 * just before the table's physical actions are pushed) to the client's receipt of its delta, on
 * the machine's shared wall clock (performance.timeOrigin + now()).
 *
 * Knobs (env): FEED_BENCH_TABLES (100), FEED_BENCH_CLIENTS (5000), FEED_BENCH_SECONDS (30),
 * FEED_BENCH_MOVE_EVERY_MS (mean per table, 5000), FEED_BENCH_CLIENT_PROCS (2).
 */

const env = (k: string, d: number): number => {
  const v = Number(process.env[k]);
  return Number.isFinite(v) && v > 0 ? v : d;
};

const wallNow = (): number => performance.timeOrigin + performance.now();
const DELTA_SEQ = /"seq":(\d+)/;
const MOVE_KEY = /"change":\{"kind":"move","gameId":"([^"]+)","move":\{"ply":(\d+)/;

interface ChildReport {
  latencies: number[];
  expected: number;
  missing: number;
  gaps: number;
  resyncs: number;
  failedConnects: number;
}

type ToChild = { type: 'moves'; moves: [string, number, number][] } | { type: 'stop' };
type FromChild = { type: 'ready'; connected: number; failed: number; ms: number } | { type: 'report'; report: ChildReport };

/** Scope of client i: 80 % follow one game, 10 % the round, 10 % the whole tournament. */
function scopeFor(i: number, tables: number): Scope {
  const r = i % 10;
  if (r === 0) return { kind: 'tournament' };
  if (r === 1) return { kind: 'round', round: 1 };
  return { kind: 'game', gameId: `r1-t${(i % tables) + 1}` };
}

function openFdLimit(): string {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const parts = line?.trim().split(/\s+/) ?? [];
    return `${parts[3]} soft / ${parts[4]} hard`;
  } catch {
    return 'unknown';
  }
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

// ---------------------------------------------------------------- child: the clients

async function runClients(): Promise<void> {
  const url = process.env.FEED_BENCH_URL!;
  const from = Number(process.env.FEED_BENCH_FROM);
  const to = Number(process.env.FEED_BENCH_TO);
  const tables = Number(process.env.FEED_BENCH_TABLES);
  const send = (m: FromChild): void => void process.send!(m);
  // Receipts: key index (game:ply) and wall time, per move delta received by any client.
  const keyIndex = new Map<string, number>();
  let recvKey = new Int32Array(1 << 20);
  let recvAt = new Float64Array(1 << 20);
  let n = 0;
  let gaps = 0;
  let resyncs = 0;
  const perScopeClients = new Map<string, number>();
  const record = (key: string, at: number): void => {
    let k = keyIndex.get(key);
    if (k === undefined) keyIndex.set(key, (k = keyIndex.size));
    if (n === recvKey.length) {
      const nk = new Int32Array(n * 2);
      nk.set(recvKey);
      recvKey = nk;
      const na = new Float64Array(n * 2);
      na.set(recvAt);
      recvAt = na;
    }
    recvKey[n] = k;
    recvAt[n] = at;
    n++;
  };
  const sockets: WebSocket[] = [];
  const t0 = Date.now();
  let failed = 0;

  const open = (i: number): Promise<void> =>
    new Promise((resolve) => {
      const scope = scopeFor(i, tables);
      const ws = new WebSocket(url);
      let seq = -1;
      ws.on('open', () => ws.send(encode({ v: 1, type: 'subscribe', scope })));
      ws.on('message', (data) => {
        const at = wallNow();
        const text = (data as Buffer).toString('utf8');
        // Load generator, not the system under test: deltas are read with two regexes so the
        // client process keeps up; snapshots and anything else are parsed and checked in full.
        if (text.startsWith('{"v":1,"type":"delta"') && seq !== -1) {
          const s = Number(DELTA_SEQ.exec(text)?.[1]);
          if (s !== seq + 1) gaps++;
          seq = s;
          const mv = MOVE_KEY.exec(text);
          if (mv) record(`${mv[1]}:${mv[2]}`, at);
          return;
        }
        const d = decodeServerMessage(text);
        if (!d.ok) return;
        const m = d.value;
        if (m.type === 'snapshot') {
          if (seq === -1) {
            const key = m.scope;
            perScopeClients.set(key, (perScopeClients.get(key) ?? 0) + 1);
            resolve();
          } else resyncs++;
          seq = m.seq;
        }
      });
      ws.on('error', () => {
        failed++;
        resolve();
      });
      sockets.push(ws);
    });

  // Connect in batches: a burst of 5,000 handshakes at once only measures the accept queue.
  for (let i = from; i < to; i += 250) {
    const batch: Promise<void>[] = [];
    for (let j = i; j < Math.min(to, i + 250); j++) batch.push(open(j));
    await Promise.all(batch);
  }
  send({ type: 'ready', connected: to - from - failed, failed, ms: Date.now() - t0 });

  process.on('message', (msg: ToChild) => {
    if (msg.type !== 'moves') return;
    // Expected receipts per move: every client of its game scope, plus all round/tournament clients.
    const lat: number[] = [];
    const madeAt = new Map<number, number>();
    let expected = 0;
    for (const [key, at] of msg.moves.map(([g, ply, at]) => [`${g}:${ply}`, at] as const)) {
      const k = keyIndex.get(key);
      const game = key.split(':')[0]!;
      expected += (perScopeClients.get(`game:${game}`) ?? 0) + (perScopeClients.get('round:1') ?? 0) + (perScopeClients.get('tournament') ?? 0);
      if (k !== undefined) madeAt.set(k, at);
    }
    for (let i = 0; i < n; i++) {
      const made = madeAt.get(recvKey[i]!);
      if (made !== undefined) lat.push(recvAt[i]! - made);
    }
    const report: ChildReport = {
      latencies: lat,
      expected,
      missing: expected - lat.length,
      gaps,
      resyncs,
      failedConnects: failed,
    };
    for (const s of sockets) s.terminate();
    // Exit only once the (large) report is handed to the IPC channel.
    process.send!({ type: 'report', report } satisfies FromChild, () => process.exit(0));
  });
}

// ---------------------------------------------------------------- parent: server and hall

export default async function feedBench(): Promise<void> {
  const TABLES = env('FEED_BENCH_TABLES', 100);
  const CLIENTS = env('FEED_BENCH_CLIENTS', 5000);
  const SECONDS = env('FEED_BENCH_SECONDS', 30);
  const MOVE_EVERY = env('FEED_BENCH_MOVE_EVERY_MS', 5000);
  console.log(`feed: ${TABLES} tables, ${CLIENTS} websocket clients (child process), ${SECONDS} s of play, a move every ~${MOVE_EVERY} ms per table`);
  console.log(`open files limit: ${openFdLimit()} (server needs ~${CLIENTS + 50}, the client process as many); ${cpus().length} CPUs`);

  const start = Date.now();
  const hall = new Hall({ tables: TABLES });
  hall.connectAll();
  const games = hall.tables.map((_, i) => randomGame(1000 + i, { maxPlies: 200 }).sans);
  const server = await startServer({ source: hall.source, viewer: false });
  const wsUrl = `${server.url.replace('http', 'ws')}/ws`;

  const PROCS = Math.max(1, Math.min(8, env('FEED_BENCH_CLIENT_PROCS', 2)));
  const children: ChildProcess[] = [];
  for (let p = 0; p < PROCS; p++) {
    const from = Math.floor((CLIENTS * p) / PROCS);
    const to = Math.floor((CLIENTS * (p + 1)) / PROCS);
    children.push(
      fork(fileURLToPath(import.meta.url), [], {
        execArgv: ['--import', 'tsx'],
        env: { ...process.env, BOARDCAST_FEED_BENCH_CHILD: '1', FEED_BENCH_URL: wsUrl, FEED_BENCH_FROM: String(from), FEED_BENCH_TO: String(to), FEED_BENCH_TABLES: String(TABLES) },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
  }
  const fromChild = (child: ChildProcess, type: FromChild['type'], timeoutMs: number): Promise<FromChild> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`client process: no ${type} within ${timeoutMs} ms`)), timeoutMs);
      const on = (m: FromChild): void => {
        if (m.type !== type) return;
        clearTimeout(timer);
        child.off('message', on);
        resolve(m);
      };
      child.on('message', on);
      child.once('exit', (code) => reject(new Error(`client process exited (${code})`)));
    });

  try {
    const readies = await Promise.all(children.map((c) => fromChild(c, 'ready', 180_000)));
    let connected = 0;
    let failedConnects = 0;
    for (const r of readies) {
      if (r.type !== 'ready') continue;
      connected += r.connected;
      failedConnects += r.failed;
    }
    console.log(
      `connected ${connected} clients from ${PROCS} client processes in ${((Date.now() - start) / 1000).toFixed(1)} s (${failedConnects} failed); server sees ${server.hub.stats.connections}; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );

    // Steady state: every table moves at random intervals; clocks report every second, as the
    // DGT clock does in SEND_UPDATE_NICE mode (dgt-protocol.md).
    const moves: [string, number, number][] = [];
    const handedOff: number[] = [];
    const played = new Array<number>(TABLES).fill(0);
    const tableStart = wallNow();
    const cpu0 = process.cpuUsage();
    const t0 = wallNow();
    let maxRss = 0;
    let maxHeap = 0;
    const timers: NodeJS.Timeout[] = [];
    const scheduleMove = (i: number): void => {
      const delay = MOVE_EVERY * (0.5 + Math.random());
      timers[i] = setTimeout(() => {
        const id = hall.tables[i]!.id;
        const san = games[i]![played[i]!];
        if (san === undefined) return;
        const table = hall.table(id);
        const think = Math.max(0, wallNow() - tableStart - table.t - 1200);
        const madeAt = wallNow();
        hall.play(id, san, think);
        // Everything is synchronous: when play() returns, the engine has recognised the move and
        // the server has handed its frame to every subscriber's socket.
        handedOff.push(wallNow() - madeAt);
        played[i]!++;
        moves.push([id, played[i]!, madeAt]);
        scheduleMove(i);
      }, delay);
    };
    for (let i = 0; i < TABLES; i++) scheduleMove(i);
    const clockTick = setInterval(() => {
      for (const t of hall.tables) {
        const reading = t.top.clockAt(Math.max(t.t, wallNow() - tableStart));
        if (reading) hall.push(t.id, reading);
      }
      const mem = process.memoryUsage();
      maxRss = Math.max(maxRss, mem.rss);
      maxHeap = Math.max(maxHeap, mem.heapUsed);
    }, 1000);
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    for (const t of timers) clearTimeout(t);
    clearInterval(clockTick);
    const cpu = process.cpuUsage(cpu0);
    const elapsed = wallNow() - t0;
    // Let in-flight frames arrive before asking for the tally.
    await new Promise((r) => setTimeout(r, 2000));

    const load = loadavg();
    for (const c of children) c.send({ type: 'moves', moves } satisfies ToChild);
    const reps = await Promise.all(children.map((c) => fromChild(c, 'report', 120_000)));
    const all: number[] = [];
    const r = { expected: 0, missing: 0, gaps: 0, resyncs: 0 };
    for (const rep of reps) {
      if (rep.type !== 'report') continue;
      for (const x of rep.report.latencies) all.push(x);
      r.expected += rep.report.expected;
      r.missing += rep.report.missing;
      r.gaps += rep.report.gaps;
      r.resyncs += rep.report.resyncs;
    }
    const sorted = Float64Array.from(all).sort();
    const lat = { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN, count: sorted.length };
    const cpuPct = ((cpu.user + cpu.system) / 1000 / elapsed) * 100;
    const mem = process.memoryUsage();
    console.log(
      `moves played: ${moves.length} (${(moves.length / (elapsed / 1000)).toFixed(1)}/s); frames sent: ${server.hub.stats.framesSent}; lagging resyncs (server): ${server.hub.stats.resyncs}`,
    );
    console.log(`move deltas received: ${lat.count} of ${r.expected} expected (missing ${r.missing}); sequence gaps: ${r.gaps}; resync snapshots: ${r.resyncs}`);
    console.log(
      `delivery latency board event → client: p50 ${lat.p50.toFixed(1)} ms, p90 ${lat.p90.toFixed(1)} ms, p99 ${lat.p99.toFixed(1)} ms, max ${lat.max.toFixed(1)} ms (target p99 < 100 ms: ${lat.p99 < 100 ? 'met' : 'NOT met'})`,
    );
    const h = Float64Array.from(handedOff).sort();
    console.log(
      `in the server process, board event → frames written to all subscribers' sockets: p50 ${percentile(h, 50).toFixed(1)} ms, p99 ${percentile(h, 99).toFixed(1)} ms, max ${(h[h.length - 1] ?? NaN).toFixed(1)} ms`,
    );
    console.log(`server process CPU: ${cpuPct.toFixed(1)} % of one core (user ${(cpu.user / 1e6).toFixed(1)} s, system ${(cpu.system / 1e6).toFixed(1)} s over ${(elapsed / 1000).toFixed(1)} s)`);
    console.log(`server process memory: RSS ${(mem.rss / 2 ** 20).toFixed(0)} MiB now, peak sampled ${(maxRss / 2 ** 20).toFixed(0)} MiB; heap used peak ${(maxHeap / 2 ** 20).toFixed(0)} MiB`);
    console.log(`machine load average at the end of play (2 cores shared with other work): ${load.map((l) => l.toFixed(2)).join(' ')}`);
    console.log(`total bench time ${((Date.now() - start) / 1000).toFixed(1)} s`);
  } finally {
    for (const c of children) c.kill();
    await server.close();
  }
}

if (process.env.BOARDCAST_FEED_BENCH_CHILD === '1') void runClients();
