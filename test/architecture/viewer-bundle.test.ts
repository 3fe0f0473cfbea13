import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../daemon/install/paths.ts';
// @ts-expect-error: a plain ES module of the build, without types
import { bundleViewerSources } from '../../viewer/build.mjs';

describe('the viewer bundle', () => {
  it('carries no server-side code (the schemas and their validator stay on the server)', async () => {
    const { js } = (await bundleViewerSources(PACKAGE_ROOT)) as { js: string };
    // Phones in the hall load this on venue wifi: the viewer alone is about 85 KB minified.
    expect(js.length).toBeLessThan(150_000);
    expect(js).not.toMatch(/ajv|@sinclair\/typebox|better-sqlite3/);
  });
});
