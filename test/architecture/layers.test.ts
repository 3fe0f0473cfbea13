import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLayers, formatReport } from './layers.ts';

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** A tiny tree: `files` maps a path to the modules it imports (relative specs). */
function tree(files: Record<string, string[]>): string {
  const root = mkdtempSync(join(tmpdir(), 'boardcast-layers-'));
  roots.push(root);
  for (const [path, imports] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), imports.map((s, i) => `import { x${i} } from '${s}';\n`).join('') + 'export const x = 1;\n');
  }
  return root;
}

describe('the dependency rule', () => {
  it('accepts imports from the edges to the core', () => {
    const root = tree({
      'protocols/feed/model.ts': [],
      'daemon/store/store.ts': ['../../protocols/feed/model.ts'],
      'daemon/runtime/hall.ts': ['../store/store.ts', '../../protocols/feed/model.ts'],
      'bridge/lcc/format.ts': ['../../protocols/feed/model.ts'],
      'viewer/src/main.ts': ['../../protocols/feed/model.ts'],
    });
    expect(formatReport(checkLayers(root))).toBe('');
  });

  it('names an inward import: a bridge reaching into the daemon, a lower layer into a higher one', () => {
    const root = tree({
      'daemon/server/live.ts': [],
      'daemon/store/store.ts': ['../runtime/hall.ts'],
      'daemon/runtime/hall.ts': [],
      'bridge/relay/router.ts': ['../../daemon/server/live.ts'],
      'protocols/feed/apply.ts': ['../../daemon/server/live.ts'],
    });
    const r = checkLayers(root);
    expect(r.inward).toEqual(
      expect.arrayContaining([
        'bridge -> daemon/server: bridge/relay/router.ts imports ../../daemon/server/live.ts',
        'daemon/store -> daemon/runtime: daemon/store/store.ts imports ../runtime/hall.ts',
        'protocols/feed -> daemon/server: protocols/feed/apply.ts imports ../../daemon/server/live.ts',
      ]),
    );
  });

  it('names a cycle, also inside protocols/ where no layer order is set', () => {
    const root = tree({
      'protocols/dgt/catchup.ts': ['../rules/start.ts'],
      'protocols/rules/start.ts': ['../dgt/squares.ts'],
      'protocols/dgt/squares.ts': [],
    });
    expect(checkLayers(root).cycles).toEqual(['protocols/dgt -> protocols/rules -> protocols/dgt']);
  });

  it('asks for a new daemon folder to be placed in the layer order', () => {
    const root = tree({ 'daemon/gadgets/x.ts': [] });
    expect(checkLayers(root).unknown).toEqual(['daemon/gadgets']);
  });
});
