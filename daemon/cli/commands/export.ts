import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError, type Command } from '../command.ts';
import { loadConfig } from '../../tournament/config.ts';
import { gameToPgn } from '../../server/pgn.ts';
import { openExistingStore } from '../../runtime/open-existing.ts';
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
    let data: string | undefined;
    let config: string | undefined;
    let round: number | undefined;
    let game: string | undefined;
    let out: string | undefined;
    for (let i = 0; i < argv.length; i++) {
      const opt = argv[i]!;
      const val = (): string => {
        const v = argv[++i];
        if (v === undefined) throw new UsageError(`${opt} needs a value`);
        return v;
      };
      if (opt === '--data') data = resolve(val());
      else if (opt === '--config') config = val();
      else if (opt === '--round') {
        round = Number(val());
        if (!Number.isInteger(round) || round < 1) throw new UsageError('--round needs an integer >= 1');
      } else if (opt === '--game') game = val();
      else if (opt === '--out') out = resolve(val());
      else throw new UsageError(`unknown option ${opt}`);
    }
    if (!data) throw new UsageError('--data DIR is required');
    const cfg = loadConfig(config);
    if (!cfg.ok) {
      for (const m of cfg.error.messages) console.error(m);
      return 1;
    }
    const store = openExistingStore(data);
    if (!store.ok) {
      console.error(store.error);
      return 1;
    }
    try {
      const live = rebuildHall(store.value, cfg.value);
      const rounds = live.rounds().filter((r) => round === undefined || r.round === round);
      const ids = rounds.flatMap((r) => (live.games(r.round) ?? []).map((g) => g.id)).filter((id) => game === undefined || id === game);
      if (ids.length === 0) {
        console.error(`export: no games${round !== undefined ? ` in round ${round}` : ''}${game !== undefined ? ` with id ${game}` : ''}`);
        return 1;
      }
      const pgn = ids
        .map((id) => {
          const g = live.game(id)!;
          return gameToPgn(live.tournament(), rounds.find((r) => r.round === g.round), g);
        })
        .join('\n');
      if (out) writeFileSync(out, pgn);
      else process.stdout.write(pgn);
      return 0;
    } finally {
      store.value.close();
    }
  },
};

export default exportCommand;
