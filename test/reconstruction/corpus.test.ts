import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { gameFromCorpus, runCase, type CorpusCase } from './harness.ts';

// Failing cases the matrix once found, cut to their shortest failing prefix and kept here
// (self-contained: the game's moves are in the file). Each must reconstruct exactly: a case stays
// red until the engine is fixed. `npx tsx test/reconstruction/report.ts --save-corpus` adds cases.
const dir = fileURLToPath(new URL('./corpus/', import.meta.url));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();

describe('reconstruction corpus', () => {
  it('has readable cases', () => {
    for (const f of files) {
      const c = JSON.parse(readFileSync(dir + f, 'utf8')) as CorpusCase;
      expect(c.game.sans.length, f).toBeGreaterThan(0);
    }
  });
  for (const f of files) {
    it(f, () => {
      const c = JSON.parse(readFileSync(dir + f, 'utf8')) as CorpusCase;
      const r = runCase(gameFromCorpus(c.game), c.model, c.seed);
      expect(r.problems, `was: ${c.problems.join('; ')}`).toEqual([]);
    });
  }
});
