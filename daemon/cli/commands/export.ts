import { writeFileSync } from 'node:fs';
import type { Command } from '../command.ts';
import { intOption, parseOptions, pathOption, requiredOption } from '../args.ts';
import { gameToPgn } from '../../../protocols/feed/pgn.ts';
import { openStoredHall } from '../stored-hall.ts';
import { rebuildHall } from '../../runtime/store-replay.ts';

const usage = `usage: boardcast export --data DIR [--config FILE] [--round N] [--game ID] [--out FILE]

Writes the games of a data directory as PGN, rebuilt from the stored raw board events: full tags
(players' titles, ratings, federations and FIDE ids, TimeControl, Board) and {[%clk h:mm:ss]}
after each move.

  --data DIR      the daemon's data directory (required)
  --config FILE   tournament config for the Event/Site/TimeControl tags (default: the embedded one)
  --round N       only round N
  --game ID       only this game (e.g. r1-t3)
  --out FILE      write to FILE instead of stdout`;

const exportCommand: Command = {
  summary: 'write stored games as PGN (full tags, %clk)',
  usage,
  async run(argv) {
    const { values: v } = parseOptions(argv, {
      data: { type: 'string' },
      config: { type: 'string' },
      round: { type: 'string' },
      game: { type: 'string' },
      out: { type: 'string' },
    });
    const round = intOption(v.round, '--round', { min: 1 });
    const { game } = v;
    const out = pathOption(v.out);
    const data = pathOption(requiredOption(v.data, '--data DIR'));
    const hall = openStoredHall(data, v.config);
    if (!hall) return 1;
    try {
      const live = rebuildHall(hall.store, hall.config);
      const rounds = live.rounds().filter((r) => round === undefined || r.round === round);
      const ids = rounds.flatMap((r) => (live.games(r.round) ?? []).map((g) => g.id)).filter((id) => game === undefined || id === game);
      if (ids.length === 0) {
        console.error(`export: no games${round !== undefined ? ` in round ${round}` : ''}${game !== undefined ? ` with id ${game}` : ''}`);
        return 1;
      }
      const pgn = ids
        .map((id) => {
          const g = live.game(id)!;
          return gameToPgn(
            live.tournament(),
            rounds.find((r) => r.round === g.round),
            g,
          );
        })
        .join('\n');
      if (out) writeFileSync(out, pgn);
      else process.stdout.write(pgn);
      return 0;
    } finally {
      hall.store.close();
    }
  },
};

export default exportCommand;
