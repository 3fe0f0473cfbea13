import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * pgn-extract (Debian package pgn-extract, installed as /usr/games/pgn-extract) as the PGN
 * consumers' judge: it replays every move and reports anything it cannot read.
 */
function locate(): string | null {
  for (const candidate of ['/usr/games/pgn-extract', '/usr/bin/pgn-extract']) if (existsSync(candidate)) return candidate;
  const which = spawnSync('sh', ['-c', 'command -v pgn-extract'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() !== '' ? which.stdout.trim() : null;
}

export const PGN_EXTRACT = locate();

/** Skip only on a developer's machine without it; under CI=true a missing pgn-extract fails the test. */
export const skipWithoutPgnExtract = PGN_EXTRACT === null && process.env.CI !== 'true';

export interface PgnExtractReport {
  /** pgn-extract's diagnostics (empty when it read everything). */
  diagnostics: string;
  /** Games it wrote back out (a game with an illegal move or a bad result is dropped). */
  games: number;
}

export function pgnExtract(pgn: string): PgnExtractReport {
  if (PGN_EXTRACT === null) throw new Error('pgn-extract is not installed (apt-get install pgn-extract): the PGN cannot be validated');
  const dir = mkdtempSync(join(tmpdir(), 'pgn-extract-'));
  try {
    const input = join(dir, 'in.pgn');
    const log = join(dir, 'log.txt');
    const out = join(dir, 'out.pgn');
    writeFileSync(input, pgn);
    execFileSync(PGN_EXTRACT, ['-s', `-l${log}`, `-o${out}`, input], { stdio: 'pipe' });
    const diagnostics = existsSync(log) ? readFileSync(log, 'utf8').trim() : '';
    const games = existsSync(out) ? (readFileSync(out, 'utf8').match(/^\[Event /gm) ?? []).length : 0;
    return { diagnostics, games };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
