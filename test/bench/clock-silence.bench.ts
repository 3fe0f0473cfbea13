import { silentClockCell } from '../reconstruction/clock-silence.ts';

// `npm run bench -- clock-silence`: a clock whose readings stop for a while mid-game, the board
// read on (docs/reconstruction.md, *A clock read with gaps*). For each length of the silence, in
// presses, CLOCK_SILENCE_GAMES games (default 200) of the matrix's random games with a clock under
// its 'mixed' noise, through the emulated board and the real session, in virtual time.
export default async function clockSilence(): Promise<void> {
  const games = Number(process.env.CLOCK_SILENCE_GAMES ?? 200);
  const started = performance.now();
  const rows = ['| presses unread | games | exact | false incidents | seeds not exact or with one |', '|---:|---:|---:|---:|---|'];
  for (const presses of [0, 1, 2, 3, 6, 12]) {
    const c = await silentClockCell(presses, games);
    const pct = c.games ? ((100 * c.exact) / c.games).toFixed(1) : '100.0';
    rows.push(`| ${presses} | ${c.games} | ${pct}% | ${c.falseIncidents} | ${c.failing.join(', ') || '–'} |`);
    console.log(rows.at(-1));
  }
  console.log(`\nCommand: \`npm run bench -- clock-silence\` — ${((performance.now() - started) / 1000).toFixed(0)} s (one core).\n\n${rows.join('\n')}`);
}
