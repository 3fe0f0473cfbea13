import { observe } from '../../daemon/simulation/emulator/tabletop.ts';
import { randomGame } from '../../daemon/simulation/games/random.ts';
import { playNoisy, type NoiseModel } from '../../daemon/simulation/noisy-player/player.ts';

// Generator figures: random games per second, noisy scripts per second under a few models, and
// tabletop observation throughput (actions per second). Pure CPU, one core.
export default function generatorBench(): void {
  const n = 300;
  let t = performance.now();
  const games = Array.from({ length: n }, (_, seed) => randomGame(seed, { chess960: seed % 5 === 4 }));
  const plies = games.reduce((a, g) => a + g.moves.length, 0);
  let ms = performance.now() - t;
  console.log(`randomGame: ${n} games (${plies} plies) in ${ms.toFixed(0)} ms = ${((plies / ms) * 1000).toFixed(0)} plies/s`);
  for (const model of ['clean', 'mixed', 'disconnect', 'takeback'] as NoiseModel[]) {
    t = performance.now();
    let actions = 0;
    const scripts = games.map((g, i) => playNoisy(g, { model, seed: i }));
    for (const s of scripts) actions += s.actions.length;
    ms = performance.now() - t;
    t = performance.now();
    let events = 0;
    for (const s of scripts) events += observe(s.actions, { board: s.board, clock: s.clock }).length;
    const obs = performance.now() - t;
    console.log(
      `playNoisy ${model}: ${n} scripts, ${actions} actions in ${ms.toFixed(0)} ms (${(ms / n).toFixed(2)} ms/game); observe: ${events} events in ${obs.toFixed(0)} ms = ${((actions / obs) * 1000).toFixed(0)} actions/s`,
    );
  }
}
