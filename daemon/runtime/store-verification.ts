import type { GameId, GameState } from '../../protocols/feed/model.ts';
import type { Store } from '../store/store.ts';
import type { BoardcastConfig } from '../tournament/config.ts';
import { snapshotJson } from './checkpoint-restore.ts';
import type { PairingLookup } from './hall-router.ts';
import type { MemoryLiveSource } from './memory-live-source.ts';
import { hallRouter, newLiveSource, replayTable, storedCommands } from './store-replay.ts';

/**
 * The proof that a start from checkpoints is a whole replay (docs/store.md, "Verification"): the
 * store is replayed from every table's first event into a scratch read model, and every game its
 * table has left is compared with what the store derived: its snapshot (what a restart puts
 * back), its game row (status, result) and its moves (SAN, UCI, position after). The games still
 * on their tables are left out: they move on while the check runs. A difference is reported, never
 * repaired here: the raw events are the evidence, and the arbiter decides what to do.
 */
export interface Difference {
  gameId: GameId;
  /** Which derived row differs from the replay. */
  row: 'snapshot' | 'game' | 'moves';
  detail: string;
}

export interface VerificationResult {
  /** Raw events replayed. */
  events: number;
  /** Games compared (those their tables have left). */
  games: number;
  differences: Difference[];
}

/** Raw events replayed between two yields of `verifyStore` (a few ms of work). */
const SLICE_EVENTS = 2000;

/**
 * The verification as steps: each `next()` replays about SLICE_EVENTS raw events, so a running
 * daemon can run it between board events (`runInBackground`); the return value is the result.
 */
export function* verifyStore(store: Store, config: BoardcastConfig, tables: readonly number[], pairings?: PairingLookup): Generator<void, VerificationResult> {
  const live = newLiveSource(config, store);
  const router = hallRouter(config, live, pairings);
  const commands = storedCommands(store);
  const all = new Set(tables);
  for (const c of commands) if (c.command.kind === 'game') all.add(c.command.table);
  let events = 0;
  for (const table of [...all].sort((a, b) => a - b)) {
    router.track(table);
    for (const step of replayTable(store, router, table, commands, undefined, false)) {
      if (step.kind === 'event' && ++events % SLICE_EVENTS === 0) yield;
    }
  }
  for (const c of commands) if (c.command.kind === 'close-round') router.apply(c.command);
  const tournamentId = store.tournamentByName(config.event.name)?.id;
  const differences: Difference[] = [];
  let games = 0;
  for (const t of router.tracks()) {
    for (const id of t.games) {
      if (id === t.gameId) continue;
      games++;
      differences.push(...compareGame(store, live, id, tournamentId));
    }
  }
  return { events, games, differences };
}

function compareGame(store: Store, replayed: MemoryLiveSource, id: GameId, tournamentId: number | undefined): Difference[] {
  const out: Difference[] = [];
  const snap = replayed.snapshot(id)!;
  const stored = store.gameSnapshot(id);
  if (stored && stored.stateJson !== snapshotJson(snap)) out.push({ gameId: id, row: 'snapshot', detail: firstDifference(JSON.parse(stored.stateJson) as { state: GameState }, snap) });
  const g = snap.state;
  const roundId = tournamentId === undefined ? undefined : store.round(tournamentId, g.round)?.id;
  const rowId = roundId === undefined ? undefined : store.gameIdsAt(roundId, g.table)[0];
  if (rowId === undefined) return out;
  const row = store.game(rowId);
  if (!row) return out;
  if (row.result !== g.result) out.push({ gameId: id, row: 'game', detail: `result ${row.result} stored, ${g.result} replayed` });
  const moves = store.moves(rowId);
  const n = Math.max(moves.length, g.moves.length);
  for (let i = 0; i < n; i++) {
    const a = moves[i];
    const b = g.moves[i];
    if (a?.san !== b?.san || a?.uci !== b?.uci || a?.fenAfter !== b?.fenAfter) {
      out.push({ gameId: id, row: 'moves', detail: `ply ${i + 1}: ${a ? `${a.san} (${a.uci})` : 'nothing'} stored, ${b ? `${b.san} (${b.uci})` : 'nothing'} replayed` });
      break;
    }
  }
  return out;
}

/** Where a stored snapshot first differs from the replayed one, in words. */
function firstDifference(stored: { state: GameState }, replayed: { state: GameState }): string {
  const a = stored.state;
  const b = replayed.state;
  if (a.result !== b.result) return `result ${a.result} in the snapshot, ${b.result} replayed`;
  if (a.moves.length !== b.moves.length) return `${a.moves.length} plies in the snapshot, ${b.moves.length} replayed`;
  const ply = a.moves.findIndex((m, i) => JSON.stringify(m) !== JSON.stringify(b.moves[i]));
  if (ply >= 0) return `ply ${ply + 1} differs: ${a.moves[ply]!.san} in the snapshot, ${b.moves[ply]!.san} replayed`;
  return 'the read model differs (not in result or moves)';
}

/** The state of a background verification, as /health reports it. */
export interface VerificationStatus {
  state: 'running' | 'passed' | 'differences' | 'failed' | 'off';
  startedAt: number | null;
  finishedAt: number | null;
  events: number;
  games: number;
  differences: Difference[];
  error?: string;
}

/**
 * Runs a verification in slices of a few ms between the daemon's other work (setImmediate), so
 * board events and viewers are served meanwhile. `done` gets the result; `stop` abandons it.
 */
export function runInBackground(steps: Generator<void, VerificationResult>, done: (r: VerificationResult) => void, failed: (e: unknown) => void, sliceMs = 15): { stop(): void } {
  let stopped = false;
  let timer: ReturnType<typeof setImmediate> | undefined;
  const slice = (): void => {
    if (stopped) return;
    const until = performance.now() + sliceMs;
    try {
      for (;;) {
        const r = steps.next();
        if (r.done) return done(r.value);
        if (performance.now() >= until) break;
      }
    } catch (e) {
      return failed(e);
    }
    timer = setImmediate(slice);
  };
  timer = setImmediate(slice);
  return {
    stop: () => {
      stopped = true;
      if (timer) clearImmediate(timer);
    },
  };
}
