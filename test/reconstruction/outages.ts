import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import { placementAndTurn } from '../../daemon/reconstruction/fen.ts';
import type { GameEvent, Incident } from '../../daemon/reconstruction/game-events.ts';
import type { SourceGame } from '../../daemon/simulation/games/game.ts';
import { Prng } from '../../daemon/simulation/games/prng.ts';
import { fenAfter, randomGame } from '../../daemon/simulation/games/random.ts';
import { playNoisy, type NoiseModel, type NoisyScript, type OutagePlan } from '../../daemon/simulation/noisy-player/player.ts';
import { STANDARD_2018, STANDARD_FEN, matrixRandomGame } from './harness.ts';
import { playThroughSession } from './outage-rig.ts';

/**
 * The outage table: games of the reconstruction matrix, under its noise ('mixed'), played on the
 * emulated board and read by the real session into a fresh engine, with one outage of the board
 * in each: a USB pull (power lost: the board's log holds nothing of the moves made meanwhile) or
 * a dropped link (the board stays powered and logs everything), of 1–8 plies, coming back with or
 * without a piece in the next player's hand. Run in full by `npm run bench -- outages`
 * (test/bench/outages.bench.ts); a few games per cell run in the unit suite (outages.test.ts).
 */

export const OUTAGE_KINDS = ['power', 'link'] as const;
export const OUTAGE_PLIES = [1, 2, 3, 4, 6, 8] as const;

export interface OutageCell {
  kind: OutagePlan['kind'];
  plies: number;
  pieceInHand: boolean;
  /** Added by hand to one player's time while the board is away (OutagePlan), in games with a clock. */
  clockAdjustMs?: number;
  /** A Chess960 game of the seed instead of the matrix's (the tables hold standard games only). */
  chess960?: true;
  /** The board turned round (Black's pieces on the board's ranks 1–2); the tables have it the right way round. */
  reversed?: true;
  /** The noise the game is played under; the tables play the matrix's, 'mixed'. */
  noise?: NoiseModel;
}

export function outageCells(): OutageCell[] {
  return OUTAGE_KINDS.flatMap((kind) => OUTAGE_PLIES.flatMap((plies) => [false, true].map((pieceInHand) => ({ kind, plies, pieceInHand }))));
}

/**
 * The variants table's cells: every cell of the outage table on the seed's Chess960 game, then on
 * the matrix's standard game with the board turned round.
 */
export function variantCells(): OutageCell[] {
  const variants: Pick<OutageCell, 'chess960' | 'reversed'>[] = [{ chess960: true }, { reversed: true }];
  return variants.flatMap((variant) => outageCells().map((cell) => ({ ...cell, ...variant })));
}

/**
 * Time given by hand in the clock-set table: none (the same games, for comparison: the seed draws
 * the moment and the player all the same), a minute (rapid and blitz, A.4.2, B.3) and two (7.5.5).
 */
export const CLOCK_SET_MS = [0, 60_000, 120_000] as const;

/**
 * The clock-set table's cells: USB pulls of 4, 6 and 8 plies (the lengths a count corrects or
 * fills) with and without a piece in the hand, while one player is given time by hand; games
 * with a clock only.
 */
export function clockSetCells(): OutageCell[] {
  return CLOCK_SET_MS.flatMap((clockAdjustMs) => [4, 6, 8].flatMap((plies) => [false, true].map((pieceInHand) => ({ kind: 'power' as const, plies, pieceInHand, clockAdjustMs }))));
}

/** One game of a cell, as it came out. */
export interface OutageGame {
  gameId: string;
  seed: number;
  /** The engine's moves equal the intended game, every ply. */
  exact: boolean;
  /** Intended plies after the outage, and how many of them the record holds (in order). */
  after: number;
  kept: number;
  /** The record holds as many plies as the game: the moves after the outage carry the numbers the players wrote. */
  pliesAsPlayed: boolean;
  /** The record holds more plies than the game: moves nobody made (a break counts one ply, so it never adds). */
  morePlies: boolean;
  /** The engine marked a jump as having more than one explanation. */
  ambiguous: boolean;
  /** It did, and the moves really played are among the candidates it offers the arbiter. */
  truthOffered: boolean;
  /** Incidents against a player that the script did not inject. */
  falseIncidents: number;
  /** Clock readings of the moves made during the outage, and how many of them the clock never showed. */
  clockReadings: number;
  clockWrong: number;
  /** Moves made during the outage in a game with a clock (each could have its reading). */
  missedWithClock: number;
  /** The session ended live, holding the board that stood on the table. */
  followsBoard: boolean;
  /** The longest the engine took over one board event (ms): how long the event loop waited at worst. */
  longestEventMs: number;
  /** Every incident the engine raised, as the arbiter sees them. */
  incidents: readonly Incident[];
  problem?: string;
}

export interface CellFigures {
  cell: OutageCell;
  games: number;
  exactPct: number;
  /** Exact among the games whose jump had one explanation (the rest are flagged ambiguous). */
  exactUnambiguousPct: number;
  /** Exact, or flagged ambiguous with the moves really played among the candidates. */
  rightPct: number;
  /** Games whose record holds as many plies as the game (OutageGame.pliesAsPlayed). */
  pliesAsPlayedPct: number;
  /** Games whose record holds more plies than the game (OutageGame.morePlies). */
  morePliesPct: number;
  keptPct: number;
  /** Later moves kept, of how many: a percentage rounded to 100.0 would hide the few lost. */
  kept: number;
  after: number;
  ambiguous: number;
  falseIncidents: number;
  clockWrong: number;
  clockReadings: number;
  missedWithClock: number;
  /** Games whose session ended live on the table's real board. */
  following: number;
  /** Over the games, the longest the engine took over one event (OutageGame.longestEventMs): p99 and max, ms. */
  longestEventP99Ms: number;
  longestEventMaxMs: number;
  /** A few games that were not exact, for a look. */
  examples: string[];
}

/** Moves kept before the outage and after it: at least this many after, at most this many before. */
const AFTER_PLIES = 24;
const MAX_BEFORE = 30;
const MIN_BEFORE = 2;

/**
 * The script of game `seed` of a cell: a matrix game cut to the outage plus 24 plies, the outage
 * after 2–30 plies (drawn from the seed).
 */
export function outageScript(cell: OutageCell, seed: number): { game: SourceGame; script: NoisyScript } | null {
  const full = cell.chess960 ? randomGame(seed, { chess960: true }) : matrixRandomGame(seed);
  if (full.chess960 !== (cell.chess960 ?? false)) return null;
  const rng = new Prng(seed * 7919 + cell.plies * 31 + (cell.kind === 'power' ? 1 : 2) + (cell.pieceInHand ? 4 : 0));
  const room = full.moves.length - cell.plies - 4;
  if (room < MIN_BEFORE) return null;
  const afterPly = rng.int(MIN_BEFORE, Math.min(MAX_BEFORE, room));
  const n = Math.min(full.moves.length, afterPly + cell.plies + AFTER_PLIES);
  const game: SourceGame = { ...full, moves: full.moves.slice(0, n), sans: full.sans.slice(0, n) };
  const adjust = cell.clockAdjustMs !== undefined ? { clockAdjustMs: cell.clockAdjustMs } : {};
  const script = playNoisy(game, {
    model: cell.noise ?? 'mixed',
    seed,
    reversed: cell.reversed ?? false,
    outage: { afterPly, plies: cell.plies, kind: cell.kind, pieceInHand: cell.pieceInHand, ...adjust },
  });
  // A clock set by hand needs a clock: those cells are games with one.
  if (cell.clockAdjustMs !== undefined && !script.clock) return null;
  return script.outage ? { game, script } : null;
}

/** Plays one game of a cell through emulator, session and engine, and measures it. */
export async function runOutageGame(cell: OutageCell, seed: number): Promise<OutageGame | null> {
  const made = outageScript(cell, seed);
  if (!made) return null;
  const { game, script } = made;
  const run = await playThroughSession(script);
  const start = script.expected.startFen !== STANDARD_FEN ? { start: { fen: script.expected.startFen } } : {};
  const timeControl = script.clock ? { timeControl: { incrementMs: script.clock.incrementMs } } : {};
  const engine = new GameEngine({ rules: STANDARD_2018, chess960: cell.chess960 ?? false, ...(cell.chess960 ? {} : start), ...timeControl });
  const out: GameEvent[] = [];
  const commands = script.arbiter.slice();
  const asArbiter = (c: (typeof commands)[number]): GameEvent[] => engine.arbiter(onTheRecord(c, engine, game));
  let longestEventMs = 0;
  for (const ev of run.events) {
    while (commands.length > 0 && commands[0]!.at < ev.at) out.push(...asArbiter(commands.shift()!));
    const started = performance.now();
    out.push(...engine.push(ev));
    longestEventMs = Math.max(longestEventMs, performance.now() - started);
  }
  for (const c of commands) out.push(...asArbiter(c));
  const snap = engine.snapshot();
  const got = snap.moves.map((m) => m.san);
  const want = script.expected.sans;
  const { fromPly, plies } = script.outage!;
  const laterWant = want.slice(fromPly + plies);
  const kept = commonSubsequence(laterWant, got.slice(fromPly));
  const clock = clockCheck(snap.moves, run.presses, script);
  return {
    gameId: game.id,
    seed,
    exact: got.length === want.length && got.every((s, i) => s === want[i]),
    after: laterWant.length,
    kept,
    pliesAsPlayed: got.length === want.length,
    morePlies: got.length > want.length,
    ambiguous: snap.incidents.some((i) => i.kind === 'missed-moves' && i.ambiguous),
    truthOffered: snap.incidents.some((i) => i.kind === 'missed-moves' && i.ambiguous && i.ply === fromPly && (i.candidates ?? []).some((c) => c.every((san, k) => san === want[fromPly + k]))),
    falseIncidents: falseIncidents(snap.incidents, script),
    clockReadings: clock.readings,
    clockWrong: clock.wrong,
    missedWithClock: clock.missed,
    longestEventMs,
    incidents: snap.incidents,
    followsBoard: run.finalState === 'live' && run.sessionBoard !== null && run.sessionBoard.every((p, i) => p === run.tableBoard[i]),
    ...(got.length !== want.length || got.some((s, i) => s !== want[i]) ? { problem: firstDifference(want, got) } : {}),
  };
}

/**
 * The script's arbiter names a ply of the game as played; the arbiter at the board reads the
 * record, where a break takes a ply of its own and stands for any number of moves. A position to
 * reinstate is found on the record by its placement and side to move (the latest such ply).
 */
function onTheRecord(cmd: NoisyScript['arbiter'][number], engine: GameEngine, game: SourceGame): NoisyScript['arbiter'][number] {
  if (cmd.type !== 'reinstate') return cmd;
  const wanted = placementAndTurn(fenAfter(game, cmd.ply));
  const snap = engine.snapshot();
  const fens = [snap.startFen ?? game.startFen, ...snap.moves.map((m) => m.fenAfter)];
  for (let p = fens.length - 1; p >= 0; p--) if (placementAndTurn(fens[p]!) === wanted) return { ...cmd, ply: p };
  return cmd;
}

/** Incidents against a player the script did not inject (counted per kind and player). */
export function falseIncidents(incidents: readonly Incident[], script: NoisyScript): number {
  const expected = new Map<string, number>();
  for (const i of script.expected.incidents) if (i.by) expected.set(`${i.kind}/${i.by}`, (expected.get(`${i.kind}/${i.by}`) ?? 0) + 1);
  let n = 0;
  for (const i of incidents) {
    if (!('by' in i)) continue;
    const key = `${i.kind}/${i.by}`;
    const left = expected.get(key) ?? 0;
    if (left > 0) expected.set(key, left - 1);
    else n++;
  }
  return n;
}

/**
 * The clock readings of the moves made during the outage (the ones caught up, or found by the
 * engine): each must be a reading the clock really showed at a press (the emulator's, taken at
 * every press of the script); an estimate would not be one. Moves without a reading are not counted.
 */
function clockCheck(
  moves: readonly { clockAfter?: { whiteMs: number; blackMs: number } }[],
  presses: readonly { whiteMs: number; blackMs: number }[],
  script: NoisyScript,
): { readings: number; wrong: number; missed: number } {
  if (!script.clock || !script.outage) return { readings: 0, wrong: 0, missed: 0 };
  const shown = new Set(presses.map((p) => `${p.whiteMs}/${p.blackMs}`));
  const { fromPly, plies } = script.outage;
  let readings = 0;
  let wrong = 0;
  for (const m of moves.slice(fromPly, fromPly + plies)) {
    if (!m.clockAfter) continue;
    readings++;
    if (!shown.has(`${m.clockAfter.whiteMs}/${m.clockAfter.blackMs}`)) wrong++;
  }
  return { readings, wrong, missed: plies };
}

/** Length of the longest common subsequence: the later moves the record holds, in order. */
function commonSubsequence(a: readonly string[], b: readonly string[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    prev = cur;
  }
  return prev[b.length]!;
}

function firstDifference(want: readonly string[], got: readonly string[]): string {
  let i = 0;
  while (i < want.length && want[i] === got[i]) i++;
  return `differs at ply ${i + 1}: want ${want.slice(i, i + 3).join(' ') || '(end)'}, got ${got.slice(i, i + 3).join(' ') || '(end)'} (${got.length}/${want.length} plies)`;
}

/** Later moves kept as the table shows them: two decimals, never rounded up to 100%, and the counts. */
export function keptCell(r: Pick<CellFigures, 'kept' | 'after'>): string {
  const pct = r.after ? Math.floor((10_000 * r.kept) / r.after) / 100 : 100;
  return `${pct.toFixed(2)}% (${r.kept.toLocaleString('en')}/${r.after.toLocaleString('en')})`;
}

/** Plays `games` games of a cell (seeds from `firstSeed`; seeds that give no game are skipped). */
export async function runOutageCell(cell: OutageCell, games: number, firstSeed = 1): Promise<CellFigures> {
  const results: OutageGame[] = [];
  for (let seed = firstSeed; results.length < games && seed < firstSeed + games * 4; seed++) {
    const r = await runOutageGame(cell, seed);
    if (r) results.push(r);
  }
  const after = results.reduce((n, r) => n + r.after, 0);
  const kept = results.reduce((n, r) => n + r.kept, 0);
  return {
    cell,
    games: results.length,
    exactPct: pct(results.filter((r) => r.exact).length, results.length),
    exactUnambiguousPct: pct(results.filter((r) => r.exact && !r.ambiguous).length, results.filter((r) => !r.ambiguous).length),
    rightPct: pct(results.filter((r) => r.exact || r.truthOffered).length, results.length),
    pliesAsPlayedPct: pct(results.filter((r) => r.pliesAsPlayed).length, results.length),
    morePliesPct: pct(results.filter((r) => r.morePlies).length, results.length),
    keptPct: after ? (100 * kept) / after : 100,
    kept,
    after,
    ambiguous: results.filter((r) => r.ambiguous).length,
    falseIncidents: results.reduce((n, r) => n + r.falseIncidents, 0),
    clockReadings: results.reduce((n, r) => n + r.clockReadings, 0),
    clockWrong: results.reduce((n, r) => n + r.clockWrong, 0),
    missedWithClock: results.reduce((n, r) => n + r.missedWithClock, 0),
    following: results.filter((r) => r.followsBoard).length,
    ...longestEvents(results),
    examples: results
      .filter((r) => r.problem)
      .slice(0, 3)
      .map((r) => `${r.gameId} seed ${r.seed}: ${r.problem}`),
  };
}

function longestEvents(results: readonly OutageGame[]): { longestEventP99Ms: number; longestEventMaxMs: number } {
  const sorted = results.map((r) => r.longestEventMs).sort((a, b) => a - b);
  return { longestEventP99Ms: sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? 0, longestEventMaxMs: sorted.at(-1) ?? 0 };
}

const pct = (n: number, of: number): number => (of === 0 ? 100 : (100 * n) / of);

/** The table as Markdown: one row per cell; a first column names the game when any row is Chess960 or turned round. */
export function outageTable(rows: readonly CellFigures[]): string {
  const variants = rows.some((r) => r.cell.chess960 || r.cell.reversed);
  const lines = [
    `|${variants ? ' games of |' : ''} outage | plies | piece in hand | games | exact | exact with one explanation | exact or truth offered | as many plies as played | later moves kept | flagged ambiguous | false incidents | clock readings off |`,
    `|${variants ? '---|' : ''}---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|`,
  ];
  for (const r of rows) {
    const kind = r.cell.kind === 'power' ? 'power lost (USB pulled)' : 'link lost (board powered)';
    const named = [r.cell.chess960 ? 'Chess960' : 'standard', ...(r.cell.reversed ? ['board turned round'] : [])].join(', ');
    const game = variants ? ` ${named} |` : '';
    lines.push(
      `|${game} ${kind} | ${r.cell.plies} | ${r.cell.pieceInHand ? 'yes' : 'no'} | ${r.games} | ${r.exactPct.toFixed(1)}% | ${r.exactUnambiguousPct.toFixed(1)}% | ${r.rightPct.toFixed(1)}% | ${r.pliesAsPlayedPct.toFixed(1)}% | ${keptCell(r)} | ${r.ambiguous} | ${r.falseIncidents} | ${r.clockWrong}/${r.clockReadings} |`,
    );
  }
  return lines.join('\n');
}

/** The clock-set table as Markdown: one row per cell. */
export function clockSetTable(rows: readonly CellFigures[]): string {
  const lines = [
    '| plies | piece in hand | time given | games | exact | exact or truth offered | as many plies as played | more plies than played | later moves kept | false incidents |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.cell.plies} | ${r.cell.pieceInHand ? 'yes' : 'no'} | ${(r.cell.clockAdjustMs ?? 0) / 1000} s | ${r.games} | ${r.exactPct.toFixed(1)}% | ${r.rightPct.toFixed(1)}% | ${r.pliesAsPlayedPct.toFixed(1)}% | ${r.morePliesPct.toFixed(1)}% | ${keptCell(r)} | ${r.falseIncidents} |`,
    );
  }
  return lines.join('\n');
}

/** One row of the noise table: every cell of the outage table under one noise model, pooled. */
export interface NoiseFigures {
  noise: NoiseModel;
  games: number;
  /** Exact, or flagged ambiguous with the moves really played among the candidates. */
  right: number;
  pliesAsPlayed: number;
  kept: number;
  after: number;
  falseIncidents: number;
  /** Games whose engine threw (a fault: the daemon keeps it to its game, the table counts it). */
  faults: number;
  /** Games whose session ended live on the table's real board. */
  following: number;
}

/**
 * The noise table's row of `noise`: `perCell` games of each cell of the outage table (seeds from
 * `firstSeed`), played under that model instead of the matrix's 'mixed'. The tables above are
 * played under one model; the engine must not be fitted to it.
 */
export async function runNoiseRow(noise: NoiseModel, perCell: number, firstSeed = 1): Promise<NoiseFigures> {
  const row: NoiseFigures = { noise, games: 0, right: 0, pliesAsPlayed: 0, kept: 0, after: 0, falseIncidents: 0, faults: 0, following: 0 };
  for (const cell of outageCells()) {
    let played = 0;
    for (let seed = firstSeed; played < perCell && seed < firstSeed + perCell * 4; seed++) {
      let r: OutageGame | null;
      try {
        r = await runOutageGame({ ...cell, noise }, seed);
      } catch {
        played++;
        row.games++;
        row.faults++;
        continue;
      }
      if (!r) continue;
      played++;
      row.games++;
      if (r.exact || r.truthOffered) row.right++;
      if (r.pliesAsPlayed) row.pliesAsPlayed++;
      row.kept += r.kept;
      row.after += r.after;
      row.falseIncidents += r.falseIncidents;
      if (r.followsBoard) row.following++;
    }
  }
  return row;
}

/** The noise table as Markdown: one row per noise model. */
export function noiseTable(rows: readonly NoiseFigures[]): string {
  const lines = [
    "| noise | games | exact or truth offered | as many plies as played | later moves kept | false incidents | engine faults | sessions on the table's board |",
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.noise} | ${r.games} | ${pct(r.right, r.games).toFixed(1)}% | ${pct(r.pliesAsPlayed, r.games).toFixed(1)}% | ${keptCell(r)} | ${r.falseIncidents} | ${r.faults} | ${r.following}/${r.games} |`,
    );
  }
  return lines.join('\n');
}
