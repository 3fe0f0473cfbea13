import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError, type Command } from '../command.ts';
import { dataDirFrom } from '../data-dir.ts';
import { parseOptions } from '../args.ts';
import { openStore, STORE_FILE } from '../../store/store.ts';
import { loadConfig } from '../../tournament/config.ts';
import { storedHallPairings } from '../../runtime/store-replay.ts';
import { verifyStore } from '../../runtime/store-verification.ts';
import { checkBeforeOpen } from '../../store/integrity.ts';
import { describeStoreOpenError } from '../../store/errors.ts';
import { summariseStore } from '../../store/summary.ts';

const usage = `usage: boardcast doctor [--data DIR | --config FILE] [--full] [--replay] [--json]

Checks a data directory's store without writing to it (a read-only connection; a daemon may be
running on it): SQLite's quick check of every page, or with --full its integrity check (every
index entry against its row), and the foreign keys; then says what the store holds.

  --data DIR     the data directory (default: the config's dataDir)
  --config FILE  the tournament config whose dataDir to check (default: the embedded one)
  --full         the full integrity check (slower on a big store)
  --replay       also replay every raw event from each table's first one (read-only) and compare
                 with what the store derived for every game its table has left: the snapshot a
                 restart puts back, the game's result and its moves (docs/store.md, Verification).
                 The rules come from --config (the embedded default's without it)
  --json         the findings as one JSON object

Exit 0: the store is sound. Exit 1: it is damaged or missing (the message says what to do: restore a
backup with \`boardcast restore\`), or --replay found a derived row that differs from the replay.`;

const doctor: Command = {
  summary: 'check a store for damage without writing to it, and say what it holds',
  usage,
  async run(argv) {
    const { values: v, positionals } = parseOptions(argv, { data: { type: 'string' }, config: { type: 'string' }, full: { type: 'boolean' }, replay: { type: 'boolean' }, json: { type: 'boolean' } });
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    const dir = dataDirFrom(v);
    if (dir === null) return 1;
    const file = join(dir, STORE_FILE);
    const check = v.full ? 'full' : 'quick';
    const say = (o: Record<string, unknown>, text: string): void => console.log(v.json ? JSON.stringify(o) : text);
    if (!existsSync(file)) {
      say({ ok: false, file, problem: 'missing' }, `${file}: no store here`);
      return 1;
    }
    const checked = checkBeforeOpen(file, check, false);
    if (!checked.ok) {
      say({ ok: false, file, check, problem: checked.error.message }, describeStoreOpenError(checked.error));
      return 1;
    }
    const wal = `${file}-wal`;
    const summary = summariseStore(file, { fileBytes: statSync(file).size, walBytes: existsSync(wal) ? statSync(wal).size : 0 });
    const last = summary.lastEventAt === null ? 'none' : new Date(summary.lastEventAt).toISOString();
    const found = { ok: true, file, check, ...summary };
    const text = [
      `${file}: sound (${check} check, foreign keys)`,
      `  schema version ${summary.schemaVersion}; ${summary.tournaments} tournament(s), ${summary.rounds} round(s)`,
      `  ${summary.games.total} game(s), ${summary.games.finished} finished; ${summary.rawEvents} raw board events, the last at ${last}; ${summary.amendments} amendment(s)`,
      `  ${summary.fileBytes} bytes, WAL ${summary.walBytes} bytes`,
    ].join('\n');
    if (!v.replay) {
      say(found, text);
      return 0;
    }
    // One JSON object in all: the store's findings with the replay's.
    if (!v.json) console.log(text);
    return replayCheck(file, v.config, (o, t) => say({ ...found, ...o }, t));
  },
};

/** doctor --replay: the verification a daemon runs after its start, here on a read-only connection. */
function replayCheck(file: string, configFile: string | undefined, say: (o: Record<string, unknown>, text: string) => void): number {
  const cfg = loadConfig(configFile);
  if (!cfg.ok) {
    for (const m of cfg.error.messages) console.error(m);
    return 1;
  }
  const opened = openStore(file, { readonly: true });
  if (!opened.ok) {
    say({ ok: false, file, replay: 'not run', problem: opened.error.message }, `${file}: not replayed: ${opened.error.message}`);
    return 1;
  }
  const store = opened.value;
  try {
    const t0 = performance.now();
    const steps = verifyStore(store, cfg.value, store.tablesWithRawEvents(), storedHallPairings(store, cfg.value));
    let r = steps.next();
    while (!r.done) r = steps.next();
    const result = r.value;
    const ms = Math.round(performance.now() - t0);
    const ok = result.differences.length === 0;
    say(
      { ok, file, replay: { ...result, ms } },
      [
        `  replayed ${result.events} raw events in ${ms} ms; ${result.games} game(s) their tables have left compared with the store`,
        ok ? '  every derived row equals the replay' : `  ${result.differences.length} difference(s):`,
        ...result.differences.map((d) => `    ${d.gameId} ${d.row}: ${d.detail}`),
      ].join('\n'),
    );
    return ok ? 0 : 1;
  } finally {
    store.close();
  }
}

export default doctor;
