import type { Database } from 'better-sqlite3';
import type { Color } from 'chessops';
import { err, ok, type Result } from './result.ts';
import { PLAYER_COLUMNS, playerFrom } from './setup.ts';
import type { AmendmentInput, AmendmentRow, ClockReadingInput, GameResult, GameRow, IncidentInput, IncidentRow, MoveInput, MoveRow, ResultSource } from './types.ts';
import { writeTransaction } from './write-transaction.ts';

export interface NewGame {
  roundId: number | null;
  pairingId: number | null;
  table: number;
  startFen: string;
  wallMs: number;
}

export interface GameEnd {
  result: Exclude<GameResult, '*'>;
  source: ResultSource;
  termination: string | null;
  wallMs: number;
}

/**
 * Writes of state derived from raw events (the engine's output) and of the arbiter's audit trail.
 * Derived rows can always be rebuilt by replaying raw_events; superseded moves are marked, not
 * deleted, so what was once broadcast can still be explained.
 */
export interface GameWrites {
  createGame(g: NewGame): number;
  /** pending → live (first move or clock start); a no-op when already live or finished. */
  markGameLive(gameId: number, wallMs: number): void;
  /** Appends the next ply; an error value when `ply` is not the current ply + 1. */
  recordMove(gameId: number, m: MoveInput): Result<void, string>;
  /** The position the game starts from, once the engine recognised it (Chess960, arbiter set-up). */
  setStartFen(gameId: number, fen: string): void;
  /** Marks a ply confirmed (the engine's move-confirmed); `clockMs` is the mover's time at the press. */
  confirmMove(gameId: number, ply: number, clockMs?: number | null): Result<void, string>;
  /** Replaces the current moves from `fromPly` on with `moves` (the engine revised them). */
  amendMoves(gameId: number, fromPly: number, moves: readonly MoveInput[]): Result<void, string>;
  /** Cuts the game back to `toPly` current plies; later plies are marked superseded by 'takeback'. */
  takeback(gameId: number, toPly: number): Result<void, string>;
  /** Stores a clock reading; one already stored for the same raw event is left as it is. */
  recordClock(c: ClockReadingInput): void;
  /** The highest raw event id a stored clock reading came from (0: none). */
  lastClockRawEventId(): number;
  recordIncident(gameId: number, i: IncidentInput): number;
  /**
   * Deletes a game's incidents after its first `keep` (incidents are derived rows: a game derived
   * again with the arbiter's decisions in force may not have them any more). Returns how many.
   */
  dropIncidentsAfter(gameId: number, keep: number): number;
  /** Sets the result (again, for an arbiter correction) and marks the game finished. */
  finishGame(gameId: number, end: GameEnd): Result<void, string>;
  /** Undoes an automatic result whose move was amended or taken back: live again, result "*". */
  reopenGame(gameId: number): Result<void, string>;
  /** Appends to the arbiter's audit trail (append-only, like raw_events). */
  recordAmendment(a: AmendmentInput): number;
  /** Points a game at a pairing (its players), or at none. */
  setGamePairing(gameId: number, pairingId: number | null): void;
  /** Every game of a round takes the pairing of its table (pairings imported after the game opened). */
  linkGamesToPairings(): void;
}

export interface GameQueries {
  /** Games of a round in table order. */
  gamesOfRound(roundId: number): GameRow[];
  game(gameId: number): GameRow | undefined;
  /** The game a table is playing now (latest not finished), the one the engine's events belong to. */
  currentGameAt(tableNumber: number): GameRow | undefined;
  /** Current moves in ply order (`includeSuperseded` adds taken-back and amended-away ones, by id). */
  moves(gameId: number, options?: { includeSuperseded?: boolean }): MoveRow[];
  incidents(gameId: number): IncidentRow[];
  lastClock(gameId: number): Omit<ClockReadingInput, 'gameId' | 'tableNumber'> | undefined;
  amendments(gameId?: number): AmendmentRow[];
  /** Ids of the games at a table in a round (null: games beyond the tournament's rounds), oldest first. */
  gameIdsAt(roundId: number | null, tableNumber: number): number[];
  /** Changes whenever pairings are added or replaced (another process may import them). */
  pairingsVersion(): string;
}

interface MoveDbRow {
  ply: number;
  san: string;
  uci: string;
  fen_after: string;
  wall_ms: number;
  clock_ms: number | null;
  confirmed: number;
  amended: number;
}

const toMove = (r: MoveDbRow): MoveRow => ({
  ply: r.ply,
  san: r.san,
  uci: r.uci,
  fenAfter: r.fen_after,
  at: r.wall_ms,
  clockMs: r.clock_ms,
  confirmed: r.confirmed === 1,
  amended: r.amended === 1,
});

export function createGames(db: Database): GameWrites & GameQueries {
  const insertGame = db.prepare(`INSERT INTO games (round_id, pairing_id, table_number, start_fen, created_wall) VALUES (?, ?, ?, ?, ?)`);
  const setLive = db.prepare(`UPDATE games SET status = 'live', started_wall = ? WHERE id = ? AND status = 'pending'`);
  const currentPly = db.prepare('SELECT COALESCE(MAX(ply), 0) FROM moves WHERE game_id = ? AND superseded_by IS NULL').pluck();
  const gameExists = db.prepare('SELECT status FROM games WHERE id = ?').pluck();
  const insertMove = db.prepare(
    `INSERT INTO moves (game_id, ply, san, uci, fen_after, clock_ms, mono_ms, wall_ms, confirmed, amended)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const confirm = db.prepare('UPDATE moves SET confirmed = 1, clock_ms = COALESCE(?, clock_ms) WHERE game_id = ? AND ply = ? AND superseded_by IS NULL');
  const startFen = db.prepare('UPDATE games SET start_fen = ? WHERE id = ?');
  const reopen = db.prepare(`UPDATE games SET status = 'live', result = '*', result_source = NULL, termination = NULL, ended_wall = NULL WHERE id = ?`);
  const supersedeFrom = db.prepare('UPDATE moves SET superseded_by = ? WHERE game_id = ? AND ply >= ? AND superseded_by IS NULL');
  const insertClock = db.prepare(
    `INSERT OR IGNORE INTO clock_readings (game_id, table_number, mono_ms, wall_ms, white_ms, black_ms, running, white_flag, black_flag, raw_event_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const lastClockRaw = db.prepare('SELECT COALESCE(MAX(raw_event_id), 0) FROM clock_readings').pluck();
  const insertIncident = db.prepare(
    `INSERT INTO incidents (game_id, ply, kind, article, consequence, message, detail_json, mono_ms, wall_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const finish = db.prepare(
    `UPDATE games SET status = 'finished', result = ?, result_source = ?, termination = ?,
       ended_wall = ?, started_wall = COALESCE(started_wall, ?) WHERE id = ?`,
  );
  const insertAmendment = db.prepare('INSERT INTO amendments (game_id, wall_ms, arbiter, action, reason, detail_json) VALUES (?, ?, ?, ?, ?, ?)');

  const gameSelect = `SELECT g.*, r.number AS round_number,
      (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id AND m.superseded_by IS NULL) AS ply_count,
      ${PLAYER_COLUMNS('w', 'w')}, ${PLAYER_COLUMNS('b', 'b')}
    FROM games g
    LEFT JOIN rounds r ON r.id = g.round_id
    LEFT JOIN pairings p ON p.id = g.pairing_id
    LEFT JOIN players w ON w.id = p.white_player_id
    LEFT JOIN players b ON b.id = p.black_player_id`;
  const gamesOfRound = db.prepare(`${gameSelect} WHERE g.round_id = ? ORDER BY g.table_number, g.id`);
  const gameById = db.prepare(`${gameSelect} WHERE g.id = ?`);
  const gameAtTable = db.prepare(`${gameSelect} WHERE g.table_number = ? AND g.status != 'finished' ORDER BY g.id DESC LIMIT 1`);
  const currentMoves = db.prepare('SELECT * FROM moves WHERE game_id = ? AND superseded_by IS NULL ORDER BY ply');
  const allMoves = db.prepare('SELECT * FROM moves WHERE game_id = ? ORDER BY id');
  const incidentsOf = db.prepare('SELECT * FROM incidents WHERE game_id = ? ORDER BY id');
  const dropIncidents = db.prepare('DELETE FROM incidents WHERE id IN (SELECT id FROM incidents WHERE game_id = ? ORDER BY id LIMIT -1 OFFSET ?)');
  const lastClock = db.prepare('SELECT * FROM clock_readings WHERE game_id = ? ORDER BY id DESC LIMIT 1');
  const amendmentsOf = db.prepare('SELECT * FROM amendments WHERE game_id = ? ORDER BY id');
  const allAmendments = db.prepare('SELECT * FROM amendments ORDER BY id');
  const gamesInRoundAt = db.prepare('SELECT id FROM games WHERE round_id = ? AND table_number = ? ORDER BY id').pluck();
  const gamesOutsideRoundsAt = db.prepare('SELECT id FROM games WHERE round_id IS NULL AND table_number = ? ORDER BY id').pluck();
  const setPairing = db.prepare('UPDATE games SET pairing_id = ? WHERE id = ?');
  const pairingsVersion = db.prepare("SELECT COUNT(*) || ':' || COALESCE(MAX(id), 0) FROM pairings").pluck();
  const linkPairings = db.prepare(
    `UPDATE games SET pairing_id = (SELECT p.id FROM pairings p WHERE p.round_id = games.round_id AND p.table_number = games.table_number)
     WHERE round_id IS NOT NULL AND pairing_id IS NOT (SELECT p.id FROM pairings p WHERE p.round_id = games.round_id AND p.table_number = games.table_number)`,
  );

  const toGame = (r: Record<string, unknown>): GameRow => {
    const white = playerFrom(r, 'w');
    const black = playerFrom(r, 'b');
    return {
      id: r.id as number,
      roundId: r.round_id as number | null,
      round: r.round_number as number | null,
      table: r.table_number as number,
      status: r.status as GameRow['status'],
      result: r.result as GameResult,
      resultSource: r.result_source as ResultSource | null,
      termination: r.termination as string | null,
      startFen: r.start_fen as string,
      white: white && { name: white.name, title: white.title, rating: white.rating, federation: white.federation, fideId: white.fideId },
      black: black && { name: black.name, title: black.title, rating: black.rating, federation: black.federation, fideId: black.fideId },
      createdWall: r.created_wall as number,
      startedWall: r.started_wall as number | null,
      endedWall: r.ended_wall as number | null,
      ply: r.ply_count as number,
    };
  };

  const missing = (gameId: number): string | null => (gameExists.get(gameId) === undefined ? `no game with id ${gameId}` : null);

  const putMove = (gameId: number, m: MoveInput, amended: boolean) =>
    insertMove.run(gameId, m.ply, m.san, m.uci, m.fenAfter, m.clockMs ?? null, m.monoMs ?? null, m.wallMs, m.confirmed ? 1 : 0, amended ? 1 : 0);

  return {
    setGamePairing: (gameId, pairingId) => void setPairing.run(pairingId, gameId),
    linkGamesToPairings: () => void linkPairings.run(),
    gameIdsAt: (roundId, tableNumber) => (roundId === null ? gamesOutsideRoundsAt.all(tableNumber) : gamesInRoundAt.all(roundId, tableNumber)) as number[],
    pairingsVersion: () => pairingsVersion.get() as string,
    createGame: (g) => Number(insertGame.run(g.roundId, g.pairingId, g.table, g.startFen, g.wallMs).lastInsertRowid),
    markGameLive: (gameId, wallMs) => void setLive.run(wallMs, gameId),
    recordMove: writeTransaction(db, (gameId: number, m: MoveInput): Result<void, string> => {
      const miss = missing(gameId);
      if (miss) return err(miss);
      const ply = currentPly.get(gameId) as number;
      if (m.ply !== ply + 1) return err(`game ${gameId}: move ${m.san} has ply ${m.ply}, expected ${ply + 1}`);
      putMove(gameId, m, false);
      setLive.run(m.wallMs, gameId);
      return ok(undefined);
    }),
    setStartFen: (gameId, fen) => void startFen.run(fen, gameId),
    confirmMove: (gameId, ply, clockMs) => (confirm.run(clockMs ?? null, gameId, ply).changes === 1 ? ok(undefined) : err(`game ${gameId}: no current move at ply ${ply}`)),
    reopenGame: (gameId) => (reopen.run(gameId).changes === 1 ? ok(undefined) : err(`no game with id ${gameId}`)),
    amendMoves: writeTransaction(db, (gameId: number, fromPly: number, moves: readonly MoveInput[]): Result<void, string> => {
      const miss = missing(gameId);
      if (miss) return err(miss);
      const ply = currentPly.get(gameId) as number;
      if (fromPly < 1 || fromPly > ply + 1) return err(`game ${gameId}: cannot amend from ply ${fromPly} (game has ${ply})`);
      for (let i = 0; i < moves.length; i++) {
        if (moves[i]!.ply !== fromPly + i) return err(`game ${gameId}: amended move ${i} has ply ${moves[i]!.ply}, expected ${fromPly + i}`);
      }
      supersedeFrom.run('amendment', gameId, fromPly);
      for (const m of moves) putMove(gameId, m, true);
      return ok(undefined);
    }),
    takeback: writeTransaction(db, (gameId: number, toPly: number): Result<void, string> => {
      const miss = missing(gameId);
      if (miss) return err(miss);
      const ply = currentPly.get(gameId) as number;
      if (toPly < 0 || toPly > ply) return err(`game ${gameId}: cannot take back to ply ${toPly} (game has ${ply})`);
      supersedeFrom.run('takeback', gameId, toPly + 1);
      return ok(undefined);
    }),
    recordClock: (c) => void insertClock.run(c.gameId, c.tableNumber, c.monoMs, c.wallMs, c.whiteMs, c.blackMs, c.running, c.whiteFlag ? 1 : 0, c.blackFlag ? 1 : 0, c.rawEventId ?? null),
    lastClockRawEventId: () => lastClockRaw.get() as number,
    dropIncidentsAfter: (gameId, keep) => dropIncidents.run(gameId, keep).changes,
    recordIncident: (gameId, i) =>
      Number(insertIncident.run(gameId, i.ply, i.kind, i.article, i.consequence, i.message, i.detail === undefined ? null : JSON.stringify(i.detail), i.monoMs ?? null, i.wallMs).lastInsertRowid),
    finishGame: (gameId, end) => {
      const miss = missing(gameId);
      if (miss) return err(miss);
      finish.run(end.result, end.source, end.termination, end.wallMs, end.wallMs, gameId);
      return ok(undefined);
    },
    recordAmendment: (a) => Number(insertAmendment.run(a.gameId, a.wallMs, a.arbiter, a.action, a.reason, a.detail === undefined ? null : JSON.stringify(a.detail)).lastInsertRowid),

    gamesOfRound: (roundId) => (gamesOfRound.all(roundId) as Record<string, unknown>[]).map(toGame),
    game: (gameId) => {
      const r = gameById.get(gameId) as Record<string, unknown> | undefined;
      return r && toGame(r);
    },
    currentGameAt: (tableNumber) => {
      const r = gameAtTable.get(tableNumber) as Record<string, unknown> | undefined;
      return r && toGame(r);
    },
    moves: (gameId, options) => ((options?.includeSuperseded ? allMoves : currentMoves).all(gameId) as MoveDbRow[]).map(toMove),
    incidents: (gameId) =>
      (incidentsOf.all(gameId) as Record<string, unknown>[]).map((r) => ({
        id: r.id as number,
        ply: r.ply as number,
        at: r.wall_ms as number,
        kind: r.kind as string,
        article: r.article as string | null,
        consequence: r.consequence as string | null,
        message: r.message as string,
      })),
    lastClock: (gameId) => {
      const r = lastClock.get(gameId) as Record<string, unknown> | undefined;
      if (!r) return undefined;
      return {
        monoMs: r.mono_ms as number,
        wallMs: r.wall_ms as number,
        whiteMs: r.white_ms as number,
        blackMs: r.black_ms as number,
        running: r.running as Color | null,
        whiteFlag: r.white_flag === 1,
        blackFlag: r.black_flag === 1,
      };
    },
    amendments: (gameId) =>
      ((gameId === undefined ? allAmendments.all() : amendmentsOf.all(gameId)) as Record<string, unknown>[]).map((r) => ({
        id: r.id as number,
        gameId: r.game_id as number | null,
        wallMs: r.wall_ms as number,
        arbiter: r.arbiter as string,
        action: r.action as string,
        reason: r.reason as string,
        detail: r.detail_json === null ? null : JSON.parse(r.detail_json as string),
      })),
  };
}
