import { randomGame } from '../../../protocols/games/random.ts';
import { playNoisy, sessionEvents } from '../../../protocols/noisy-player/player.ts';
import { GameEngine } from '../../../daemon/reconstruction/engine.ts';
const model = (process.argv[2] ?? 'clean') as never;
const all = Array.from({ length: 100 }, (_, seed) => { const g = randomGame(seed, { chess960: false }); return sessionEvents(playNoisy(g, { model, seed: 1 })); });
const t0 = performance.now();
for (let r = 0; r < 3; r++) for (const evs of all) { const e = new GameEngine({ rules: { edition: '2018', category: 'standard' } }); for (const ev of evs) e.push(ev); }
const n = all.reduce((a, b) => a + b.length, 0) * 3;
console.log(model, n, Math.round(n / ((performance.now() - t0) / 1000)), 'ev/s');
