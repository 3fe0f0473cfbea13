import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePgn } from 'chessops/pgn';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gameFile, roundFile, startPgnFolder, type PgnFolder } from '../../bridge/pgn-folder/writer.ts';
import { roundPgn } from '../../bridge/relay/round-pgn.ts';
import { pgnExtract, skipWithoutPgnExtract } from '../pgn/pgn-extract.ts';
import { Hall, LINES } from '../server/hall.ts';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.reverse()) c();
  cleanup = [];
});

function setup(tables: number, debounceMs = 60_000): { hall: Hall; dir: string; folder: PgnFolder; errors: string[] } {
  const hall = new Hall({ tables });
  hall.connectAll();
  const root = mkdtempSync(join(tmpdir(), 'pgn-folder-'));
  const dir = join(root, 'broadcast');
  const errors: string[] = [];
  const folder = startPgnFolder({ source: hall.source, dir, debounceMs, onError: (m) => errors.push(m) });
  cleanup.push(
    () => rmSync(root, { recursive: true, force: true }),
    () => folder.stop(),
  );
  return { hall, dir, folder, errors };
}

const read = (file: string) => readFileSync(file, 'utf8');

describe('PGN folder output', () => {
  it('writes one file per round (the served round PGN) and one per game named by its table', () => {
    const { hall, dir } = setup(3);
    for (const san of LINES[0]!.slice(0, 6)) hall.play('r1-t1', san);
    expect(readdirSync(dir).sort()).toEqual(['round-1', 'round-1.pgn']);
    expect(readdirSync(join(dir, 'round-1')).sort()).toEqual(['game-1.pgn', 'game-2.pgn', 'game-3.pgn']);
  });

  it('follows the games: after moves the files equal the source again, at once when flushed', () => {
    const { hall, dir, folder } = setup(2);
    for (const san of LINES[1]!.slice(0, 5)) hall.play('r1-t2', san);
    expect(read(gameFile(dir, 1, 2))).not.toContain(LINES[1]![4]); // not yet: changes wait for the debounce
    folder.flush();
    expect(read(roundFile(dir, 1))).toBe(roundPgn(hall.source, 1));
    for (const t of [1, 2]) expect(read(gameFile(dir, 1, t))).toBe(hall.source.pgn(`r1-t${t}`)!.trimEnd() + '\n');
    expect([...parsePgn(read(gameFile(dir, 1, 2)))[0]!.moves.mainline()].map((n) => n.san)).toEqual(LINES[1]!.slice(0, 5));
  });

  it('replaces each file by a rename (a reader never sees half a file), only when its text changed, and leaves no temp files', () => {
    const { hall, dir, folder } = setup(2);
    const before = { one: statSync(gameFile(dir, 1, 1)).ino, two: statSync(gameFile(dir, 1, 2)).ino, writes: folder.state().writes };
    hall.play('r1-t1', LINES[0]![0]!);
    folder.flush();
    expect(statSync(gameFile(dir, 1, 1)).ino).not.toBe(before.one); // a new file renamed over the old
    expect(statSync(gameFile(dir, 1, 2)).ino).toBe(before.two); // table 2 unchanged: not rewritten
    expect(folder.state().writes).toBe(before.writes + 2); // game 1 and the round file
    expect(readdirSync(join(dir, 'round-1')).filter((n) => n.includes('.tmp'))).toEqual([]);
    expect(readdirSync(dir).filter((n) => n.includes('.tmp'))).toEqual([]);
  });

  it('writes on its own after the debounce (waiting on the file, not on time)', async () => {
    const { hall, dir } = setup(1, 5);
    hall.play('r1-t1', 'e4');
    await vi.waitFor(() => expect(read(gameFile(dir, 1, 1))).toContain('1. e4'), { timeout: 5000, interval: 10 });
  });

  it('a failed write is reported, keeps the old file whole and is retried on the next change', () => {
    const { hall, dir, folder, errors } = setup(1);
    const old = read(roundFile(dir, 1));
    // Something in the way of game-1.pgn: the rename cannot replace a directory.
    rmSync(gameFile(dir, 1, 1));
    mkdirSync(join(gameFile(dir, 1, 1), 'in-the-way'), { recursive: true });
    hall.play('r1-t1', 'd4');
    folder.flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^round 1: /);
    expect(folder.state().lastError).toBe(errors[0]);
    expect(read(roundFile(dir, 1))).toBe(old);
    rmSync(gameFile(dir, 1, 1), { recursive: true });
    hall.play('r1-t1', 'd5');
    folder.flush();
    expect(folder.state().lastError).toBeNull();
    expect(read(gameFile(dir, 1, 1))).toContain('1. d4');
    expect(read(roundFile(dir, 1))).toBe(roundPgn(hall.source, 1));
  });

  it.skipIf(skipWithoutPgnExtract)('every file reads in pgn-extract and chessops, move for move', () => {
    const { hall, dir, folder } = setup(3);
    for (let i = 0; i < 3; i++) for (const san of LINES[i]!.slice(0, 8 + i)) hall.play(`r1-t${i + 1}`, san);
    folder.flush();
    const round = read(roundFile(dir, 1));
    expect(pgnExtract(round)).toEqual({ diagnostics: '', games: 3 });
    for (let t = 1; t <= 3; t++) {
      const text = read(gameFile(dir, 1, t));
      expect(pgnExtract(text)).toEqual({ diagnostics: '', games: 1 });
      expect([...parsePgn(text)[0]!.moves.mainline()].map((n) => n.san)).toEqual(LINES[t - 1]!.slice(0, 7 + t));
    }
  });
});
