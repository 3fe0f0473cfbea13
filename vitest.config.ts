import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Two projects: `unit` runs on any machine in seconds to minutes; `e2e` needs socat (real
// pseudo-terminals), child processes and Debian's chromium, and is slower.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'node_modules/**'],
          testTimeout: 60_000,
          // Vitest's default in a run is a worker fewer than the cores, one on the 2-core machines
          // CI runs on: the unit files then ran one at a time (326 s of .ci/run's 21 minutes,
          // session 44); two workers took 197 s. Elsewhere the default stands.
          maxWorkers: Math.max(2, availableParallelism() - 1),
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          // A page follows the daemon through its websocket feed: on a loaded 2-core machine one
          // round trip can take more than expect.poll's default second (viewer-arbiter's result
          // line, session 39, with a bench on the other core). A poll ends as soon as its condition
          // holds; only the ceiling is raised.
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
});
