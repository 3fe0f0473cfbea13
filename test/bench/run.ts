import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// `npm run bench`: runs every test/bench/*.bench.ts in turn (or only those named on the command
// line, e.g. `npm run bench -- decoder`). Each prints its own figures; docs/benchmarks.md records them.
const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
for (const f of files) {
  console.log(`\n=== ${f} ===`);
  const mod = (await import(`./${f}`)) as { default?: () => Promise<void> | void };
  if (typeof mod.default === 'function') await mod.default();
}
