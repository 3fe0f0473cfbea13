import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILT_VIEWER_DIR, PACKAGE_ROOT, RUNNING_BUILT } from '../install/paths.ts';
import { err, ok, type Result } from '../../protocols/result.ts';

export interface ViewerBundle {
  js: string;
  css: string;
}

/**
 * The viewer's script and style sheet. A built daemon (dist/, the installed bin) serves the bundle
 * `npm run build` wrote and needs no bundler at run time; a daemon run from the sources (tsx,
 * tests) bundles viewer/src in memory with esbuild (a dev dependency), so it never serves a stale
 * build. Failures come back as values: the API still works without a viewer.
 */
export async function bundleViewer(): Promise<Result<ViewerBundle, string>> {
  if (RUNNING_BUILT) {
    try {
      const js = readFileSync(join(BUILT_VIEWER_DIR, 'viewer.js'), 'utf8');
      const css = readFileSync(join(BUILT_VIEWER_DIR, 'viewer.css'), 'utf8');
      return ok({ js, css });
    } catch (e) {
      return err(`the built viewer is missing (${(e as Error).message}); run npm run build`);
    }
  }
  try {
    const script = pathToFileURL(join(PACKAGE_ROOT, 'viewer', 'build.mjs')).href;
    const { bundleViewerSources } = (await import(script)) as { bundleViewerSources: (root: string) => Promise<ViewerBundle> };
    return ok(await bundleViewerSources(PACKAGE_ROOT));
  } catch (e) {
    return err((e as Error).message);
  }
}
