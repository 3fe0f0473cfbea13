import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { NOISE_MODELS } from '../../daemon/simulation/noisy-player/player.ts';
import {
  clockSetCells,
  clockSetTable,
  keptCell,
  noiseTable,
  outageCells,
  outageTable,
  runNoiseRow,
  runOutageCell,
  variantCells,
  type CellFigures,
  type NoiseFigures,
  type OutageCell,
} from '../reconstruction/outages.ts';

// `npm run bench -- outages`: the outage table of docs/reconstruction.md. Every cell plays
// OUTAGE_GAMES games (default 200) of the matrix's random games under its 'mixed' noise through
// the emulated board, the real BoardSession (with its EEPROM catch-up) and a fresh engine, in
// virtual time, on one core (under a minute on the reference machine). Then the clock-set table:
// USB pulls of 4, 6 and 8 plies while one player is given time by hand, in games with a clock.
// Then the variants table: the outage table's cells on Chess960 games and on boards turned round.
// Last the noise table: the outage table's cells under each noise model of the player instead of
// 'mixed' alone, NOISE_GAMES games per cell (default 10), pooled per model.
// With OUTAGE_WRITE=1 the tables replace those between their markers in docs/reconstruction.md.
// OUTAGE_FIRST_SEED=N plays the cells from seed N instead of 1: games the documented tables have
// never played, where a change fitted to seeds 1–200 shows (session 28); not written to the docs.
export default async function outages(): Promise<void> {
  const games = Number(process.env.OUTAGE_GAMES ?? 200);
  const firstSeed = Number(process.env.OUTAGE_FIRST_SEED ?? 1);
  if (!Number.isInteger(firstSeed) || firstSeed < 1) throw new Error(`OUTAGE_FIRST_SEED must be a whole number from 1 (got ${process.env.OUTAGE_FIRST_SEED})`);
  if (firstSeed !== 1 && process.env.OUTAGE_WRITE === '1') throw new Error('OUTAGE_WRITE=1 writes the tables of seeds 1–200 to the docs: leave OUTAGE_FIRST_SEED unset with it');
  const command = `\`${process.env.OUTAGE_GAMES ? `OUTAGE_GAMES=${games} ` : ''}${firstSeed !== 1 ? `OUTAGE_FIRST_SEED=${firstSeed} ` : ''}npm run bench -- outages\``;
  const outageRows = await runCells(outageCells(), games, firstSeed);
  const clockSetRows = await runCells(clockSetCells(), games, firstSeed);
  const variantRows = await runCells(variantCells(), games, firstSeed);
  const noiseRows = await runNoise(Number(process.env.NOISE_GAMES ?? 10), firstSeed);
  const tables = [
    { marker: 'outages', text: [`Command: ${command} — ${outageRows.text}`, '', outageTable(outageRows.rows)].join('\n') },
    { marker: 'outages-clock-set', text: [`Command: ${command} (its second table) — ${clockSetRows.text}`, '', clockSetTable(clockSetRows.rows)].join('\n') },
    { marker: 'outages-variants', text: [`Command: ${command} (its third table) — ${variantRows.text}`, '', outageTable(variantRows.rows)].join('\n') },
    { marker: 'outages-noise', text: [`Command: ${command} (its fourth table) — ${noiseRows.text}`, '', noiseTable(noiseRows.rows)].join('\n') },
  ];
  for (const t of tables) console.log(`\n${t.text}`);
  if (process.env.OUTAGE_WRITE === '1') {
    const doc = fileURLToPath(new URL('../../docs/reconstruction.md', import.meta.url));
    let text = readFileSync(doc, 'utf8');
    for (const t of tables) {
      const begin = `<!-- ${t.marker}:begin -->`;
      const end = `<!-- ${t.marker}:end -->`;
      if (!text.includes(begin)) text += `\n${begin}\n${end}\n`;
      text = text.slice(0, text.indexOf(begin) + begin.length) + '\n' + t.text + '\n' + text.slice(text.indexOf(end));
    }
    writeFileSync(doc, text);
    console.log(`written to ${doc}`);
  }
}

/** The noise table's rows, one per noise model, printing each as it ends. */
async function runNoise(perCell: number, firstSeed: number): Promise<{ rows: NoiseFigures[]; text: string }> {
  const started = performance.now();
  const rows: NoiseFigures[] = [];
  for (const noise of NOISE_MODELS) {
    const r = await runNoiseRow(noise, perCell, firstSeed);
    rows.push(r);
    console.log(
      `${noise}: ${r.games} games, ${r.right} exact or truth offered, ${keptCell(r)} later moves kept, ${r.falseIncidents} false incidents, ${r.faults} engine faults, ${r.following}/${r.games} sessions on the table's board`,
    );
  }
  const seconds = (performance.now() - started) / 1000;
  return { rows, text: `${rows.reduce((n, r) => n + r.games, 0)} games (${perCell} per cell and model) in ${seconds.toFixed(0)} s (one core of ${availableParallelism()}).` };
}

/** Plays `games` games of each cell, printing each as it ends; `text`: how many games in how long. */
async function runCells(cells: OutageCell[], games: number, firstSeed: number): Promise<{ rows: CellFigures[]; text: string }> {
  const started = performance.now();
  const rows: CellFigures[] = [];
  for (const cell of cells) {
    const r = await runOutageCell(cell, games, firstSeed);
    rows.push(r);
    const label = `${cell.chess960 ? 'Chess960 ' : ''}${cell.reversed ? 'turned round ' : ''}${cell.kind} ${cell.plies} plies${cell.pieceInHand ? ', piece in hand' : ''}${cell.clockAdjustMs !== undefined ? `, ${cell.clockAdjustMs / 1000} s given by hand` : ''}`;
    console.log(
      `${label}: ${r.exactPct.toFixed(1)}% exact (${r.exactUnambiguousPct.toFixed(1)}% of those with one explanation, ${r.rightPct.toFixed(1)}% exact or truth offered, ${r.pliesAsPlayedPct.toFixed(1)}% as many plies as played, ${r.morePliesPct.toFixed(1)}% more), ${keptCell(r)} later moves kept, ${r.falseIncidents} false incidents, ${r.following}/${r.games} sessions on the table's board; the longest event per game p99 ${r.longestEventP99Ms.toFixed(0)} / max ${r.longestEventMaxMs.toFixed(0)} ms`,
    );
    for (const e of r.examples) console.log(`  e.g. ${e}`);
  }
  const seconds = (performance.now() - started) / 1000;
  return { rows, text: `${rows.reduce((n, r) => n + r.games, 0)} games in ${seconds.toFixed(0)} s (one core of ${availableParallelism()}).` };
}
