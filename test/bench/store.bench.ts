import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RawEventWriter } from '../../daemon/store/raw-event-writer.ts';
import { openStore } from '../../daemon/store/store.ts';
import type { RawEventInput } from '../../daemon/store/types.ts';
import type { PieceCode } from '../../protocols/dgt/squares.ts';

// Sustained raw-event inserts per second with the store's real durability settings (WAL +
// synchronous=FULL: one fsync per commit), committed per event-loop tick by RawEventWriter as the
// runtime does. The producer offers events at a fixed rate, so — as with real serial ports — the
// events that arrive while one commit's fsync runs form the next tick's batch (group commit).
// Figures depend on fsync latency: run it on the disk the hall will use
// (`BOARDCAST_BENCH_DIR=/var/lib/boardcast npm run bench -- store`).

const SECONDS = 3;

function frame(i: number): RawEventInput {
  const table = (i % 40) + 1;
  const at = i * 7;
  return {
    tableNumber: table,
    boardSerial: String(12000 + table),
    monoMs: at,
    wallMs: 1_783_152_000_000 + at,
    event:
      i % 3 === 0
        ? { type: 'clock', at, whiteMs: 5_400_000 - at, blackMs: 5_000_000, running: 'white', whiteFlag: false, blackFlag: false }
        : { type: 'field', at, field: i % 64, piece: (i % 13) as PieceCode },
    raw: i % 3 === 0 ? Uint8Array.from([0x8d, 0, 10, 1, 0x29, 0x59, 1, 0x30, 0, 9]) : Uint8Array.from([0x8e, 0, 5, i % 64, i % 13]),
  };
}

interface Figures {
  rate: number;
  commits: number;
  meanBatch: number;
  p50Ms: number;
  p99Ms: number;
  maxPending: number;
}

/** `offered`: events per second the producer offers (Infinity: 2,000 per tick, as fast as possible). */
async function run(offered: number, synchronous: 'FULL' | 'NORMAL'): Promise<Figures> {
  const dir = mkdtempSync(join(process.env.BOARDCAST_BENCH_DIR ?? tmpdir(), 'boardcast-bench-'));
  const opened = openStore(join(dir, 'bench.sqlite'), { synchronous });
  if (!opened.ok) throw new Error(opened.error.message);
  const store = opened.value;
  const pool = Array.from({ length: 3000 }, (_, i) => frame(i));
  const pushedAt: number[] = []; // per event: when it was offered (ms)
  const latencies: number[] = [];
  let committed = 0;
  let commits = 0;
  let maxPending = 0;
  const now = () => performance.now();
  const writer = new RawEventWriter(store, {
    onCommitted: (b) => {
      const t = now();
      for (let i = 0; i < b.length; i++) latencies.push(t - pushedAt[committed + i]!);
      committed += b.length;
      commits++;
    },
  });
  const t0 = now();
  let produced = 0;
  while (now() - t0 < SECONDS * 1000) {
    const due = offered === Infinity ? produced + 2000 : Math.floor(((now() - t0) / 1000) * offered);
    const t = now();
    for (; produced < due; produced++) {
      writer.push(pool[produced % pool.length]!);
      pushedAt.push(t);
    }
    maxPending = Math.max(maxPending, writer.pending);
    await new Promise<void>((r) => setImmediate(r));
  }
  writer.close();
  const seconds = (now() - t0) / 1000;
  store.close();
  rmSync(dir, { recursive: true, force: true });
  latencies.sort((a, b) => a - b);
  return {
    rate: committed / seconds,
    commits,
    meanBatch: committed / commits,
    p50Ms: latencies[Math.floor(latencies.length * 0.5)] ?? 0,
    p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
    maxPending,
  };
}

export default async function storeBench(): Promise<void> {
  console.log(`raw-event inserts, ${SECONDS} s per run, WAL journal, one transaction per tick (RawEventWriter)`);
  console.log('offered/s   sync    committed/s  commits/s  mean batch  commit p50 ms  p99 ms  max queued');
  const runs: [number, 'FULL' | 'NORMAL'][] = [
    [1_000, 'FULL'],
    [10_000, 'FULL'],
    [50_000, 'FULL'],
    [100_000, 'FULL'],
    [Infinity, 'FULL'],
    [50_000, 'NORMAL'],
    [Infinity, 'NORMAL'],
  ];
  for (const [offered, sync] of runs) {
    const f = await run(offered, sync);
    console.log(
      [
        (offered === Infinity ? 'max' : String(offered)).padStart(9),
        sync.padEnd(6),
        Math.round(f.rate).toString().padStart(12),
        Math.round(f.commits / SECONDS)
          .toString()
          .padStart(9),
        f.meanBatch.toFixed(1).padStart(11),
        f.p50Ms.toFixed(1).padStart(14),
        f.p99Ms.toFixed(1).padStart(7),
        String(f.maxPending).padStart(11),
      ].join('  '),
    );
  }
}
