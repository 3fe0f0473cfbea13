import { INITIAL_FEN } from 'chessops/fen';
import { err, ok, type Result } from '../store/result.ts';
import type { Store } from '../store/store.ts';
import type { GameResult, GameRow, ResultSource } from '../store/types.ts';

/**
 * A round's life as the runtime drives it: start (one game per pairing, each board expected in the
 * start position), results as the engine, the result pieces or the arbiter give them, close.
 */

/** Creates the round's games (status pending) and marks the round live. */
export function startRound(store: Store, tournamentId: number, round: number, wallMs: number): Result<GameRow[], string> {
  const r = store.round(tournamentId, round);
  if (!r) return err(`round ${round} does not exist`);
  if (r.status !== 'upcoming') return err(`round ${round} is already ${r.status}`);
  const pairings = store.pairings(r.id);
  if (pairings.length === 0) return err(`round ${round} has no pairings: import them first (boardcast import-pairings)`);
  const busy = pairings.map((p) => store.currentGameAt(p.table)).filter((g): g is GameRow => g !== undefined);
  if (busy.length > 0) {
    return err(`tables still playing an earlier game: ${busy.map((g) => `table ${g.table} (game ${g.id}, round ${g.round ?? '-'})`).join(', ')}; finish or close those first`);
  }
  return ok(
    store.transaction(() => {
      for (const p of pairings) {
        store.createGame({ roundId: r.id, pairingId: p.id, table: p.table, startFen: INITIAL_FEN, wallMs });
      }
      store.setRoundStatus(r.id, 'live', wallMs);
      return store.gamesOfRound(r.id);
    }),
  );
}

export interface ResultReport {
  result: Exclude<GameResult, '*'>;
  source: Exclude<ResultSource, 'arbiter'>;
  termination: string | null;
  wallMs: number;
}

/**
 * A result from the engine (mate, stalemate, flag…) or from the result pieces placed on the board.
 * It does not overrule an arbiter's decision: once the arbiter set a result, only the arbiter changes it.
 */
export function reportResult(store: Store, gameId: number, report: ResultReport): Result<GameRow, string> {
  const g = store.game(gameId);
  if (!g) return err(`no game with id ${gameId}`);
  if (g.resultSource === 'arbiter') return err(`game ${gameId}: the arbiter set ${g.result}; ${report.source} result ${report.result} ignored`);
  const r = store.finishGame(gameId, report);
  return r.ok ? ok(store.game(gameId)!) : r;
}

export interface ArbiterDecision {
  result: Exclude<GameResult, '*'>;
  termination: string | null;
  arbiter: string;
  reason: string;
  wallMs: number;
}

/** The arbiter sets or corrects a result; the audit trail records who, why and what it replaced. */
export function arbiterSetResult(store: Store, gameId: number, d: ArbiterDecision): Result<GameRow, string> {
  const g = store.game(gameId);
  if (!g) return err(`no game with id ${gameId}`);
  store.transaction(() => {
    store.finishGame(gameId, { result: d.result, source: 'arbiter', termination: d.termination, wallMs: d.wallMs });
    store.recordAmendment({
      gameId,
      wallMs: d.wallMs,
      arbiter: d.arbiter,
      action: 'set-result',
      reason: d.reason,
      detail: { from: { result: g.result, source: g.resultSource, termination: g.termination }, to: { result: d.result, termination: d.termination } },
    });
  });
  return ok(store.game(gameId)!);
}

/** Closes a live round; refuses while games are unfinished unless `force` (e.g. an adjourned game). */
export function closeRound(store: Store, tournamentId: number, round: number, wallMs: number, options: { force?: boolean } = {}): Result<void, string> {
  const r = store.round(tournamentId, round);
  if (!r) return err(`round ${round} does not exist`);
  if (r.status !== 'live') return err(`round ${round} is ${r.status}, not live`);
  const open = store.gamesOfRound(r.id).filter((g) => g.status !== 'finished');
  if (open.length > 0 && !options.force) {
    return err(`round ${round}: ${open.length} game(s) unfinished, on table(s) ${open.map((g) => g.table).join(', ')}`);
  }
  store.setRoundStatus(r.id, 'finished', wallMs);
  return ok(undefined);
}
