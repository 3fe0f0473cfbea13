import type { Database } from 'better-sqlite3';

/**
 * The schema, as an append-only list: migration i brings `PRAGMA user_version` from i to i + 1.
 * Never edit a released migration; add a new one. Each runs in its own transaction together with
 * the user_version bump, so a crash leaves the file at a whole version.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: the initial schema.
  `
  -- Every frame a board or clock sent, as received. The evidence an arbiter replays: append-only.
  CREATE TABLE raw_events (
    id           INTEGER PRIMARY KEY,
    table_number INTEGER NOT NULL,
    board_serial TEXT,
    mono_ms      REAL    NOT NULL,   -- monotonic ms of the table session (BoardEvent.at)
    wall_ms      INTEGER NOT NULL,   -- epoch ms when the daemon received it
    kind         TEXT    NOT NULL,   -- event type, or 'undecoded' for bytes that decoded to nothing
    event_json   TEXT,               -- the decoded BoardEvent; NULL when undecoded
    raw          BLOB    NOT NULL
  ) STRICT;
  CREATE INDEX raw_events_by_table ON raw_events (table_number, id);
  CREATE TRIGGER raw_events_no_update BEFORE UPDATE ON raw_events
    BEGIN SELECT RAISE(ABORT, 'raw_events is append-only: raw board events are never modified'); END;
  CREATE TRIGGER raw_events_no_delete BEFORE DELETE ON raw_events
    BEGIN SELECT RAISE(ABORT, 'raw_events is append-only: raw board events are never deleted'); END;

  CREATE TABLE players (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    title      TEXT,
    rating     INTEGER,
    federation TEXT,
    fide_id    INTEGER UNIQUE
  ) STRICT;
  CREATE INDEX players_by_name ON players (name);

  CREATE TABLE tournaments (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    site          TEXT,
    start_date    TEXT,
    end_date      TEXT,
    time_control  TEXT,               -- PGN TimeControl form, e.g. "5400+30"
    rules_edition TEXT NOT NULL,
    category      TEXT NOT NULL,
    variant       TEXT NOT NULL DEFAULT 'standard',
    round_count   INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE rounds (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    number        INTEGER NOT NULL,
    date          TEXT,
    status        TEXT NOT NULL DEFAULT 'upcoming' CHECK (status IN ('upcoming', 'live', 'finished')),
    started_wall  INTEGER,
    closed_wall   INTEGER,
    UNIQUE (tournament_id, number)
  ) STRICT;

  -- The hall: a table number, the board expected on it, and which side of the clock White sits.
  CREATE TABLE hall_tables (
    number         INTEGER PRIMARY KEY,
    board          TEXT,              -- device path or serial number from the config
    white_on_clock TEXT NOT NULL DEFAULT 'left' CHECK (white_on_clock IN ('left', 'right'))
  ) STRICT;
  -- Which board (by the serial number it reports) stands on which table, as last seen.
  CREATE TABLE board_serials (
    serial       TEXT PRIMARY KEY,
    table_number INTEGER NOT NULL REFERENCES hall_tables (number),
    seen_wall    INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE pairings (
    id              INTEGER PRIMARY KEY,
    round_id        INTEGER NOT NULL REFERENCES rounds (id),
    table_number    INTEGER NOT NULL,
    white_player_id INTEGER NOT NULL REFERENCES players (id),
    black_player_id INTEGER NOT NULL REFERENCES players (id),
    UNIQUE (round_id, table_number)
  ) STRICT;

  CREATE TABLE games (
    id            INTEGER PRIMARY KEY,
    round_id      INTEGER REFERENCES rounds (id),
    pairing_id    INTEGER REFERENCES pairings (id),
    table_number  INTEGER NOT NULL,
    status        TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'live', 'finished')),
    start_fen     TEXT NOT NULL,
    result        TEXT NOT NULL DEFAULT '*' CHECK (result IN ('1-0', '0-1', '1/2-1/2', '*')),
    result_source TEXT CHECK (result_source IN ('engine', 'result-pieces', 'arbiter')),
    termination   TEXT,
    created_wall  INTEGER NOT NULL,
    started_wall  INTEGER,
    ended_wall    INTEGER
  ) STRICT;
  CREATE INDEX games_by_round ON games (round_id, table_number);
  CREATE INDEX games_by_table ON games (table_number, status);

  -- Half-moves. A takeback or an amendment marks later plies superseded instead of deleting them,
  -- so the history of what was broadcast stays; at most one current move per ply.
  CREATE TABLE moves (
    id            INTEGER PRIMARY KEY,
    game_id       INTEGER NOT NULL REFERENCES games (id),
    ply           INTEGER NOT NULL CHECK (ply >= 1),
    san           TEXT NOT NULL,
    uci           TEXT NOT NULL,
    fen_after     TEXT NOT NULL,
    clock_ms      INTEGER,            -- mover's remaining time just after the move
    mono_ms       REAL,
    wall_ms       INTEGER NOT NULL,
    confirmed     INTEGER NOT NULL DEFAULT 0,
    amended       INTEGER NOT NULL DEFAULT 0,
    superseded_by TEXT CHECK (superseded_by IN ('takeback', 'amendment', 'arbiter'))
  ) STRICT;
  CREATE UNIQUE INDEX moves_current ON moves (game_id, ply) WHERE superseded_by IS NULL;

  CREATE TABLE clock_readings (
    id           INTEGER PRIMARY KEY,
    game_id      INTEGER REFERENCES games (id),
    table_number INTEGER NOT NULL,
    mono_ms      REAL NOT NULL,
    wall_ms      INTEGER NOT NULL,
    white_ms     INTEGER NOT NULL,
    black_ms     INTEGER NOT NULL,
    running      TEXT CHECK (running IN ('white', 'black')),
    white_flag   INTEGER NOT NULL,
    black_flag   INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX clock_readings_by_game ON clock_readings (game_id, id);

  CREATE TABLE incidents (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games (id),
    ply         INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    article     TEXT,
    consequence TEXT,
    message     TEXT NOT NULL,
    detail_json TEXT,
    mono_ms     REAL,
    wall_ms     INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX incidents_by_game ON incidents (game_id, id);

  -- What an arbiter changed and why: the audit trail beside the untouched raw events.
  CREATE TABLE amendments (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER REFERENCES games (id),
    wall_ms     INTEGER NOT NULL,
    arbiter     TEXT NOT NULL,
    action      TEXT NOT NULL,
    reason      TEXT NOT NULL,
    detail_json TEXT
  ) STRICT;
  CREATE TRIGGER amendments_no_update BEFORE UPDATE ON amendments
    BEGIN SELECT RAISE(ABORT, 'amendments is an append-only audit trail'); END;
  CREATE TRIGGER amendments_no_delete BEFORE DELETE ON amendments
    BEGIN SELECT RAISE(ABORT, 'amendments is an append-only audit trail'); END;
  `,
  // 2: a clock reading names the raw event it was decoded from, so the runtime can write the
  // readings a crash left out on the next start without duplicating any.
  `
  ALTER TABLE clock_readings ADD COLUMN raw_event_id INTEGER REFERENCES raw_events (id);
  CREATE UNIQUE INDEX clock_readings_by_raw_event ON clock_readings (raw_event_id);
  `,
  // 3: what a restart loads instead of replaying history (docs/store.md, "Restart"). A table's
  // checkpoint is the router's view of it at a game boundary (the raw event that showed the next
  // game's start position); a game snapshot is the read model of a game the table has left, with
  // its digest and the last amendment it includes. Both are derived: deleting them only makes the
  // next start replay more.
  `
  CREATE TABLE table_checkpoints (
    table_number INTEGER NOT NULL,
    raw_event_id INTEGER NOT NULL REFERENCES raw_events (id),
    track_json   TEXT NOT NULL,
    written_wall INTEGER NOT NULL,
    PRIMARY KEY (table_number, raw_event_id)
  ) STRICT;
  CREATE TABLE game_snapshots (
    live_id             TEXT PRIMARY KEY,
    table_number        INTEGER NOT NULL,
    state_json          TEXT NOT NULL,
    digest              TEXT NOT NULL,
    through_amendment   INTEGER NOT NULL,
    written_wall        INTEGER NOT NULL
  ) STRICT;
  `,
  // 4: the live game of each table as it stood at a moment (written every so often and at a clean
  // stop), with the router's view of the table then: a restart serves it at once and catches the
  // table up from its checkpoint in the background (docs/store.md, "Restart"). Derived: deleting
  // the rows only makes the next start replay the live games before it serves.
  `
  CREATE TABLE live_snapshots (
    table_number      INTEGER PRIMARY KEY,
    live_id           TEXT NOT NULL,
    raw_event_id      INTEGER NOT NULL,
    track_json        TEXT NOT NULL,
    game_json         TEXT NOT NULL,
    state_json        TEXT NOT NULL,
    through_amendment INTEGER NOT NULL,
    written_wall      INTEGER NOT NULL
  ) STRICT;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Brings the file to SCHEMA_VERSION; a no-op on an up-to-date file. Returns the versions applied. */
export function migrate(db: Database): number[] {
  const applied: number[] = [];
  for (let v = schemaVersion(db); v < MIGRATIONS.length; v++) {
    // IMMEDIATE: take the write lock before reading user_version again, so two processes opening a
    // fresh file at once cannot both run migration 1.
    db.transaction(() => {
      if (schemaVersion(db) !== v) return;
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
      applied.push(v + 1);
    }).immediate();
  }
  return applied;
}
