import os from 'node:os';
import { DgtDecoder } from '../../protocols/dgt/index.ts';
import { encodeStream, liveMessage, Rng } from '../protocols/dgt/stream-gen.ts';

/**
 * `npm run bench -- decoder`: DgtDecoder throughput on a live-game-like stream (≈55% field
 * updates, ≈38% clock times, ≈4% board dumps, a few clock ACKs by count), pushed in chunks of
 * several sizes for ~2 s each. One 9600-baud line carries < 1 kB/s, so the target of ≥ 50 MB/s
 * leaves room for hundreds of boards and for replaying stored raw bytes.
 */
export default async function bench(): Promise<void> {
  const r = new Rng(2026);
  const stream = encodeStream(Array.from({ length: 400_000 }, () => liveMessage(r)));
  const bytes = stream.bytes;
  const mb = bytes.length / 1e6;
  console.log('command: npm run bench -- decoder');
  console.log(
    `node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, ${os.cpus().length} cores`,
  );
  console.log(`stream: ${stream.messages.length} messages, ${mb.toFixed(2)} MB, avg ${(bytes.length / stream.messages.length).toFixed(1)} B/frame`);

  for (const [mode, chunkSize] of [
    ['push', 16],
    ['push', 256],
    ['push', 4096],
    ['push', 65536],
    ['pushEach', 16],
    ['pushEach', 4096],
    ['pushEach', 65536],
  ] as const) {
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
    const runOnce = mode === 'push' ? runPush : runEach;
    // Warm-up pass so the JIT has settled.
    runOnce(chunks);
    let passes = 0;
    let frames = 0;
    const start = process.hrtime.bigint();
    const cpu0 = process.cpuUsage();
    let elapsed = 0;
    while (elapsed < 2) {
      frames += runOnce(chunks);
      passes++;
      elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    }
    const cpu = process.cpuUsage(cpu0);
    // CPU seconds of the whole process (GC threads included): on a shared machine wall time
    // also counts time spent waiting for a core.
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    console.log(
      `${mode.padEnd(8)} chunk ${String(chunkSize).padStart(5)} B: ${((mb * passes) / elapsed).toFixed(1).padStart(6)} MB/s wall, ` +
        `${((mb * passes) / cpuSeconds).toFixed(1).padStart(6)} MB/s per CPU-second, ` +
        `${(frames / elapsed / 1e6).toFixed(2)} M frames/s (${passes} passes, ${elapsed.toFixed(2)} s wall, ${cpuSeconds.toFixed(2)} s CPU)`,
    );
  }
}

function runPush(chunks: Uint8Array[]): number {
  const d = new DgtDecoder();
  let n = 0;
  for (const c of chunks) n += d.push(c).length;
  if (d.stats.discardedBytes !== 0) throw new Error('benchmark stream should decode cleanly');
  return n;
}

function runEach(chunks: Uint8Array[]): number {
  const d = new DgtDecoder();
  let n = 0;
  const count = (): void => {
    n++;
  };
  for (const c of chunks) d.pushEach(c, count);
  if (d.stats.discardedBytes !== 0) throw new Error('benchmark stream should decode cleanly');
  return n;
}
