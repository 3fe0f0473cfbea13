import { readFileSync } from 'node:fs';
import { loadSharedGames, matrixRandomGame, runCase } from '../harness.ts';
const shared = loadSharedGames();
const games = 'absent' in shared ? [] : shared.games;
const lines = readFileSync(0, 'utf8').split('\n').filter(Boolean);
let bad = 0;
for (const l of lines) {
  const [id, model] = l.split(' ');
  const game = id!.startsWith('random#') ? matrixRandomGame(Number(id!.slice(7).split('/')[0])) : games.find((g) => g.id === id)!;
  const p = runCase(game, model as never, 1).problems;
  if (p.length) { bad++; console.log(id, model, p.join('; ').slice(0, 600)); }
}
console.log(`${bad}/${lines.length} still failing`);
