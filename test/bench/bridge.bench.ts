import os from 'node:os';
import { lccGame, lccRoundIndex } from '../../bridge/lcc/format.ts';
import { roundPgn } from '../../bridge/relay/round-pgn.ts';
import { Hall, LINES } from '../server/hall.ts';

/**
 * `npm run bench -- bridge`: what one relay poll costs the daemon. A 64-table round (lichess's
 * per-round maximum) with 14 plies on every board; each figure is a full rebuild of the body a
 * poller gets (the routers rebuild on every request and answer 304 when the ETag matches).
 */
export default async function bench(): Promise<void> {
  console.log('command: npm run bench -- bridge');
  console.log(
    `node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, ${os.cpus().length} cores`,
  );
  const tables = 64;
  const hall = new Hall({ tables });
  hall.connectAll();
  for (const [i, t] of hall.tables.entries()) for (const san of LINES[i % LINES.length]!) hall.play(t.id, san);
  const source = hall.source;
  const round = source.rounds()[0]!;

  const measure = (name: string, fn: () => number): void => {
    fn();
    let n = 0;
    let bytes = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0;
    while (elapsed < 1.5e9) {
      bytes = fn();
      n++;
      elapsed = Number(process.hrtime.bigint() - start);
    }
    const ms = elapsed / 1e6 / n;
    console.log(`${name.padEnd(34)} ${ms.toFixed(3).padStart(8)} ms/poll  ${(1000 / ms).toFixed(0).padStart(7)} polls/s  ${bytes} B`);
  };

  measure(`round PGN (${tables} games)`, () => roundPgn(source, 1)!.length);
  measure(`LCC round index (${tables} pairings)`, () => JSON.stringify(lccRoundIndex(round, source.games(1)!)).length);
  measure('LCC game-M.json (one game)', () => JSON.stringify(lccGame(source.game('r1-t1')!, '24611')).length);
  measure(`LCC all ${tables} game files`, () => source.games(1)!.reduce((sum, g) => sum + JSON.stringify(lccGame(source.game(g.id)!, null)).length, 0));
}
