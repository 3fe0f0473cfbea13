import { loadSharedGames, matrixRandomGame, runCase, reconstruct } from '../harness.ts';
import { playNoisy, sessionEvents } from '../../../protocols/noisy-player/player.ts';
import { GameEngine } from '../../../daemon/reconstruction/engine.ts';
const [id, model] = process.argv.slice(2);
const shared = loadSharedGames();
const games = 'absent' in shared ? [] : shared.games;
const game = id!.startsWith('random#') ? matrixRandomGame(Number(id!.slice(7).split('/')[0])) : games.find((g) => g.id === id)!;
const script = playNoisy(game, { model: model as never, seed: 1 });
console.log(runCase(game, model as never, 1).problems);
const engine = new GameEngine({ rules: { edition: '2018', category: 'standard' }, chess960: game.chess960 });
let i = 0;
for (const ev of sessionEvents(script)) {
  const out = engine.push(ev);
  if (process.env.V) console.log(i, JSON.stringify(ev), out.map((e) => e.type + ':' + ('san' in e ? e.san : 'toPly' in e ? e.toPly : e.type === 'incident' ? e.incident.kind : '')).join(' '));
  i++;
}
