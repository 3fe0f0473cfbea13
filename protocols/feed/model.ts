import type { Color } from 'chessops';

/**
 * The feed model: the boundary between the daemon's runtime (boards → store → reconstruction
 * engine) and everything that shows the games (HTTP API, websocket feed, viewer, the platform
 * bridges). It lives in protocols/ so those edges depend on it and never on the daemon. The runtime implements `LiveSource`; the
 * server only reads through it and listens to its change stream. Everything here is plain JSON
 * data so it can go on the wire unchanged.
 *
 * Reads are synchronous (the store is SQLite via better-sqlite3, the engine is in memory).
 * Unknown ids are `undefined`, never exceptions.
 */

export type GameId = string;

/** PGN result token (PGN standard §8.1.1.7); "*" while the game runs. */
export type GameResult = '1-0' | '0-1' | '1/2-1/2' | '*';

export interface PlayerInfo {
  name: string;
  /** FIDE title abbreviation: GM, IM, FM, CM, WGM, WIM, WFM, WCM; null when untitled. */
  title: string | null;
  /** FIDE standard rating (or the rating the tournament uses); null when unrated. */
  rating: number | null;
  /** IOC/FIDE three-letter federation code, e.g. "SLO", "SRB", "SVK"; null when unknown. */
  federation: string | null;
  fideId: number | null;
}

export interface TournamentInfo {
  id: string;
  name: string;
  site: string | null;
  /** ISO dates (YYYY-MM-DD); null when not configured. */
  startDate: string | null;
  endDate: string | null;
  /** Free text for humans and the PGN TimeControl tag, e.g. "5400+30" (seconds, PGN §9.6.1). */
  timeControl: string | null;
  /** "standard" or "chess960" (PGN Variant tag). */
  variant: 'standard' | 'chess960';
  roundCount: number;
}

export interface RoundInfo {
  /** 1-based round number. */
  round: number;
  /** ISO date of the round (PGN Date tag), null when unknown. */
  date: string | null;
  /** ISO date-time the round starts, null when unknown. */
  startsAt: string | null;
  status: 'upcoming' | 'live' | 'finished';
  /** The arbiter closed the round (status can read `finished` before that, once every game has a result). */
  closed?: boolean;
  gameCount: number;
}

/**
 * Clocks of one game. `whiteMs`/`blackMs` are the remaining times as read at `readAt` (wall clock,
 * epoch ms, as the daemon observed the reading). A client extrapolates the `running` side locally
 * from `readAt` (the DGT clock itself only reports about once a second, dgt-protocol.md).
 */
export interface ClockState {
  whiteMs: number;
  blackMs: number;
  /** Whose clock runs; null when stopped or paused. */
  running: Color | null;
  readAt: number;
  whiteFlag: boolean;
  blackFlag: boolean;
}

/**
 * Moves inferred from a board that jumped (an outage, a burst) when more than one legal sequence
 * leads to it: the order published is the engine's choice, not something the board showed.
 */
export interface UncertainSpan {
  /** First ply of the inferred moves and how many there are. */
  firstPly: number;
  plies: number;
  /** Every sequence (SAN) that fits, the published one first; the arbiter may pick another. */
  candidates: string[][];
}

/** One half-move as the engine confirmed it. */
export interface MoveRecord {
  /** 1-based ply: 1 = White's first move (from the start position of this game). */
  ply: number;
  /** English SAN as PGN needs it (viewers translate piece letters for display). */
  san: string;
  /** UCI, e.g. "e2e4", "e7e8q"; castling as king-to-destination square for standard chess. */
  uci: string;
  fenAfter: string;
  /** Wall clock (epoch ms) when the move was completed on the board. */
  at: number;
  /**
   * Remaining time of the player who made this move, just after it (PGN %clk), as the clock showed
   * it; null without a clock, and for a move made while nobody read the clock (inferred across an
   * outage, or given by the arbiter) unless a press reading confirms it.
   */
  clockMs: number | null;
  /** Present on each move of an inferred span that several sequences explain. */
  uncertain?: UncertainSpan;
  /**
   * Not a move: the record breaks here (play went on from a board the game cannot reach: an outage
   * longer than the search reaches, pieces set by hand, an illegal move that stood). `san` is "--",
   * `uci` "0000", `fenAfter` the board the game went on from; the moves after it are played from
   * there. The arbiter fills it with the moves it hid, or accepts the board's position.
   */
  gap?: RecordGap;
}

export interface RecordGap {
  reason: 'unexplained' | 'illegal-move-stood';
  /** The arbiter accepted the board's position (Laws 7.5.1, A.4.2, B.3). */
  accepted?: true;
}

/** An arbiter-relevant irregularity. Only arbiter clients see these (never public feeds). */
export interface IncidentRecord {
  /** Unique within the game, increasing. */
  id: number;
  /** The ply the game stood at when it happened. */
  ply: number;
  /** Wall clock (epoch ms). */
  at: number;
  /** Short machine name, e.g. "illegal-move", "displaced-piece", "flag-fall". */
  kind: string;
  /** FIDE Laws article that applies, e.g. "7.5.1"; null when none is cited. */
  article: string | null;
  /** What the article prescribes, for the arbiter, e.g. "+2 minutes to the opponent". */
  consequence: string | null;
  /** Human description of what was observed. */
  message: string;
}

export type GameStatus = 'pending' | 'live' | 'finished';

/** A game as the overview lists it: enough for a mini board, names, clocks and result. */
export interface GameSummary {
  id: GameId;
  round: number;
  /** Table (board) number in the hall, 1-based. */
  table: number;
  white: PlayerInfo;
  black: PlayerInfo;
  status: GameStatus;
  result: GameResult;
  /** Number of confirmed plies. */
  ply: number;
  /** Position now (start position when no move is made yet). */
  fen: string;
  /** Last move in UCI and SAN, null before the first move. */
  lastMove: { uci: string; san: string } | null;
  clock: ClockState | null;
  /**
   * Present while the record cannot follow the board (an outage nothing explains, pieces set by
   * hand): the board's placement as it stands (FEN board part, the game's orientation), which
   * live views show instead of the frozen record until the arbiter or the board puts it right.
   */
  boardShown?: string;
}

/** One game in full: the live state of the game page. */
export interface GameState extends GameSummary {
  startFen: string;
  moves: MoveRecord[];
  /**
   * Why the game ended (PGN Termination-style text, e.g. "checkmate", "resignation",
   * "time forfeit", "agreement"); null while running.
   */
  termination: string | null;
  /** When the result came (epoch ms); absent while the game runs. */
  endedAt?: number;
  /** Arbiter-only: the server strips these for public clients. */
  incidents: IncidentRecord[];
  /** 'chess960' when the arbiter marked this game Chess960 (the tournament's variant holds otherwise). */
  variant?: 'chess960';
}

/**
 * A change of one game. Each is applied on top of the state it follows; the server numbers them
 * per subscription scope. `amendment` replaces the moves from `fromPly` on (the engine revised a
 * move it had already reported, e.g. a promotion piece or a misread square); `takeback` cuts the
 * list back to `toPly` confirmed plies. An amendment always brings at least one move (cutting
 * without replacing is a takeback).
 */
export type GameChange =
  | { kind: 'move'; gameId: GameId; move: MoveRecord }
  | { kind: 'amendment'; gameId: GameId; fromPly: number; moves: MoveRecord[] }
  | {
      kind: 'takeback';
      gameId: GameId;
      toPly: number;
      /** Position and last move after the takeback, so summaries need no move list. */
      fen: string;
      lastMove: { uci: string; san: string } | null;
    }
  | { kind: 'clock'; gameId: GameId; clock: ClockState }
  /** The board as it stands while the record cannot follow it; null when it follows again. */
  | { kind: 'board'; gameId: GameId; placement: string | null }
  /** `at`: when the result came (epoch ms); absent from older stores. */
  | { kind: 'result'; gameId: GameId; result: GameResult; termination: string | null; at?: number }
  | { kind: 'incident'; gameId: GameId; incident: IncidentRecord }
  /**
   * A game appeared in a round, or its pairing changed (players, table): pairings published
   * during the event, or corrected by the arbiter. Carries the whole summary. With `state`, the
   * whole game was derived again (an arbiter's amendment or its undo): the game is now `state`.
   */
  | { kind: 'game'; gameId: GameId; summary: GameSummary; state?: GameState };

export type GameChangeKind = GameChange['kind'];

export type ChangeListener = (change: GameChange) => void;

export interface LiveSource {
  tournament(): TournamentInfo;
  rounds(): RoundInfo[];
  /** Games of a round in table order; undefined for an unknown round. */
  games(round: number): GameSummary[] | undefined;
  /** One game in full (including incidents); undefined for an unknown id. */
  game(id: GameId): GameState | undefined;
  /**
   * The game's PGN with full tags and %clk comments (daemon/server/pgn.ts `gameToPgn` builds it
   * from `game()` + `tournament()` if the implementation has nothing better).
   */
  pgn(id: GameId): string | undefined;
  /**
   * Every game change, in the order they happen, delivered synchronously after the read model
   * already reflects it (so a `game()` call inside the listener sees the change). Returns the
   * unsubscribe function. A throwing listener must not stop delivery to the others.
   */
  subscribe(listener: ChangeListener): () => void;
}
