import { decodeAll } from '../../protocols/dgt/index.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { concatBytes, runScript } from '../../daemon/simulation/emulator/script.ts';
import { randomGame } from '../../daemon/simulation/games/random.ts';
import { playNoisy } from '../../daemon/simulation/noisy-player/player.ts';

/**
 * `npm run bench -- emulator`: how fast the pure emulator replays whole games (UPDATE_NICE, clock
 * polled every 250 ms of emulated time), i.e. how many emulated board-hours a test or the
 * reconstruction matrix gets per wall-clock second.
 */
export default async function bench(): Promise<void> {
  console.log('command: npm run bench -- emulator');
  const scripts = Array.from({ length: 20 }, (_, i) => playNoisy(randomGame(500 + i, {}), { model: 'mixed', seed: i, clock: { baseMs: 90 * 60_000, incrementMs: 30_000 } }));
  const init = [{ at: 0, bytes: Uint8Array.of(0x42, 0x4b) }];
  const runAll = () => {
    let bytes = 0;
    let emulatedMs = 0;
    let actions = 0;
    for (const s of scripts) {
      const emu = new BoardEmulator({ serial: '10001', board: s.board, clock: s.clock });
      const out = runScript(emu, s.actions, { host: init, afterPlug: init.map((h) => h.bytes)[0] });
      bytes += out.reduce((n, c) => n + c.bytes.length, 0);
      emulatedMs += emu.time;
      actions += s.actions.length;
    }
    return { bytes, emulatedMs, actions };
  };
  runAll(); // warm-up
  const start = process.hrtime.bigint();
  let passes = 0;
  let total = { bytes: 0, emulatedMs: 0, actions: 0 };
  while (Number(process.hrtime.bigint() - start) / 1e9 < 3) {
    const r = runAll();
    total = { bytes: total.bytes + r.bytes, emulatedMs: total.emulatedMs + r.emulatedMs, actions: total.actions + r.actions };
    passes++;
  }
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`games: ${scripts.length} random games, noise "mixed", 90 min + 30 s clock; ${passes} passes in ${secs.toFixed(2)} s`);
  console.log(`games/s: ${((passes * scripts.length) / secs).toFixed(1)}`);
  console.log(`emulated board-hours per wall second: ${(total.emulatedMs / 3.6e6 / secs).toFixed(1)}`);
  console.log(`physical actions/s: ${(total.actions / secs).toFixed(0)}`);
  console.log(`board bytes/s produced: ${(total.bytes / secs / 1e6).toFixed(2)} MB/s`);
  const check = decodeAll(concatBytes(runScript(new BoardEmulator({ serial: '10001', board: scripts[0]!.board, clock: scripts[0]!.clock }), scripts[0]!.actions, { host: init })));
  console.log(`sanity: first game decodes to ${check.frames.length} frames, ${check.stats.discardedBytes} bytes discarded`);
}
