import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import type { BoardEvent } from '../../protocols/board-events.ts';
import { playNoisy, type NoisyScript } from '../../daemon/simulation/noisy-player/player.ts';
import { STANDARD_2018, matrixRandomGame } from './harness.ts';
import { playThroughSession, type SessionRun } from './outage-rig.ts';
import { falseIncidents } from './outages.ts';

/**
 * A clock whose readings stop for a while mid-game, the board read on: its cable out of the board
 * and put back, its battery flat and changed, or readings lost on the line. Play goes on, pressed
 * on a clock nobody reads. The game is one of the matrix's random games (no Chess960) under its
 * 'mixed' noise with a clock, played through the emulated board and the real session; the clock's
 * readings are then cut from the event stream from just before the host's `from`-th seen press to
 * just before the one `presses` later (0: nothing cut), as a cable pulled and put back cuts them.
 */
export interface SilentClockGame {
  seed: number;
  sans: string[];
  want: string[];
  exact: boolean;
  falseIncidents: number;
}

/** The script of a seed, when it is a game the cell plays (a clock, no Chess960, long enough). */
function scriptOf(seed: number): NoisyScript | null {
  const game = matrixRandomGame(seed);
  if (game.chess960) return null;
  const script = playNoisy(game, { model: 'mixed', seed, reversed: false });
  return script.clock ? script : null;
}

/** A game's run through the session with the clock's readings cut from `from` to `to` (host ms). */
export interface SilencedRun {
  script: NoisyScript;
  run: SessionRun;
  /** The run's events without the readings cut. */
  events: BoardEvent[];
  from: number;
  to: number;
}

export async function silencedRun(seed: number, from: number | 'drawn', presses: number): Promise<SilencedRun | null> {
  const script = scriptOf(seed);
  if (!script) return null;
  const run = await playThroughSession(script);
  const pressedAt: number[] = [];
  let running: string | null | undefined;
  for (const ev of run.events) {
    if (ev.type !== 'clock') continue;
    if (running !== undefined && ev.running !== running) pressedAt.push(ev.at);
    running = ev.running;
  }
  // Drawn from the seed: somewhere after the opening, leaving ten presses after the silence.
  const first = from === 'drawn' ? 8 + (seed % Math.max(1, pressedAt.length - presses - 10)) : from;
  if (pressedAt.length < first + presses + 1) return null;
  const cutFrom = pressedAt[first]! - 300;
  const cutTo = pressedAt[first + presses]! - 300;
  const silent = (ev: BoardEvent): boolean => ev.type === 'clock' && ev.at >= cutFrom && ev.at < cutTo;
  return { script, run, events: run.events.filter((e) => !silent(e)), from: cutFrom, to: cutTo };
}

export async function silentClockGame(seed: number, from: number | 'drawn', presses: number): Promise<SilentClockGame | null> {
  const silenced = await silencedRun(seed, from, presses);
  if (!silenced) return null;
  const { script, events } = silenced;
  const engine = new GameEngine({ rules: STANDARD_2018, chess960: false, timeControl: { incrementMs: script.clock!.incrementMs } });
  const commands = script.arbiter.slice();
  for (const ev of events) {
    while (commands.length > 0 && commands[0]!.at < ev.at) engine.arbiter(commands.shift()!);
    engine.push(ev);
  }
  for (const c of commands) engine.arbiter(c);
  const snap = engine.snapshot();
  const sans = snap.moves.map((m) => m.san);
  const want = script.expected.sans;
  return { seed, sans, want, exact: sans.length === want.length && sans.every((s, i) => s === want[i]), falseIncidents: falseIncidents(snap.incidents, script) };
}

export interface SilentClockCell {
  presses: number;
  games: number;
  exact: number;
  falseIncidents: number;
  failing: number[];
}

/** `games` games (seeds from 1) with the clock unread for `presses` presses at a moment drawn from each seed. */
export async function silentClockCell(presses: number, games: number): Promise<SilentClockCell> {
  const cell: SilentClockCell = { presses, games: 0, exact: 0, falseIncidents: 0, failing: [] };
  for (let seed = 1; cell.games < games && seed <= games * 4; seed++) {
    const r = await silentClockGame(seed, 'drawn', presses);
    if (!r) continue;
    cell.games++;
    if (r.exact) cell.exact++;
    cell.falseIncidents += r.falseIncidents;
    if (!r.exact || r.falseIncidents > 0) cell.failing.push(seed);
  }
  return cell;
}
