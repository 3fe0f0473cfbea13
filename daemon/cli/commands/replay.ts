import { createInterface } from 'node:readline';
import { UsageError, type Command } from '../command.ts';
import { intOption, numberOption, parseOptions, pathOption, requiredOption } from '../args.ts';
import { fieldName } from '../../../protocols/dgt/squares.ts';
import type { BoardEvent } from '../../../protocols/board-events.ts';
import type { GameChange } from '../../../protocols/feed/model.ts';
import { describeCommand, describeLabel, MoveBook, type ReplayLabel } from '../../runtime/replay-labels.ts';
import { openStoredHall } from '../stored-hall.ts';
import { hallRouter, loadGameSettings, newLiveSource, replayTable, storedHallPairings, storedTables } from '../../runtime/store-replay.ts';

const usage = `usage: boardcast replay --data DIR [--config FILE] [--table N | --game ID] [--speed X | --step | --json]

Replays the stored raw board events through a fresh reconstruction engine, printing each event
and the moves, incidents and results it produced, with the arbiters' decisions (results, reinstated
positions, round starts) where they were taken: the arbiter's tool for a disputed sequence.

  --data DIR   the daemon's data directory (required)
  --config FILE  the tournament config the daemon ran with: its rules edition and category decide
               the FIDE consequences shown (default: the embedded one)
  --table N    only table N (default: every table, one after the other)
  --game ID    only the events of this game (e.g. r2-t5)
  --speed X    replay at X times the recorded pace (default: as fast as possible)
  --step       wait for Enter after each event that changed something
  --json       one JSON object per line instead of text: {"step":"event", id, wallMs, monoMs, table,
               gameId, event, raw (hex), produced: [...]} for each stored event and {"step":"arbiter",
               afterRawEventId, command, produced} for each arbiter decision; "produced" holds what
               the engine made of it: move, confirmation (the clock press that confirms a move, with
               its clock), amendment (before/after), takeback, result, incident, game

A clock press that confirms a move is printed as a confirmation, not as an amended move.`;

function describeEvent(e: BoardEvent | null): string {
  if (!e) return 'undecoded bytes';
  switch (e.type) {
    case 'field':
      return `field ${fieldName(e.field)} ${e.piece === 0 ? 'emptied' : `piece 0x${e.piece.toString(16)}`}`;
    case 'dump':
      return `board dump (${e.board.filter((p) => p !== 0).length} pieces)`;
    case 'clock':
      return `clock white ${(e.whiteMs / 1000).toFixed(1)}s black ${(e.blackMs / 1000).toFixed(1)}s running ${e.running ?? 'none'}${e.whiteFlag || e.blackFlag ? ' FLAG' : ''}`;
    case 'connection':
      return e.connected ? 'board connected' : 'board disconnected';
  }
}

const replay: Command = {
  summary: 'replay stored raw board events through the engine, printing what each produced',
  usage,
  async run(argv) {
    const { values: v } = parseOptions(argv, {
      data: { type: 'string' },
      config: { type: 'string' },
      table: { type: 'string' },
      game: { type: 'string' },
      speed: { type: 'string' },
      step: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    const table = intOption(v.table, '--table', { min: 1 });
    const speed = numberOption(v.speed, '--speed', { above: 0 });
    const { game, step = false, json = false } = v;
    const data = pathOption(requiredOption(v.data, '--data DIR'));
    if (table !== undefined && game !== undefined) throw new UsageError('give --table or --game, not both');
    if (speed !== undefined && step) throw new UsageError('give --speed or --step, not both');
    if (json && step) throw new UsageError('give --json or --step, not both');
    const gameTable = game === undefined ? undefined : /^r\d+-t(\d+)$/.exec(game)?.[1];
    if (game !== undefined && gameTable === undefined) throw new UsageError(`--game needs an id like r1-t3, not ${game}`);

    const hall = openStoredHall(data, v.config);
    if (!hall) return 1;
    const store = hall.store;
    const rl = step ? createInterface({ input: process.stdin }) : null;
    const lines = rl ? rl[Symbol.asyncIterator]() : null;
    try {
      const router = hallRouter(hall.config, newLiveSource(hall.config, store), storedHallPairings(store, hall.config));
      loadGameSettings(store, router);
      const tables = table !== undefined ? [table] : gameTable !== undefined ? [Number(gameTable)] : storedTables(store);
      let seen = 0;
      const book = new MoveBook();
      const produced = (changes: GameChange[]): ReplayLabel[] => changes.map((c) => book.label(c)).filter((x): x is ReplayLabel => x !== null);
      for (const t of tables) {
        let prevMono: number | null = null;
        for (const s of replayTable(store, router, t)) {
          if (s.kind === 'command') {
            const about = s.command.kind === 'game' ? s.command.gameId : `round ${s.command.round}`;
            const labels = produced(s.changes);
            if (game !== undefined && s.command.kind === 'game' && about !== game) continue;
            if (json) {
              console.log(JSON.stringify({ step: 'arbiter', afterRawEventId: s.afterRawEventId, command: s.command, produced: labels }));
              continue;
            }
            console.log(`  after #${s.afterRawEventId} arbiter: ${describeCommand(s.command)}`);
            for (const l of labels) console.log(`    → ${describeLabel(l)}`);
            continue;
          }
          if (game !== undefined && s.gameId !== game) {
            produced(s.changes); // other games' moves still go into the book
            continue;
          }
          seen++;
          if (speed !== undefined && prevMono !== null) {
            const wait = Math.min(10_000, Math.max(0, (s.event.monoMs - prevMono) / speed));
            if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          }
          prevMono = s.event.monoMs;
          const labels = produced(s.changes);
          if (json) {
            const e = s.event;
            console.log(
              JSON.stringify({ step: 'event', id: e.id, wallMs: e.wallMs, monoMs: e.monoMs, table: t, gameId: s.gameId, event: e.event, raw: Buffer.from(e.raw).toString('hex'), produced: labels }),
            );
            continue;
          }
          const when = new Date(s.event.wallMs).toISOString();
          console.log(`#${s.event.id} ${when} table ${t}${s.gameId ? ` ${s.gameId}` : ''}: ${describeEvent(s.event.event)}`);
          for (const l of labels) console.log(`    → ${describeLabel(l)}`);
          if (lines && labels.length > 0) {
            process.stdout.write('  [Enter] ');
            if ((await lines.next()).done) return 0;
          }
        }
      }
      if (seen === 0) {
        console.error(`replay: no stored events${table !== undefined ? ` for table ${table}` : ''}${game !== undefined ? ` for game ${game}` : ''}`);
        return 1;
      }
      return 0;
    } finally {
      rl?.close();
      store.close();
    }
  },
};

export default replay;
