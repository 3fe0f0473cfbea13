import { describe, expect, it } from 'vitest';
import { NOISE_MODELS, type NoiseModel } from '../../daemon/simulation/noisy-player/player.ts';
import type { SourceGame } from '../../daemon/simulation/games/game.ts';
import type { RulesConfig } from '../../daemon/reconstruction/game-events.ts';
import { loadSharedGames, matrixRandomGame, modelsFor, runCase, type CaseResult } from './harness.ts';

// The reconstruction matrix: games × noise models, fed through the tabletop into a fresh engine.
// Every game runs under clean and mixed; the other models rotate over the games (see modelsFor and
// docs/reconstruction.md). `npx tsx test/reconstruction/report.ts` prints the same matrix as a table
// and saves minimal failing cases into test/reconstruction/corpus/.
const RANDOM_GAMES = 1000;

function plan(games: SourceGame[], random: boolean): Map<NoiseModel, SourceGame[]> {
  const byModel = new Map<NoiseModel, SourceGame[]>(NOISE_MODELS.map((m) => [m, []]));
  games.forEach((g, i) => {
    for (const m of modelsFor(i, random)) byModel.get(m)!.push(g);
  });
  return byModel;
}

function describeFailures(results: CaseResult[]): string {
  const bad = results.filter((r) => r.problems.length > 0);
  return bad
    .slice(0, 8)
    .map((r) => `${r.game.id} ${r.model} seed ${r.seed}: ${r.problems.join('; ')}`)
    .join('\n');
}

const shared = loadSharedGames();
const random = Array.from({ length: RANDOM_GAMES }, (_, seed) => matrixRandomGame(seed));

/** Tests of at most CHUNK games each, so no single test nears the 60 s unit timeout on a busy machine. */
const CHUNK = 200;

function matrixTests(games: SourceGame[], random: boolean, label: string): void {
  for (const [model, list] of plan(games, random)) {
    for (let from = 0; from < list.length; from += CHUNK) {
      const part = list.slice(from, from + CHUNK);
      const range = list.length > CHUNK ? ` ${from + 1}–${from + part.length} of ${list.length}` : ` ${list.length}`;
      it(`${model} over${range} ${label}`, () => {
        const results = part.map((g) => runCase(g, model, 1));
        const failed = results.filter((r) => r.problems.length > 0).length;
        expect(failed, `${failed}/${part.length} failed:\n${describeFailures(results)}`).toBe(0);
      });
    }
  }
}

describe('reconstruction matrix: random games', () => {
  matrixTests(random, true, 'random games');
});

describe('reconstruction matrix: every rules edition and time-control category', () => {
  // The same games and incidents whatever the Laws in force: only the consequences differ.
  const configs: RulesConfig[] = (['2018', '2009', '1997'] as const).flatMap((edition) => (['standard', 'rapid', 'blitz'] as const).map((category) => ({ edition, category })));
  for (const rules of configs) {
    it(`${rules.edition} ${rules.category}: mixed, illegal-completed and promotion-unreplaced over 40 random games`, () => {
      const results = random.slice(0, 40).flatMap((g) => (['mixed', 'illegal-completed', 'promotion-unreplaced'] as const).map((m) => runCase(g, m, 2, rules)));
      const failed = results.filter((r) => r.problems.length > 0).length;
      expect(failed, `${failed}/${results.length} failed:\n${describeFailures(results)}`).toBe(0);
    });
  }
});

describe('reconstruction matrix: shared real games', () => {
  // loadSharedGames has warned (and in CI failed) when the corpus is absent.
  if ('absent' in shared) return;
  it('loads every shared game', () => {
    expect(shared.problems).toEqual([]);
    expect(shared.games.length).toBeGreaterThan(0);
  });
  matrixTests(shared.games, false, 'real games');
});
