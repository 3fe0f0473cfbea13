import { availableParallelism } from 'node:os';
import { outageCells, outageTable, runOutageCell, type CellFigures } from '../reconstruction/outages.ts';

// `npm run bench -- outages`: the outage table of docs/reconstruction.md. Every cell plays
// OUTAGE_GAMES games (default 200) of the matrix's random games under its 'mixed' noise through
// the emulated board, the real BoardSession (with its EEPROM catch-up) and a fresh engine, in
// virtual time. One core; about two minutes for the full table.
export default async function outages(): Promise<void> {
  const games = Number(process.env.OUTAGE_GAMES ?? 200);
  const started = performance.now();
  const rows: CellFigures[] = [];
  for (const cell of outageCells()) {
    const r = await runOutageCell(cell, games);
    rows.push(r);
    const label = `${cell.kind} ${cell.plies} plies${cell.pieceInHand ? ', piece in hand' : ''}`;
    console.log(`${label}: ${r.exactPct.toFixed(1)}% exact, ${r.keptPct.toFixed(1)}% later moves kept, ${r.falseIncidents} false incidents, ${r.following}/${r.games} sessions on the table's board`);
    for (const e of r.examples) console.log(`  e.g. ${e}`);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`\nCommand: \`npm run bench -- outages\` — ${rows.reduce((n, r) => n + r.games, 0)} games in ${seconds.toFixed(0)} s (one core of ${availableParallelism()}).\n`);
  console.log(outageTable(rows));
}
