import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the installed package's own files are. The same code runs from the source tree (tsx,
 * vitest) and compiled under dist/ (npm start, the installed `boardcast` bin), so no path may be
 * counted in `../` steps from a module: the package root is found by its package.json.
 */
function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const name = (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name;
      if (name === 'boardcast') return dir;
    }
    if (dirname(dir) === dir) throw new Error(`boardcast's package.json not found above ${from}`);
  }
}

export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** True when this process runs the compiled output (dist/), false from the TypeScript sources. */
export const RUNNING_BUILT = import.meta.url.endsWith('.js');

/** The embedded default config, the example and the JSON Schema. */
export const CONFIG_DIR = join(PACKAGE_ROOT, 'config');

/** The viewer bundle `npm run build` writes (served as is by a built daemon). */
export const BUILT_VIEWER_DIR = join(PACKAGE_ROOT, 'dist', 'viewer');

/** The shared data folder a checkout sits beside (real games for the emulated hall), if any. */
export const SHARED_GAMES_DIR = join(PACKAGE_ROOT, '..', 'shared', 'data', 'games');

/**
 * A dependency's directory, looked up along the node_modules folders Node would search from the
 * package root (hoisted or not). Not `require.resolve('x/package.json')`: packages with an
 * `exports` map (chessground) do not export their package.json.
 */
export function packageDir(name: string): string {
  const require = createRequire(join(PACKAGE_ROOT, 'package.json'));
  for (const dir of require.resolve.paths(name) ?? []) {
    if (existsSync(join(dir, name, 'package.json'))) return join(dir, name);
  }
  throw new Error(`package ${name} is not installed`);
}
