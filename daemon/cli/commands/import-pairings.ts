import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError, type Command } from '../command.ts';
import { choiceOption, intOption, parseOptions, requiredOption } from '../args.ts';
import { describeStoreOpenError } from '../../store/errors.ts';
import { openStore } from '../../store/store.ts';
import { hallTables, loadConfig, tournamentSetup } from '../../tournament/config.ts';
import { STORE_FILE } from '../../store/store.ts';
import { importPairings, pairingsFormatOf, parsePairings, type PairingsFormat } from '../../tournament/import-pairings.ts';
import { formatLineError } from '../../tournament/players.ts';

const usage = `usage: boardcast import-pairings [--config <file>] --round <n> [--format trf|csv] [--dry-run] <pairings file>

Imports one round's pairings and players (names, titles, ratings, federations, FIDE ids) into
the tournament's database (<dataDir>/${STORE_FILE} from the config).

  <pairings file>   a FIDE TRF (.trf, .trfx, .txt, as Swiss-Manager and other pairing programs
                    export it: the round's opponents and colours come from the player lines) or a
                    CSV (.csv) with a header row: board,white,black and optionally white_title,
                    white_rating, white_fed, white_fideid, black_title, black_rating, black_fed,
                    black_fideid
  --config <file>   the tournament config (default: the embedded demo config)
  --round <n>       the round the pairings are for
  --format trf|csv  override the format the file extension implies
  --dry-run         check everything, print what would be imported, write nothing

Every bad line is reported with its line number; if anything is wrong nothing is imported.
A round's pairings can be replaced until the round starts. Exit code 0 on success, 1 on bad input.`;

interface Args {
  config: string | undefined;
  round: number;
  format: PairingsFormat | undefined;
  dryRun: boolean;
  file: string;
}

function parseImportArgs(argv: string[]): Args {
  const { values: v, positionals: files } = parseOptions(
    argv,
    {
      config: { type: 'string' },
      round: { type: 'string' },
      format: { type: 'string' },
      'dry-run': { type: 'boolean' },
    },
    { positionals: true },
  );
  if (v.config === '') throw new UsageError('--config needs a file');
  const round = intOption(requiredOption(v.round, '--round'), '--round', { min: 1, message: '--round needs a round number (1, 2, …)' });
  const format = v.format === undefined ? undefined : choiceOption(v.format, '--format', ['trf', 'csv']);
  if (files.length !== 1) throw new UsageError(files.length === 0 ? 'name the pairings file' : 'give exactly one pairings file');
  return { config: v.config, round, format, dryRun: v['dry-run'] ?? false, file: files[0]! };
}

const importPairingsCommand: Command = {
  summary: "import a round's pairings and players from a FIDE TRF or CSV file",
  usage,
  async run(argv) {
    const args = parseImportArgs(argv);
    const format = args.format ?? pairingsFormatOf(args.file);
    if (!format) throw new UsageError(`cannot tell the format of ${args.file} from its extension: use --format trf|csv`);

    const config = loadConfig(args.config);
    if (!config.ok) {
      for (const m of config.error.messages) console.error(m);
      return 1;
    }
    let text: string;
    try {
      text = readFileSync(args.file, 'utf8');
    } catch (e) {
      console.error(`import-pairings: cannot read ${args.file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      return 1;
    }
    const parsed = parsePairings(text, format, args.round);
    if (!parsed.ok) {
      for (const e of parsed.error) console.error(formatLineError(args.file, e));
      console.error(`import-pairings: ${parsed.error.length} problem(s); nothing imported`);
      return 1;
    }
    if (args.dryRun) {
      for (const p of parsed.value.pairings) console.log(`table ${p.table}: ${p.white.name} - ${p.black.name}`);
      console.log(`import-pairings: ${args.file} is fine: ${parsed.value.pairings.length} games for round ${args.round} (dry run, nothing written)`);
      return 0;
    }

    const opened = openStore(join(config.value.dataDir, STORE_FILE));
    if (!opened.ok) {
      console.error(describeStoreOpenError(opened.error));
      return 1;
    }
    const store = opened.value;
    try {
      const tournamentId = store.upsertTournament(tournamentSetup(config.value));
      store.syncTables(hallTables(config.value));
      const r = importPairings(store, tournamentId, args.round, parsed.value);
      if (!r.ok) {
        for (const m of r.error) console.error(`${args.file}: ${m}`);
        console.error('import-pairings: nothing imported');
        return 1;
      }
      for (const p of parsed.value.pairings) console.log(`table ${p.table}: ${p.white.name} - ${p.black.name}`);
      const byes = r.value.unpaired.length > 0 ? `; without a game: ${r.value.unpaired.join('; ')}` : '';
      console.log(`import-pairings: round ${args.round}: ${r.value.games} games imported into ${store.file}${byes}`);
      return 0;
    } finally {
      store.close();
    }
  },
};

export default importPairingsCommand;
