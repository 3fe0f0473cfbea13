// Bundles the viewer once for the built daemon (`npm run build`): dist/viewer/viewer.js and
// viewer.css. The same options serve the in-memory bundle a daemon run from the sources makes
// (daemon/server/viewer-bundle.ts), so what tests see is what a built daemon serves.
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const VIEWER_BUILD_OPTIONS = {
  entryPoints: ['viewer/src/main.ts', 'viewer/src/style.css'],
  bundle: true,
  format: 'esm',
  target: 'es2020',
  minify: true,
  sourcemap: false,
  outdir: 'out',
  logLevel: 'silent',
};

/** Bundles in memory: `{ js, css }`. `root` is the package root. */
export async function bundleViewerSources(root) {
  const result = await build({ ...VIEWER_BUILD_OPTIONS, absWorkingDir: root, write: false });
  let js = '';
  let css = '';
  for (const f of result.outputFiles) {
    if (f.path.endsWith('.js')) js = f.text;
    else if (f.path.endsWith('.css')) css = f.text;
  }
  return { js, css };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const { js, css } = await bundleViewerSources(root);
  const out = join(root, 'dist', 'viewer');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'viewer.js'), js);
  writeFileSync(join(out, 'viewer.css'), css);
  console.log(`viewer bundled: ${out} (js ${js.length} bytes, css ${css.length} bytes)`);
}
