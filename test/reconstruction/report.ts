import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NOISE_MODELS, type NoiseModel } from '../../daemon/simulation/noisy-player/player.ts';
import type { SourceGame } from '../../daemon/simulation/games/game.ts';
import { loadSharedGames, matrixRandomGame, minimise, modelsFor, runCase, type CaseResult, type CorpusCase } from './harness.ts';

// `npx tsx test/reconstruction/report.ts [--full] [--save-corpus]`
// Runs the reconstruction matrix (the same plan as matrix.test.ts; --full: every model over every
// game), writes the games × models pass-rate table into docs/reconstruction.md between the markers,
// and with --save-corpus stores each failing (game set, model)'s first failure, cut to the shortest
// failing prefix, as test/reconstruction/corpus/<model>-<game>.json for corpus.test.ts to replay.
const args = new Set(process.argv.slice(2));
const full = args.has('--full');
const saveCorpus = args.has('--save-corpus');
const root = fileURLToPath(new URL('../../', import.meta.url));

interface Column {
  name: string;
  games: SourceGame[];
  random: boolean;
}

const randomGames = Array.from({ length: 1000 }, (_, seed) => matrixRandomGame(seed));
const columns: Column[] = [
  { name: 'random', games: randomGames.filter((g) => !g.chess960), random: true },
  { name: 'random 960', games: randomGames.filter((g) => g.chess960), random: true },
];
const shared = loadSharedGames();
if ('absent' in shared) console.warn(`real games skipped: ${shared.absent}`);
else {
  for (const file of [...new Set(shared.games.map((g) => g.id.split('#')[0]!))])
    columns.push({ name: file.replace(/\.pgn$/, ''), games: shared.games.filter((g) => g.id.startsWith(`${file}#`)), random: false });
}

const started = Date.now();
const cells = new Map<string, { pass: number; total: number }>();
const failures: CaseResult[] = [];
let runs = 0;
for (const col of columns) {
  // Index within the whole set, so the rotation matches matrix.test.ts.
  const all = col.random ? randomGames : 'absent' in shared ? [] : shared.games;
  for (const g of col.games) {
    const index = all.indexOf(g);
    const models: NoiseModel[] = full ? [...NOISE_MODELS] : modelsFor(index, col.random);
    for (const model of models) {
      const r = runCase(g, model, 1);
      runs++;
      const key = `${model}|${col.name}`;
      const cell = cells.get(key) ?? { pass: 0, total: 0 };
      cell.total++;
      if (r.problems.length === 0) cell.pass++;
      else failures.push(r);
      cells.set(key, cell);
    }
  }
}
const seconds = ((Date.now() - started) / 1000).toFixed(1);

const pct = (c: { pass: number; total: number } | undefined): string => (!c ? '–' : c.pass === c.total ? `100% (${c.total})` : `**${((100 * c.pass) / c.total).toFixed(1)}%** (${c.pass}/${c.total})`);
const lines = [
  `Command: \`npx tsx test/reconstruction/report.ts${full ? ' --full' : ''}\` — ${runs} runs in ${seconds} s (one core).`,
  '',
  `| model | ${columns.map((c) => `${c.name} (${c.games.length})`).join(' | ')} |`,
  `|---|${columns.map(() => '---').join('|')}|`,
  ...NOISE_MODELS.map((m) => `| ${m} | ${columns.map((c) => pct(cells.get(`${m}|${c.name}`))).join(' | ')} |`),
  '',
  failures.length === 0 ? 'No failures.' : `Failures (${failures.length}), first per model and game set:`,
  ...firstPerCell(failures).map((r) => `- \`${r.game.id}\` ${r.model}: ${r.problems.join('; ').slice(0, 300)}`),
];
const table = lines.join('\n');
console.log(table);

const docPath = `${root}docs/reconstruction.md`;
// The matrix plan and the --full run each keep their own table.
const begin = full ? '<!-- matrix-full:begin -->' : '<!-- matrix:begin -->';
const end = full ? '<!-- matrix-full:end -->' : '<!-- matrix:end -->';
let doc = '';
try {
  doc = readFileSync(docPath, 'utf8');
} catch {
  doc = `# Reconstruction\n\n${begin}\n${end}\n`;
}
if (!doc.includes(begin)) doc += `\n${begin}\n${end}\n`;
doc = doc.slice(0, doc.indexOf(begin) + begin.length) + '\n' + table + '\n' + doc.slice(doc.indexOf(end));
writeFileSync(docPath, doc);

if (saveCorpus) {
  mkdirSync(`${root}test/reconstruction/corpus`, { recursive: true });
  for (const r of firstPerCell(failures)) {
    const min = minimise(r);
    const c: CorpusCase = {
      game: { id: min.game.id, chess960: min.game.chess960, startFen: min.game.startFen, sans: min.game.sans },
      model: min.model,
      seed: min.seed,
      problems: min.problems,
    };
    const name = `${min.model}-${min.game.id.replace(/[^A-Za-z0-9]+/g, '_')}.json`;
    writeFileSync(`${root}test/reconstruction/corpus/${name}`, JSON.stringify(c, null, 2) + '\n');
    console.log(`saved corpus/${name} (${min.game.sans.length} plies)`);
  }
}

function firstPerCell(rs: CaseResult[]): CaseResult[] {
  const seen = new Set<string>();
  return rs.filter((r) => {
    const key = `${r.model}|${r.game.chess960}|${r.game.id.split('#')[0]}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
