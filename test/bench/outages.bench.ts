import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { keptCell, outageCells, outageTable, runOutageCell, type CellFigures } from '../reconstruction/outages.ts';

// `npm run bench -- outages`: the outage table of docs/reconstruction.md. Every cell plays
// OUTAGE_GAMES games (default 200) of the matrix's random games under its 'mixed' noise through
// the emulated board, the real BoardSession (with its EEPROM catch-up) and a fresh engine, in
// virtual time, on one core (under a minute on the reference machine). With OUTAGE_WRITE=1 the
// table replaces the one between the outages markers in docs/reconstruction.md.
export default async function outages(): Promise<void> {
  const games = Number(process.env.OUTAGE_GAMES ?? 200);
  const started = performance.now();
  const rows: CellFigures[] = [];
  for (const cell of outageCells()) {
    const r = await runOutageCell(cell, games);
    rows.push(r);
    const label = `${cell.kind} ${cell.plies} plies${cell.pieceInHand ? ', piece in hand' : ''}`;
    console.log(
      `${label}: ${r.exactPct.toFixed(1)}% exact (${r.exactUnambiguousPct.toFixed(1)}% of those with one explanation, ${r.rightPct.toFixed(1)}% exact or truth offered, ${r.pliesAsPlayedPct.toFixed(1)}% as many plies as played), ${keptCell(r)} later moves kept, ${r.falseIncidents} false incidents, ${r.following}/${r.games} sessions on the table's board; the longest event per game p99 ${r.longestEventP99Ms.toFixed(0)} / max ${r.longestEventMaxMs.toFixed(0)} ms`,
    );
    for (const e of r.examples) console.log(`  e.g. ${e}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const table = [
    `Command: \`${process.env.OUTAGE_GAMES ? `OUTAGE_GAMES=${games} ` : ''}npm run bench -- outages\` — ${rows.reduce((n, r) => n + r.games, 0)} games in ${seconds.toFixed(0)} s (one core of ${availableParallelism()}).`,
    '',
    outageTable(rows),
  ].join('\n');
  console.log(`\n${table}`);
  if (process.env.OUTAGE_WRITE === '1') {
    const doc = fileURLToPath(new URL('../../docs/reconstruction.md', import.meta.url));
    const begin = '<!-- outages:begin -->';
    const end = '<!-- outages:end -->';
    let text = readFileSync(doc, 'utf8');
    if (!text.includes(begin)) text += `\n${begin}\n${end}\n`;
    text = text.slice(0, text.indexOf(begin) + begin.length) + '\n' + table + '\n' + text.slice(text.indexOf(end));
    writeFileSync(doc, text);
    console.log(`written to ${doc}`);
  }
}
