import { Type } from '@sinclair/typebox';
import { INITIAL_FEN } from 'chessops/fen';
import { validator } from '../../protocols/validation.ts';
import type { GameSummary, RoundInfo } from '../../protocols/feed/model.ts';
import { err, ok, type Result } from '../store/result.ts';
import type { Store } from '../store/store.ts';
import {
  amendmentGame,
  arbiterCommand,
  gameSettingsOf,
  undoneAmendments,
  type AmendmentDetail,
  type ArbiterFailure,
  type ArbiterHandler,
  type GameSettingDetail,
  type RoundAmendmentDetail,
} from './arbiter.ts';
import { rebuildTable } from './table-rebuild.ts';
import { gameIdOf, type HallCommand, type HallRouter } from './hall-router.ts';
import { replacementOf } from './replacement-check.ts';

/** What the arbiter asks of a round (POST /api/arbiter/rounds/:n/start|close, boardcast round). */
export type RoundAction =
  | { kind: 'start'; arbiter: string; reason: string }
  /** `force`: close although games are unfinished (adjourned, or to be decided later). */
  | { kind: 'close'; force: boolean; arbiter: string; reason: string };

export const ROUND_ACTIONS = ['start', 'close'] as const;

/** The round after the action, and its games. */
export interface RoundReport {
  round: RoundInfo;
  games: GameSummary[];
}

export type RoundHandler = (round: number, action: RoundAction) => Result<RoundReport, ArbiterFailure>;

const fail = (status: ArbiterFailure['status'], code: string, message: string): Result<never, ArbiterFailure> => err({ status, code, message });

const Text = Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()], { 'x-message': 'must be a string of at most 500 characters' }));
/** A round start or close body: who and why, and (close) whether to close with games unfinished. */
const checkRoundBody = validator(Type.Object({ arbiter: Text, reason: Text, force: Type.Optional(Type.Boolean({ 'x-message': 'must be true or false' })) }), 'the body');

/** Validates a request body against its schema; bad input is a 400 value naming what is wrong, never an exception. */
export function parseRoundAction(kind: string, body: unknown): Result<RoundAction, ArbiterFailure> {
  if (!(ROUND_ACTIONS as readonly string[]).includes(kind)) return fail(404, 'no-such-endpoint', `no round action ${JSON.stringify(kind)}: use start or close`);
  const checked = checkRoundBody(body ?? {});
  if (!checked.ok) return fail(400, 'bad-request', checked.error);
  const b = checked.value;
  const texts = { arbiter: b.arbiter?.trim() || 'arbiter', reason: b.reason?.trim() || (kind === 'start' ? 'round started' : 'round closed') };
  if (kind === 'start') return ok({ kind: 'start', ...texts });
  return ok({ kind: 'close', force: b.force === true, ...texts });
}

export interface ActionDeps {
  store: Store;
  tournamentId: number;
  router: HallRouter;
  /** The hall's tables (with boards): who plays a round without imported pairings in 'board' mode. */
  tables: readonly number[];
  /**
   * Writes the store rows a game change implies (after the command is applied). `rederived`: the
   * game was derived again from the store, so its state is the truth even against a result
   * recorded as the arbiter's (an undone one).
   */
  reconcile(gameId: string, rederived?: boolean): void;
  now?: () => number;
}

/**
 * Starts and closes rounds on the running daemon. Like every arbiter action, the decision is
 * recorded first (an `amendments` row with the store's last raw event id, so a restart replays it
 * at the same point of every table's stream), then applied to the live games and reconciled.
 */
export function roundHandler(deps: ActionDeps): RoundHandler {
  const { store, tournamentId, router } = deps;
  const now = deps.now ?? Date.now;
  const live = router.live;

  const report = (round: number): RoundReport => ({
    round: live.rounds().find((r) => r.round === round)!,
    games: live.games(round) ?? [],
  });

  const record = (action: RoundAction, detail: RoundAmendmentDetail, writes: () => void): void => {
    store.transaction(() => {
      writes();
      store.recordAmendment({ gameId: null, wallMs: detail.at, arbiter: action.arbiter, action: detail.kind, reason: action.reason, detail });
    });
  };

  const start = (n: number, action: RoundAction): Result<RoundReport, ArbiterFailure> => {
    const r = store.round(tournamentId, n);
    if (!r) return fail(404, 'unknown-round', `round ${n} does not exist: the tournament has ${store.rounds(tournamentId).length} rounds`);
    if (r.status !== 'upcoming') return fail(409, 'round-not-upcoming', `round ${n} is already ${r.status}`);
    const pairings = store.pairings(r.id);
    let tables = pairings.map((p) => p.table);
    if (tables.length === 0) {
      if (router.mode === 'arbiter') return fail(409, 'no-pairings', `round ${n} has no pairings: import them first (boardcast import-pairings --round ${n})`);
      tables = [...deps.tables];
    } else {
      // Only the tables with a board are broadcast; the other pairings stay in the store.
      tables = tables.filter((t) => deps.tables.includes(t));
      if (tables.length === 0) {
        return fail(409, 'no-boards', `none of round ${n}'s ${pairings.length} pairings is at a table with a board (the hall has tables ${deps.tables.join(', ')})`);
      }
    }
    const problems: string[] = [];
    for (const table of tables) {
      const t = router.track(table);
      if (t.round > n) problems.push(`table ${table} is already at round ${t.round}`);
      else if (t.gameId !== null && t.gameId !== gameIdOf(n, table)) {
        const p = live.progress(t.gameId);
        if (p && p.status !== 'finished' && p.ply > 0) problems.push(`table ${table} is still playing ${t.gameId} (${p.ply} plies): set its result first`);
      }
    }
    if (problems.length > 0) return fail(409, 'tables-busy', `round ${n} not started: ${problems.join('; ')}`);

    const at = now();
    const detail: RoundAmendmentDetail = { kind: 'start-round', round: n, tables, at, afterRawEventId: store.lastRawEventId() };
    try {
      record(action, detail, () => {
        for (const table of tables) {
          const pairingId = pairings.find((p) => p.table === table)?.id ?? null;
          const existing = store.gameIdsAt(r.id, table)[0];
          if (existing !== undefined) store.setGamePairing(existing, pairingId);
          else store.createGame({ roundId: r.id, pairingId, table, startFen: INITIAL_FEN, wallMs: at });
        }
        store.setRoundStatus(r.id, 'live', at);
      });
    } catch (e) {
      return fail(500, 'store-error', `round ${n} not started: the store refused it: ${(e as Error).message}`);
    }
    const cmd: HallCommand = { kind: 'start-round', round: n, tables, at };
    router.apply(cmd);
    for (const table of tables) deps.reconcile(gameIdOf(n, table));
    return ok(report(n));
  };

  const close = (n: number, action: Extract<RoundAction, { kind: 'close' }>): Result<RoundReport, ArbiterFailure> => {
    const r = store.round(tournamentId, n);
    if (!r) return fail(404, 'unknown-round', `round ${n} does not exist: the tournament has ${store.rounds(tournamentId).length} rounds`);
    if (r.status === 'finished') return fail(409, 'round-closed', `round ${n} is already closed`);
    const games = live.games(n) ?? [];
    if (games.length === 0) return fail(409, 'round-not-started', `round ${n} has no games yet: start it first`);
    const open = games.filter((g) => g.status !== 'finished');
    if (open.length > 0 && !action.force) {
      return fail(409, 'games-unfinished', `round ${n}: ${open.length} game(s) unfinished, on table(s) ${open.map((g) => g.table).join(', ')}; set their results, or close with force`);
    }
    const at = now();
    const detail: RoundAmendmentDetail = { kind: 'close-round', round: n, at, force: action.force, afterRawEventId: store.lastRawEventId() };
    try {
      record(action, detail, () => store.setRoundStatus(r.id, 'finished', at));
    } catch (e) {
      return fail(500, 'store-error', `round ${n} not closed: the store refused it: ${(e as Error).message}`);
    }
    router.apply({ kind: 'close-round', round: n, at });
    return ok(report(n));
  };

  return (n, action) => (action.kind === 'start' ? start(n, action) : close(n, action));
}

/**
 * Applies an arbiter's decision on one game. Recorded first (store-before-broadcast, like board
 * events: an amendments row with the table's last routed raw event), then applied and reconciled.
 * A timed decision (result, moves, clock…) is applied to the live game; a setting of the whole game
 * (Chess960 start) and an undo derive the table's games again from the store (table-rebuild), so
 * the live games are what a restart would rebuild; a swap of colours only re-announces the players.
 */
export function gameActionHandler(deps: Omit<ActionDeps, 'tables'>): ArbiterHandler {
  const { store, tournamentId, router } = deps;
  const now = deps.now ?? Date.now;
  return (gameId, action) => {
    if (!router.live.game(gameId)) return fail(404, 'unknown-game', `no game ${JSON.stringify(gameId)}`);
    // A game a restart put back from its snapshot gets its engine again (replayed from the store)
    // before the decision is recorded, so that replay does not hold the decision already.
    if (!router.live.ensureEngine(gameId)) return fail(500, 'not-rebuilt', `game ${gameId} could not be rebuilt from the store to take the decision`);
    const g = router.live.game(gameId)!;
    if (action.kind === 'moves') {
      // Refused before it is recorded: the arbiter hears which move does not fit, and the audit
      // trail holds only decisions that were applied.
      const planned = replacementOf(g, action.fromPly, action.sans, action.replaces);
      if (!planned.ok) return fail(409, 'moves-refused', planned.error);
    }
    if (action.kind === 'accept-board') {
      // Something to accept: a break not yet accepted at the ply named, or (no ply) a record out
      // of step with its board, or a last ply that is a break.
      const at = action.ply !== undefined ? g.moves[action.ply - 1] : g.moves.at(-1);
      const open = at?.gap !== undefined && at.gap.accepted === undefined;
      if (action.ply !== undefined && !open) return fail(409, 'nothing-to-accept', `ply ${action.ply} is not a break in the record waiting for a decision`);
      if (action.ply === undefined && !open && g.boardShown === undefined) return fail(409, 'nothing-to-accept', 'the record follows the board: there is no position to accept');
    }
    if (action.kind === 'clock' && action.ply !== undefined && action.ply > g.moves.length) {
      return fail(409, 'no-such-ply', `the game has ${g.moves.length} plies: there is no ply ${action.ply} to correct the clock of`);
    }
    if (action.kind === 'undo') {
      const rows = store.amendments();
      const target = rows.find((r) => r.id === action.amendment);
      if (!target) return fail(409, 'no-such-amendment', `there is no amendment ${action.amendment}`);
      if (amendmentGame(target)?.gameId !== gameId) return fail(409, 'other-game', `amendment ${action.amendment} is not one of ${gameId}'s`);
      if (undoneAmendments(rows).has(target.id)) return fail(409, 'already-undone', `amendment ${action.amendment} is already undone`);
    }
    const wallMs = now();
    const afterRawEventId = router.track(g.table).lastEventId ?? 0;
    const where = { gameId, table: g.table, afterRawEventId };
    let detail: AmendmentDetail | GameSettingDetail;
    if (action.kind === 'swap-colours') detail = { kind: 'swap-colours', ...where };
    else if (action.kind === 'chess960') detail = { kind: 'chess960', ...where, fen: action.fen };
    else if (action.kind === 'undo') detail = { kind: 'undo', ...where, undoes: action.amendment };
    else detail = { ...where, command: arbiterCommand(action, wallMs) };
    const roundId = store.round(tournamentId, g.round)?.id;
    const storeGameId = roundId === undefined ? undefined : store.gameIdsAt(roundId, g.table)[0];
    let amendment: number;
    try {
      amendment = store.recordAmendment({
        gameId: storeGameId ?? null,
        wallMs,
        arbiter: action.arbiter,
        action: 'command' in detail ? detail.command.type : detail.kind,
        reason: action.reason,
        detail,
      });
    } catch (e) {
      return fail(500, 'store-error', `the amendment could not be stored: ${(e as Error).message}`);
    }
    const faultsBefore = router.live.faultsOf(gameId);
    if ('command' in detail) {
      router.apply({ kind: 'game', table: g.table, gameId, command: detail.command });
      deps.reconcile(gameId);
    } else if (detail.kind === 'swap-colours') {
      router.setGameSettings(gameSettingsOf(store.amendments()));
      router.refreshGame(gameId);
      deps.reconcile(gameId);
    } else {
      rebuildTable(store, router, g.table, (id) => deps.reconcile(id, true));
    }
    // The engine threw on it (a bug; the log has it): the arbiter hears so, and can take it back.
    if (router.live.faultsOf(gameId) > faultsBefore) {
      return fail(
        500,
        'engine-fault',
        `amendment ${amendment} is recorded, but the game's engine failed on it (a fault in boardcast, in the log): check the game, and undo the amendment if its record is wrong`,
      );
    }
    const after = router.live.game(gameId);
    return after ? ok(after) : fail(409, 'game-gone', `${gameId} is no longer a game once derived again: amendment recorded`);
  };
}

/** One amendment of a game as the arbiter's desk and `boardcast amend --list` show it. */
export interface AmendmentView {
  id: number;
  at: number;
  arbiter: string;
  action: string;
  reason: string;
  /** Taken back by an undo in force. */
  undone: boolean;
  /** For an undo: the amendment it takes back. */
  undoes?: number;
  detail: unknown;
}

/** A game's amendments, oldest first, with their undone state; undefined for an unknown game. */
export function gameAmendments(store: Store, router: HallRouter): (gameId: string) => AmendmentView[] | undefined {
  return (gameId) => {
    if (!router.live.game(gameId)) return undefined;
    const rows = store.amendments();
    const undone = undoneAmendments(rows);
    return rows
      .filter((r) => amendmentGame(r)?.gameId === gameId)
      .map((r) => {
        const d = r.detail as { kind?: unknown; undoes?: unknown } | null;
        return {
          id: r.id,
          at: r.wallMs,
          arbiter: r.arbiter,
          action: r.action,
          reason: r.reason,
          undone: undone.has(r.id),
          ...(d?.kind === 'undo' && typeof d.undoes === 'number' ? { undoes: d.undoes } : {}),
          detail: r.detail,
        };
      });
  };
}
