import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../daemon/store/store.ts';
import { Prng } from '../../daemon/simulation/games/prng.ts';
import { clockFrame, mustOpen, tempDir } from './helpers.ts';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

/**
 * What a power cut leaves: the database file and its WAL as they are on disk at that instant.
 * Between two commits (synchronous=FULL: a commit is on disk when it returns) the image must hold
 * every committed event; a cut in the middle of the next commit leaves a torn frame at the end of
 * the WAL, which must be ignored, not read as data nor taken as damage.
 */
describe('crash images taken during heavy writes', () => {
  it('every event committed before the image is there, nothing else, and the file is sound', () => {
    const file = join(dir, 'boardcast.sqlite');
    const store = mustOpen(file);
    const rng = new Prng(7);
    const images: { dir: string; committed: number; torn: boolean }[] = [];
    let committed = 0;
    for (let batch = 0; batch < 300; batch++) {
      const n = 1 + Math.floor(rng.next() * 200);
      store.appendRawEvents(Array.from({ length: n }, (_, i) => clockFrame(1 + ((committed + i) % 8), committed + i)));
      committed += n;
      if (rng.next() < 0.08) {
        const torn = rng.next() < 0.5;
        const img = join(dir, `image-${images.length}`);
        mkdirSync(img);
        copyFileSync(file, join(img, 'boardcast.sqlite'));
        if (existsSync(`${file}-wal`)) {
          const wal = readFileSync(`${file}-wal`);
          // A torn next commit: part of a frame header and page, then the power went.
          const tail = torn ? Buffer.from(Array.from({ length: 24 + Math.floor(rng.next() * 4000) }, () => Math.floor(rng.next() * 256))) : Buffer.alloc(0);
          writeFileSync(join(img, 'boardcast.sqlite-wal'), Buffer.concat([wal, tail]));
        }
        images.push({ dir: img, committed, torn });
      }
    }
    store.close();
    expect(images.length).toBeGreaterThan(10);
    expect(images.some((i) => i.torn)).toBe(true);
    for (const img of images) {
      const opened = openStore(join(img.dir, 'boardcast.sqlite'), { check: 'quick' });
      expect(opened.ok, `${img.dir}: ${opened.ok ? '' : opened.error.message}`).toBe(true);
      if (!opened.ok) continue;
      const s = opened.value;
      expect(s.lastRawEventId(), img.dir).toBe(img.committed);
      let total = 0;
      for (let t = 1; t <= 8; t++) total += [...s.readRawEvents(t)].length;
      expect(total, img.dir).toBe(img.committed);
      s.close();
    }
  });
});
