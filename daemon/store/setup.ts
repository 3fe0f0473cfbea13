import type { Database } from 'better-sqlite3';
import { err, ok, type Result } from './result.ts';
import type { HallTable, PairingInput, PairingRow, PlayerInfo, RoundRow, TournamentRow, TournamentSetup } from './types.ts';
import { writeTransaction } from './write-transaction.ts';

/** Writes for the tournament's setup: the event, its rounds, the hall, players and pairings. */
export interface SetupWrites {
  /** Creates or updates the tournament by name (and its rounds 1..roundCount); returns its id. */
  upsertTournament(t: TournamentSetup): number;
  /** Makes the hall's table list exactly `tables` (boards/sides updated, new ones added). */
  syncTables(tables: readonly HallTable[]): void;
  /** Records which table a board serial number was seen on (latest wins); the table must be in the hall. */
  assignBoardSerial(serial: string, tableNumber: number, wallMs: number): Result<void, string>;
  /** Finds a player by FIDE id, else by exact name (+ federation when given); creates one otherwise.
   *  Updates title/rating/federation with what is given. Returns the player id. */
  upsertPlayer(p: PlayerInfo): number;
  /** upcoming → live (records started_wall) or live → finished (records closed_wall). */
  setRoundStatus(roundId: number, status: 'live' | 'finished', wallMs: number): void;
  /** Replaces a round's pairings (the round must not have started). */
  replacePairings(roundId: number, pairings: readonly PairingInput[]): void;
  /**
   * Gives rounds beyond the tournament's rows (a hall that played on past `rounds.count`) their
   * rows, up to `round`: each new round takes every table's oldest game kept outside the rounds,
   * which is that round's game (daemon/runtime/derived-rows.ts keeps one per table and round, in
   * order). Returns how many rounds were added.
   */
  adoptRounds(tournamentId: number, round: number): number;
}

export interface SetupQueries {
  tournament(id: number): TournamentRow | undefined;
  /** How many rounds the hall played past the tournament's rows (the most games any table keeps outside the rounds). */
  roundsPlayedBeyond(): number;
  tournamentByName(name: string): TournamentRow | undefined;
  rounds(tournamentId: number): RoundRow[];
  round(tournamentId: number, round: number): RoundRow | undefined;
  hallTables(): HallTable[];
  tableForSerial(serial: string): number | undefined;
  pairings(roundId: number): PairingRow[];
}

interface TournamentDbRow {
  id: number;
  name: string;
  site: string | null;
  start_date: string | null;
  end_date: string | null;
  time_control: string | null;
  rules_edition: TournamentRow['rulesEdition'];
  category: TournamentRow['category'];
  variant: TournamentRow['variant'];
  round_count: number;
}

interface RoundDbRow {
  id: number;
  tournament_id: number;
  number: number;
  date: string | null;
  status: RoundRow['status'];
  started_wall: number | null;
  closed_wall: number | null;
  game_count: number;
}

const toTournament = (r: TournamentDbRow): TournamentRow => ({
  id: r.id,
  name: r.name,
  site: r.site,
  startDate: r.start_date,
  endDate: r.end_date,
  timeControl: r.time_control,
  rulesEdition: r.rules_edition,
  category: r.category,
  variant: r.variant,
  roundCount: r.round_count,
});

const toRound = (r: RoundDbRow): RoundRow => ({
  id: r.id,
  tournamentId: r.tournament_id,
  round: r.number,
  date: r.date,
  status: r.status,
  startedWall: r.started_wall,
  closedWall: r.closed_wall,
  gameCount: r.game_count,
});

export const PLAYER_COLUMNS = (alias: string, prefix: string): string =>
  `${alias}.id AS ${prefix}_id, ${alias}.name AS ${prefix}_name, ${alias}.title AS ${prefix}_title,
   ${alias}.rating AS ${prefix}_rating, ${alias}.federation AS ${prefix}_federation, ${alias}.fide_id AS ${prefix}_fide_id`;

export function playerFrom(row: Record<string, unknown>, prefix: string): (PlayerInfo & { id: number }) | null {
  if (row[`${prefix}_id`] == null) return null;
  return {
    id: row[`${prefix}_id`] as number,
    name: row[`${prefix}_name`] as string,
    title: row[`${prefix}_title`] as string | null,
    rating: row[`${prefix}_rating`] as number | null,
    federation: row[`${prefix}_federation`] as string | null,
    fideId: row[`${prefix}_fide_id`] as number | null,
  };
}

export function createSetup(db: Database): SetupWrites & SetupQueries {
  const tournamentByName = db.prepare('SELECT * FROM tournaments WHERE name = ?');
  const tournamentById = db.prepare('SELECT * FROM tournaments WHERE id = ?');
  const insertTournament = db.prepare(
    `INSERT INTO tournaments (name, site, start_date, end_date, time_control, rules_edition, category, variant, round_count)
     VALUES (@name, @site, @startDate, @endDate, @timeControl, @rulesEdition, @category, @variant, @roundCount)`,
  );
  const updateTournament = db.prepare(
    `UPDATE tournaments SET site = @site, start_date = @startDate, end_date = @endDate, time_control = @timeControl,
       rules_edition = @rulesEdition, category = @category, variant = @variant, round_count = @roundCount
     WHERE id = @id`,
  );
  const upsertRound = db.prepare(
    `INSERT INTO rounds (tournament_id, number, date) VALUES (?, ?, ?)
     ON CONFLICT (tournament_id, number) DO UPDATE SET date = COALESCE(excluded.date, date)`,
  );
  const roundsSql = `SELECT r.*, (SELECT COUNT(*) FROM games g WHERE g.round_id = r.id) AS game_count FROM rounds r`;
  const roundsOf = db.prepare(`${roundsSql} WHERE r.tournament_id = ? ORDER BY r.number`);
  const roundOf = db.prepare(`${roundsSql} WHERE r.tournament_id = ? AND r.number = ?`);

  const upsertTable = db.prepare(
    `INSERT INTO hall_tables (number, board, white_on_clock) VALUES (?, ?, ?)
     ON CONFLICT (number) DO UPDATE SET board = excluded.board, white_on_clock = excluded.white_on_clock`,
  );
  const allTables = db.prepare('SELECT number, board, white_on_clock FROM hall_tables ORDER BY number');
  const deleteTable = db.prepare(
    // A table that games or serials still refer to stays (history); only unused ones go.
    `DELETE FROM hall_tables WHERE number = ?
       AND NOT EXISTS (SELECT 1 FROM board_serials WHERE table_number = ?)`,
  );
  const assignSerial = db.prepare(
    `INSERT INTO board_serials (serial, table_number, seen_wall) VALUES (?, ?, ?)
     ON CONFLICT (serial) DO UPDATE SET table_number = excluded.table_number, seen_wall = excluded.seen_wall`,
  );
  const tableExists = db.prepare('SELECT 1 FROM hall_tables WHERE number = ?').pluck();
  const serialTable = db.prepare('SELECT table_number FROM board_serials WHERE serial = ?').pluck();

  const playerByFideId = db.prepare('SELECT id FROM players WHERE fide_id = ?').pluck();
  const playerByName = db
    .prepare(
      `SELECT id FROM players WHERE name = ? AND fide_id IS NULL
       AND (? IS NULL OR federation IS NULL OR federation = ?) ORDER BY id LIMIT 1`,
    )
    .pluck();
  const insertPlayer = db.prepare('INSERT INTO players (name, title, rating, federation, fide_id) VALUES (?, ?, ?, ?, ?)');
  const updatePlayer = db.prepare(
    `UPDATE players SET name = ?, title = COALESCE(?, title), rating = COALESCE(?, rating),
       federation = COALESCE(?, federation) WHERE id = ?`,
  );

  const deletePairings = db.prepare('DELETE FROM pairings WHERE round_id = ?');
  const insertPairing = db.prepare('INSERT INTO pairings (round_id, table_number, white_player_id, black_player_id) VALUES (?, ?, ?, ?)');
  const roundLive = db.prepare(`UPDATE rounds SET status = 'live', started_wall = ? WHERE id = ?`);
  const roundFinished = db.prepare(`UPDATE rounds SET status = 'finished', closed_wall = ? WHERE id = ?`);
  const roundStatus = db.prepare('SELECT status FROM rounds WHERE id = ?').pluck();
  const beyondRounds = db.prepare('SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM games WHERE round_id IS NULL GROUP BY table_number)').pluck();
  const lastRound = db.prepare('SELECT COALESCE(MAX(number), 0) FROM rounds WHERE tournament_id = ?').pluck();
  const tablesOutside = db.prepare('SELECT table_number, MIN(id) AS id FROM games WHERE round_id IS NULL GROUP BY table_number');
  const moveToRound = db.prepare('UPDATE games SET round_id = ? WHERE id = ?');
  const pairingsOf = db.prepare(
    `SELECT p.id, p.round_id, p.table_number, ${PLAYER_COLUMNS('w', 'w')}, ${PLAYER_COLUMNS('b', 'b')}
     FROM pairings p JOIN players w ON w.id = p.white_player_id JOIN players b ON b.id = p.black_player_id
     WHERE p.round_id = ? ORDER BY p.table_number`,
  );

  function upsertPlayer(p: PlayerInfo): number {
    let id = (p.fideId !== null ? playerByFideId.get(p.fideId) : playerByName.get(p.name, p.federation, p.federation)) as number | undefined;
    if (id === undefined) {
      id = Number(insertPlayer.run(p.name, p.title, p.rating, p.federation, p.fideId).lastInsertRowid);
    } else {
      updatePlayer.run(p.name, p.title, p.rating, p.federation, id);
    }
    return id;
  }

  return {
    upsertTournament: writeTransaction(db, (t: TournamentSetup): number => {
      const existing = tournamentByName.get(t.name) as TournamentDbRow | undefined;
      let id: number;
      if (existing) {
        id = existing.id;
        updateTournament.run({ ...t, id });
      } else {
        id = Number(insertTournament.run(t).lastInsertRowid);
      }
      for (let n = 1; n <= t.roundCount; n++) upsertRound.run(id, n, t.roundDates[n - 1] ?? null);
      return id;
    }),
    syncTables: writeTransaction(db, (tables: readonly HallTable[]) => {
      const keep = new Set(tables.map((t) => t.number));
      for (const t of allTables.all() as { number: number }[]) {
        if (!keep.has(t.number)) deleteTable.run(t.number, t.number);
      }
      for (const t of tables) upsertTable.run(t.number, t.board, t.whiteOnClock);
    }),
    assignBoardSerial: (serial, tableNumber, wallMs) => {
      if (tableExists.get(tableNumber) === undefined) return err(`board ${serial}: table ${tableNumber} is not in the hall`);
      assignSerial.run(serial, tableNumber, wallMs);
      return ok(undefined);
    },
    upsertPlayer,
    setRoundStatus: (roundId, status, wallMs) => void (status === 'live' ? roundLive : roundFinished).run(wallMs, roundId),
    adoptRounds: writeTransaction(db, (tournamentId: number, round: number): number => {
      let added = 0;
      for (let n = (lastRound.get(tournamentId) as number) + 1; n <= round; n++) {
        const roundId = Number(upsertRound.run(tournamentId, n, null).lastInsertRowid);
        for (const g of tablesOutside.all() as { id: number }[]) moveToRound.run(roundId, g.id);
        added++;
      }
      return added;
    }),
    replacePairings: writeTransaction(db, (roundId: number, pairings: readonly PairingInput[]) => {
      const status = roundStatus.get(roundId) as string | undefined;
      if (status === undefined) throw new Error(`no round with id ${roundId}`);
      if (status !== 'upcoming') throw new Error(`round ${roundId} has started: its pairings are fixed`);
      deletePairings.run(roundId);
      for (const p of pairings) {
        insertPairing.run(roundId, p.table, upsertPlayer(p.white), upsertPlayer(p.black));
      }
    }),

    roundsPlayedBeyond: () => beyondRounds.get() as number,
    tournament: (id) => {
      const r = tournamentById.get(id) as TournamentDbRow | undefined;
      return r && toTournament(r);
    },
    tournamentByName: (name) => {
      const r = tournamentByName.get(name) as TournamentDbRow | undefined;
      return r && toTournament(r);
    },
    rounds: (tournamentId) => (roundsOf.all(tournamentId) as RoundDbRow[]).map(toRound),
    round: (tournamentId, round) => {
      const r = roundOf.get(tournamentId, round) as RoundDbRow | undefined;
      return r && toRound(r);
    },
    hallTables: () =>
      (allTables.all() as { number: number; board: string | null; white_on_clock: 'left' | 'right' }[]).map((t) => ({
        number: t.number,
        board: t.board,
        whiteOnClock: t.white_on_clock,
      })),
    tableForSerial: (serial) => serialTable.get(serial) as number | undefined,
    pairings: (roundId) =>
      (pairingsOf.all(roundId) as Record<string, unknown>[]).map((r) => ({
        id: r.id as number,
        roundId: r.round_id as number,
        table: r.table_number as number,
        white: playerFrom(r, 'w')!,
        black: playerFrom(r, 'b')!,
      })),
  };
}
