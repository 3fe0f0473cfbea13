import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GameId, LiveSource } from '../../protocols/feed/model.ts';
import { roundPgn } from '../relay/round-pgn.ts';

/**
 * The PGN folder output, for desktop uploaders that watch a folder (lichess's Broadcaster app) and
 * anything else that reads files:
 *
 *   <dir>/round-N.pgn            every game of round N, exactly the served /relay/round-N.pgn
 *   <dir>/round-N/game-T.pgn     one game, T its table (board) number, fixed once given
 *
 * Each file is replaced atomically (written beside it, then renamed over it), so a watcher never
 * reads half a file; a file is rewritten only when its text changed. A game that left the round
 * (its pairing moved to another table) loses its file.
 */
export interface PgnFolderOptions {
  source: LiveSource;
  dir: string;
  /** Changes within this many ms are written together (default 200). */
  debounceMs?: number;
  /** A write that failed (disk full, permissions): said once per failure; the next change tries again. */
  onError?: (message: string) => void;
}

export interface PgnFolderState {
  dir: string;
  /** Files replaced since start. */
  writes: number;
  /** When the last write happened (epoch ms), null before the first. */
  lastWriteAt: number | null;
  lastError: string | null;
}

export interface PgnFolder {
  state(): PgnFolderState;
  /** Writes whatever is pending now (tests and shutdown). */
  flush(): void;
  stop(): void;
}

export function roundFile(dir: string, round: number): string {
  return join(dir, `round-${round}.pgn`);
}

export function gameFile(dir: string, round: number, table: number): string {
  return join(dir, `round-${round}`, `game-${table}.pgn`);
}

export function startPgnFolder(opts: PgnFolderOptions): PgnFolder {
  const { source, dir } = opts;
  const debounceMs = opts.debounceMs ?? 200;
  const written = new Map<string, string>();
  const state: PgnFolderState = { dir, writes: 0, lastWriteAt: null, lastError: null };
  const dirtyRounds = new Set<number>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  const replace = (file: string, text: string): void => {
    if (written.get(file) === text) return;
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, text);
    renameSync(temp, file);
    written.set(file, text);
    state.writes++;
    state.lastWriteAt = Date.now();
  };

  const writeRound = (round: number): void => {
    const games = source.games(round);
    if (!games) return;
    const roundDir = join(dir, `round-${round}`);
    mkdirSync(roundDir, { recursive: true });
    const keep = new Set<string>();
    for (const g of games) {
      const pgn = source.pgn(g.id);
      if (!pgn) continue;
      const file = gameFile(dir, round, g.table);
      keep.add(file);
      replace(file, pgn.trimEnd() + '\n');
    }
    for (const name of readdirSync(roundDir)) {
      const file = join(roundDir, name);
      if (/^game-\d+\.pgn$/.test(name) && !keep.has(file)) {
        rmSync(file, { force: true });
        written.delete(file);
      }
    }
    const all = roundPgn(source, round);
    if (all !== undefined && games.length > 0) replace(roundFile(dir, round), all);
  };

  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    const rounds = [...dirtyRounds].sort((a, b) => a - b);
    dirtyRounds.clear();
    for (const round of rounds) {
      try {
        writeRound(round);
        state.lastError = null;
      } catch (e) {
        // Tried again on the round's next change; a file already there stays whole.
        dirtyRounds.add(round);
        const message = `round ${round}: ${(e as Error).message}`;
        if (state.lastError !== message) opts.onError?.(message);
        state.lastError = message;
      }
    }
  };

  const schedule = (round: number): void => {
    if (stopped) return;
    dirtyRounds.add(round);
    timer ??= setTimeout(flush, debounceMs);
  };

  const roundOf = (id: GameId): number | undefined => source.game(id)?.round;
  const unsubscribe = source.subscribe((change) => {
    if (change.kind === 'incident') return; // never in the public PGN
    const round = change.kind === 'game' ? change.summary.round : roundOf(change.gameId);
    if (round !== undefined) schedule(round);
  });

  mkdirSync(dir, { recursive: true });
  for (const r of source.rounds()) if (r.gameCount > 0 || (source.games(r.round)?.length ?? 0) > 0) dirtyRounds.add(r.round);
  flush();

  return {
    state: () => ({ ...state }),
    flush,
    stop: () => {
      stopped = true;
      unsubscribe();
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
