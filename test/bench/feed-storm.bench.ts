import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { startServer } from '../../daemon/server/server.ts';
import { Hall } from '../server/hall.ts';

/**
 * The reconnect storm: CLIENTS viewers (default 1,000) reconnecting at once (a venue's wifi coming
 * back) and each asking for the whole tournament, whose snapshot is about 160 KB with TABLES
 * tables (default 300). The clients live in a child process so the server is measured alone.
 * Figures: time from a client's connect to its snapshot (p50/p99/max), the whole storm, and how
 * long /health took to answer meanwhile (polled every 50 ms).
 *
 * Knobs (env): STORM_CLIENTS (1000), STORM_TABLES (300).
 */
const env = (k: string, d: number): number => {
  const v = Number(process.env[k]);
  return Number.isFinite(v) && v > 0 ? v : d;
};

const pct = (xs: number[], p: number): number => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;

async function clients(url: string, n: number): Promise<number[]> {
  const times: number[] = [];
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((resolve) => {
          const t0 = performance.now();
          const ws = new WebSocket(url);
          ws.on('open', () => ws.send(JSON.stringify({ v: 1, type: 'subscribe', scope: { kind: 'tournament' } })));
          ws.on('message', (data: Buffer) => {
            if (data.toString('utf8', 0, 40).includes('"type":"snapshot"')) {
              times.push(performance.now() - t0);
              ws.terminate();
              resolve();
            }
          });
          ws.on('error', () => resolve());
        }),
    ),
  );
  return times;
}

if (process.env.STORM_CHILD === '1') {
  process.once('message', (m: { url: string; n: number }) => {
    void clients(m.url, m.n).then((times) => {
      process.send!(times, () => process.exit(0));
    });
  });
}

export default async function run(): Promise<void> {
  const n = env('STORM_CLIENTS', 1000);
  const tables = env('STORM_TABLES', 300);
  const hall = new Hall({ tables });
  hall.connectAll();
  const server = await startServer({ source: hall.source, viewer: false, bridges: false, feed: { maxConnectionsPerIp: n + 10 } });
  const snapshotBytes = JSON.stringify({ tournament: hall.source.tournament(), rounds: hall.source.rounds(), games: hall.source.games(1) }).length;
  const wsUrl = `${server.url.replace('http', 'ws')}/ws`;
  const healthTimes: number[] = [];
  let polling = true;
  const poll = async (): Promise<void> => {
    while (polling) {
      const t0 = performance.now();
      await fetch(`${server.url}/health`).then((r) => r.text());
      healthTimes.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const poller = poll();
  const child = fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, STORM_CHILD: '1' }, execArgv: ['--import', 'tsx'] });
  const t0 = performance.now();
  const times = await new Promise<number[]>((resolve) => {
    child.once('message', (m) => resolve(m as number[]));
    child.send({ url: wsUrl, n });
  });
  const total = performance.now() - t0;
  polling = false;
  await poller;
  await server.close();
  times.sort((a, b) => a - b);
  healthTimes.sort((a, b) => a - b);
  console.log(`storm: ${n} clients at once, tournament snapshot ${(snapshotBytes / 1024).toFixed(0)} KiB (${tables} tables); ${times.length} got it`);
  console.log(
    `connect → snapshot: p50 ${pct(times, 50).toFixed(0)} ms, p99 ${pct(times, 99).toFixed(0)} ms, max ${(times[times.length - 1] ?? NaN).toFixed(0)} ms; whole storm ${total.toFixed(0)} ms`,
  );
  console.log(`/health during the storm: p50 ${pct(healthTimes, 50).toFixed(1)} ms, max ${(healthTimes[healthTimes.length - 1] ?? NaN).toFixed(1)} ms over ${healthTimes.length} polls`);
}
