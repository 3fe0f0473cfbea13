import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

export interface ViewerBundle {
  js: string;
  css: string;
}

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Bundles viewer/src in memory with esbuild's JS API at server start, so `npm start` needs no
 * separate build step. Returns the build errors as a value (the API still works without a viewer).
 */
export async function bundleViewer(): Promise<{ ok: true; bundle: ViewerBundle } | { ok: false; message: string }> {
  try {
    const result = await build({
      absWorkingDir: root,
      entryPoints: ['viewer/src/main.ts', 'viewer/src/style.css'],
      bundle: true,
      write: false,
      format: 'esm',
      target: 'es2020',
      minify: true,
      sourcemap: false,
      outdir: 'out',
      logLevel: 'silent',
    });
    let js = '';
    let css = '';
    for (const f of result.outputFiles) {
      if (f.path.endsWith('.js')) js = f.text;
      else if (f.path.endsWith('.css')) css = f.text;
    }
    return { ok: true, bundle: { js, css } };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}
