import { readFileSync, readdirSync } from 'node:fs';
import { SHARED_GAMES_DIR, sharedDataPresent } from '../shared-data.ts';
import type { NormalMove } from 'chessops';
import type { Chess } from 'chessops/chess';
import { makeSan, parseSan } from 'chessops/san';
import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import type { GameEvent, IncidentKind, RulesConfig } from '../../daemon/reconstruction/game-events.ts';
import type { SourceGame } from '../../daemon/simulation/games/game.ts';
import { loadPgn, positionFromFen } from '../../daemon/simulation/games/pgn.ts';
import { randomGame } from '../../daemon/simulation/games/random.ts';
import { NOISE_MODELS, playNoisy, sessionEvents, type ExpectedIncident, type NoiseModel, type NoisyScript } from '../../daemon/simulation/noisy-player/player.ts';

export const GAMES_DIR = SHARED_GAMES_DIR;
export const STANDARD_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
export const STANDARD_2018: RulesConfig = { edition: '2018', category: 'standard' };

/** `moves` played from `pos` (left as it is), as SANs joined by spaces. */
export function sanLine(pos: Chess, moves: readonly NormalMove[]): string {
  const p = pos.clone();
  return moves
    .map((m) => {
      const san = makeSan(p, m);
      p.play(m);
      return san;
    })
    .join(' ');
}

/** Every kind of incident the noisy player injects must be one the engine can report. */
const injectedKindsAreEngineKinds: ExpectedIncident['kind'] extends IncidentKind ? true : never = true;
void injectedKindsAreEngineKinds;

/** An incident as the engine reported it, in the terms the script's expectations use. */
export interface ReportedIncident {
  kind: IncidentKind;
  ply: number;
  by?: ExpectedIncident['by'];
}

/** What the engine concluded from one script. */
export interface Reconstruction {
  sans: string[];
  incidents: ReportedIncident[];
  takebacks: number[];
  reversed: boolean | undefined;
}

/** Feeds a script's observed stream (and its arbiter commands, by time) into a fresh engine. */
export function reconstruct(script: NoisyScript, chess960: boolean, rules: RulesConfig = STANDARD_2018): Reconstruction {
  const startFen = script.expected.startFen;
  const start = !chess960 && startFen !== STANDARD_FEN ? { fen: startFen } : undefined;
  const engine = new GameEngine({ rules, chess960, ...(start ? { start } : {}) });
  const out: GameEvent[] = [];
  const commands = script.arbiter.slice();
  for (const ev of sessionEvents(script)) {
    while (commands.length > 0 && commands[0]!.at < ev.at) out.push(...engine.arbiter(commands.shift()!));
    out.push(...engine.push(ev));
  }
  for (const c of commands) out.push(...engine.arbiter(c));
  const snap = engine.snapshot();
  const started = out.find((e) => e.type === 'game-started');
  return {
    sans: snap.moves.map((m) => m.san),
    incidents: snap.incidents.map((i) => ({ kind: i.kind, ply: i.ply, ...('by' in i ? { by: i.by } : {}) })),
    takebacks: out.flatMap((e) => (e.type === 'takeback' ? [e.toPly] : [])),
    reversed: started?.type === 'game-started' ? started.reversed : undefined,
  };
}

/** Every way the reconstruction differs from what the script intended (empty: a pass). */
export function mismatches(script: NoisyScript, got: Reconstruction): string[] {
  const out: string[] = [];
  const want = script.expected;
  const firstDiff = want.sans.findIndex((s, i) => got.sans[i] !== s);
  if (firstDiff >= 0 || got.sans.length !== want.sans.length) {
    const at = firstDiff >= 0 ? firstDiff : Math.min(want.sans.length, got.sans.length);
    out.push(
      `moves differ at ply ${at + 1}: want ${want.sans.slice(at, at + 3).join(' ') || '(end)'}, got ${got.sans.slice(at, at + 3).join(' ') || '(end)'} (${got.sans.length}/${want.sans.length} plies)`,
    );
  }
  const fmt = (i: ExpectedIncident | ReportedIncident): string => `${i.kind}@${i.ply}${i.by ? `/${i.by}` : ''}`;
  const wantI = want.incidents.map(fmt).join(', ');
  const gotI = got.incidents.map(fmt).join(', ');
  if (wantI !== gotI) out.push(`incidents: want [${wantI}], got [${gotI}]`);
  if (want.takebacks.join(',') !== got.takebacks.join(',')) out.push(`takebacks: want [${want.takebacks.join(',')}], got [${got.takebacks.join(',')}]`);
  if (got.reversed !== script.reversed) out.push(`reversed: want ${script.reversed}, got ${got.reversed}`);
  return out;
}

export interface CaseResult {
  game: SourceGame;
  model: NoiseModel;
  seed: number;
  problems: string[];
}

export function runCase(game: SourceGame, model: NoiseModel, seed: number, rules: RulesConfig = STANDARD_2018): CaseResult {
  const script = playNoisy(game, { model, seed });
  let problems: string[];
  try {
    problems = mismatches(script, reconstruct(script, game.chess960, rules));
  } catch (e) {
    // The engine must never throw on board input; a throw is a failure like any other.
    problems = [`engine threw: ${(e as Error).stack?.split('\n').slice(0, 3).join(' | ')}`];
  }
  return { game, model, seed, problems };
}

/** The shared real games, or null (with the reason) when the shared data is absent. */
export function loadSharedGames(): { games: SourceGame[]; problems: string[] } | { absent: string } {
  if (!sharedDataPresent(GAMES_DIR, 'shared real games')) return { absent: `${GAMES_DIR} is absent` };
  const games: SourceGame[] = [];
  const problems: string[] = [];
  for (const f of readdirSync(GAMES_DIR)
    .filter((n) => n.endsWith('.pgn'))
    .sort()) {
    const loaded = loadPgn(readFileSync(`${GAMES_DIR}/${f}`, 'utf8'), f);
    games.push(...loaded.games);
    problems.push(...loaded.problems.map((p) => `${p.id}: ${p.reason}`));
  }
  return { games, problems };
}

/** Random games of the matrix: every fifth one a Chess960 start. */
export function matrixRandomGame(seed: number): SourceGame {
  return randomGame(seed, { chess960: seed % 5 === 4 });
}

export const PER_MOVE_MODELS: readonly NoiseModel[] = NOISE_MODELS.filter((m) => m !== 'mixed' && m !== 'clean');

/**
 * Which models a game runs under in the matrix: every game under clean and mixed, and one (real
 * games) or two (random games) of the other models in rotation, so each model sees a share of all
 * games within the time budget.
 */
export function modelsFor(index: number, random: boolean): NoiseModel[] {
  const n = PER_MOVE_MODELS.length;
  const extra = random ? [PER_MOVE_MODELS[index % n]!, PER_MOVE_MODELS[(index + 1 + Math.floor(index / n)) % n]!] : [PER_MOVE_MODELS[index % n]!];
  return ['clean', 'mixed', ...new Set(extra)];
}

/** A saved failing case: self-contained (the game's moves are in it), replayed by corpus.test.ts. */
export interface CorpusCase {
  game: { id: string; chess960: boolean; startFen: string; sans: string[] };
  model: NoiseModel;
  seed: number;
  /** What went wrong when it was saved. */
  problems: string[];
}

export function gameFromCorpus(c: CorpusCase['game']): SourceGame {
  const pos = positionFromFen(c.startFen);
  const moves: NormalMove[] = [];
  for (const san of c.sans) {
    const m = parseSan(pos, san);
    if (!m || !('from' in m)) throw new Error(`corpus game ${c.id}: cannot play ${san}`);
    moves.push(m);
    pos.play(m);
  }
  return { ...c, moves };
}

/** The shortest prefix of the game that still fails under the same model and seed. */
export function minimise(result: CaseResult): CaseResult {
  let best = result;
  for (let n = 1; n < result.game.moves.length; n++) {
    const g: SourceGame = { ...result.game, moves: result.game.moves.slice(0, n), sans: result.game.sans.slice(0, n) };
    const r = runCase(g, result.model, result.seed);
    if (r.problems.length > 0) {
      best = r;
      break;
    }
  }
  return best;
}
