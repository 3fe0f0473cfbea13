import type { Color } from 'chessops';
import type { UncertainSpan } from '../../protocols/feed/model.ts';

/**
 * What the reconstruction engine says about one table's game. Everything here is plain JSON
 * (no Maps, no class instances, no undefined-only fields that matter): the store persists it, the
 * websocket feed carries it and the viewer renders it. Squares are algebraic names ("e4") in the
 * game's own orientation (already un-mirrored when the board was set up reversed).
 */

/** Which FIDE Laws apply: the edition in force and the time-control category (Appendices A/B). */
export interface RulesConfig {
  edition: '2018' | '2009' | '1997';
  category: 'standard' | 'rapid' | 'blitz';
}

export interface EngineOptions {
  rules: RulesConfig;
  /** A position set by the arbiter: the game starts when the board shows it (either orientation). */
  start?: { fen: string };
  /** Report the standard start as Chess960 position 518 (any other 960 start is always recognised). */
  chess960?: boolean;
  /**
   * The clocks' time control. With an increment, the clock's times count the presses made while a
   * board was away (press-count.ts), which tells how many plies a jump spans. A two-period
   * control's bonus (at `movesToSecondPeriod`) would upset the count: it is not used near it.
   */
  timeControl?: { incrementMs: number; movesToSecondPeriod?: number };
}

export type GameResult = '1-0' | '0-1' | '1/2-1/2';

export type Termination = 'checkmate' | 'stalemate' | 'insufficient-material' | 'fivefold-repetition' | 'seventy-five-moves' | 'result-pieces' | 'result-kings' | 'arbiter';

/** A clock reading (ms left), as the clock showed it. */
export interface ClockReading {
  whiteMs: number;
  blackMs: number;
}

/**
 * Moves inferred from a jump that more than one legal sequence explains (the board was not seen
 * between them). Travels with each of those moves to every consumer: the feed, the API and the
 * PGN (a comment at the first of them) show that the order is the engine's choice, and the
 * arbiter can pick another candidate.
 */
export type Uncertainty = UncertainSpan;

/** One move of the reconstructed game (also the snapshot's move list). `ply` counts from 1. */
/**
 * A break in the record: play went on from a board the game cannot reach (an outage longer than
 * the search reaches, pieces set by hand, an illegal move that stood). It takes one ply of the
 * record, with no move: `san` "--", `uci` "0000" (the null move's notations), `fenAfter` the board
 * the game went on from. The arbiter closes it by giving the missing moves, or accepts the board's
 * position (Laws 7.5.1, A.4.2, B.3).
 */
export interface RecordBreak {
  reason: 'unexplained' | 'illegal-move-stood';
  /** The arbiter accepted the board's position: the record goes on from it by decision. */
  accepted?: true;
}

export interface RecordedMove {
  ply: number;
  by: Color;
  san: string;
  /** chessops UCI: castling is written king-onto-rook in Chess960 games (e1h1), standard otherwise. */
  uci: string;
  fenAfter: string;
  /** Event time (ms) of the board event that made the move recognisable. */
  at: number;
  /** The reading at the clock press that completed the move, if there was one yet. */
  clockAfter?: ClockReading;
  /** True once completed: clock pressed, or the opponent's next move recognised. */
  confirmed: boolean;
  /** Inferred from a jump with more than one explanation. */
  uncertain?: Uncertainty;
  /** Not a move: the record breaks here (see RecordBreak). */
  gap?: RecordBreak;
}

/**
 * What the configured Laws make of an incident. The engine does not replace the arbiter: it applies
 * only what is automatic (pawn → queen, rook-first castling played) and advises the rest.
 */
export type Consequence =
  /** 7.5.1 (2018) / 7.4a (2009) / 7.4 (1997): play resumes from the position before the irregularity. */
  | { kind: 'position-reinstated'; fen: string }
  /** 7.5.5 / B.3 (2018), 7.4b (2009): extra time for the opponent. */
  | { kind: 'time-added'; to: Color; ms: number }
  /** 7.5.5 (2018: second illegal move; 2009: third). */
  | { kind: 'game-lost'; loser: Color; result: GameResult }
  /** 7.5.5: the would-be loss is a draw when the opponent cannot checkmate by any legal series. */
  | { kind: 'game-drawn'; reason: 'opponent-cannot-checkmate' }
  /** Rapid/blitz (2009 A.4c/B.3c, 1997 appendices): applies only if claimed before the claimant moves. */
  | { kind: 'claim-required'; by: Color }
  /** Blitz (2009 B.3c, 1997): the opponent may claim the win. */
  | { kind: 'win-claimable'; by: Color; result: GameResult }
  /** 7.5.2: the pawn left on the last rank is a queen. */
  | { kind: 'pawn-becomes-queen'; square: string }
  /** 4.4.2 seen on an e-board: recorded and played as castling, the arbiter decides. */
  | { kind: 'played-as-castling'; san: string }
  /** No automatic consequence; the arbiter decides (the text says why). */
  | { kind: 'arbiter-decides'; note: string };

/** A square whose observed content differs from the game's position (codes: protocols/dgt/squares.ts PIECE). */
export interface SquareDifference {
  square: string;
  expected: number;
  seen: number;
}

/** Counted incidents of the illegal-move family (7.5.1–7.5.4 share one count per player). */
export type IllegalKind = 'illegal-move' | 'clock-without-move' | 'pawn-not-replaced';

interface IncidentBase {
  /** Event time of the board event that revealed it. */
  at: number;
  /**
   * Moves played when it happened; for an incident about one move (rook-first castling, pawn not
   * replaced, moved after release) that move's own ply.
   */
  ply: number;
  /** FIDE article under the configured edition, e.g. "7.5.1 (2018)". */
  article: string;
  consequences: Consequence[];
  /** One sentence for the arbiter's screen. */
  message: string;
}

export type Incident = IncidentBase &
  (
    | {
        /** The board settled (dump / reconnect / clock press) on something no legal play explains. */
        kind: 'illegal-position';
        differences: SquareDifference[];
      }
    | {
        /** 7.5.1: completed by a clock press; `count` is this player's running illegal-move count. */
        kind: 'illegal-move';
        by: Color;
        count: number;
        differences: SquareDifference[];
      }
    | { kind: 'clock-without-move'; by: Color; count: number }
    | { kind: 'pawn-not-replaced'; by: Color; count: number; square: string; san: string }
    | { kind: 'rook-first-castling'; by: Color; san: string }
    | {
        /** 4.7: released on `releasedOn`, then moved on to another square in the same move. */
        kind: 'moved-after-release';
        by: Color;
        releasedOn: string;
        san: string;
      }
    | { kind: 'board-disconnected' }
    | { kind: 'board-resynchronised'; differences: SquareDifference[] }
    | {
        /** The board jumped: the shortest legal sequence found (SAN), and whether others fit too. */
        kind: 'missed-moves';
        sans: string[];
        ambiguous: boolean;
        /** How many distinct shortest sequences fit (1 when not ambiguous; at most the kept ones). */
        alternatives: number;
        /** The sequences that fit (SAN), the played one first. */
        candidates?: string[][];
      }
  );

export type IncidentKind = Incident['kind'];

export type GameKind = 'standard' | 'chess960' | 'arbiter-position';

export type GameEvent =
  | {
      type: 'game-started';
      at: number;
      kind: GameKind;
      /** Scharnagl number 0–959 for Chess960 (518 is the standard array). */
      chess960Number?: number;
      fen: string;
      /** The board was set up rotated (White on the board's 8th rank); every field is mirrored. */
      reversed: boolean;
    }
  | {
      /** Emitted as soon as the board shows exactly one legal successor: no debounce. */
      type: 'move-made';
      at: number;
      ply: number;
      by: Color;
      san: string;
      uci: string;
      fenAfter: string;
      clock?: ClockReading;
      /** Inferred from a jump that several sequences explain. */
      uncertain?: Uncertainty;
      /** Not a move: the record breaks here, and goes on from `fenAfter` (the board). */
      gap?: RecordBreak;
    }
  | {
      type: 'move-confirmed';
      at: number;
      ply: number;
      by: 'clock' | 'opponent-moved';
      /** Who made the move (after a break in the record the ply's parity no longer says). */
      mover?: Color;
      clock?: ClockReading;
    }
  | {
      /** The same player changed the unconfirmed move `ply` (moved on, or castled rook-first). */
      type: 'move-amended';
      at: number;
      ply: number;
      by: Color;
      previousSan: string;
      san: string;
      uci: string;
      fenAfter: string;
      /** A break the arbiter accepted stays a break. */
      gap?: RecordBreak;
    }
  | {
      /** The board went back to an earlier position of the game: plies after `toPly` are gone. */
      type: 'takeback';
      at: number;
      toPly: number;
      fen: string;
      removed: string[];
    }
  | { type: 'incident'; incident: Incident }
  | {
      type: 'claimable';
      at: number;
      ply: number;
      reason: 'threefold-repetition' | 'fifty-moves';
      /** Art 9.2/9.3. */
      article: string;
    }
  | { type: 'game-ended'; at: number; ply: number; result: GameResult; termination: Termination }
  /**
   * The record cannot follow the board (out of step after an outage, pieces set by hand): the
   * board's placement as it stands, for live views; null when the record follows it again.
   */
  | { type: 'board-shown'; at: number; placement: string | null }
  /** An automatic result (mate, stalemate…) no longer holds: its move was amended or taken back. */
  | { type: 'result-withdrawn'; at: number; ply: number };

export type GameEventType = GameEvent['type'];

/** What the arbiter can tell the engine (kept with the board events so a replay gives the same game). */
export type ArbiterCommand =
  | { type: 'set-result'; at: number; result: GameResult }
  /** A new game from this position (arbiter's set-up or an adjourned position). */
  | { type: 'set-position'; at: number; fen: string }
  /** Reinstate the position after `ply` (e.g. before an illegal move found later). */
  | { type: 'reinstate'; at: number; ply: number }
  /**
   * The moves after `fromPly` are `sans` (another order of an inferred span, or moves the arbiter
   * knows from the score sheets), then the game's later moves as they were. `replaces`: how many
   * recorded plies they take the place of (default as many as given; 1 fills a break with the
   * missing moves). Refused (an incident) when any of them is not legal there.
   */
  | { type: 'replace-moves'; at: number; fromPly: number; sans: string[]; replaces?: number }
  /**
   * The arbiter accepts the board's position: a break at `ply` is marked accepted; with no break
   * there and the record out of step, the record breaks now and goes on from the board.
   */
  | { type: 'accept-board'; at: number; ply?: number }
  /**
   * A clock reading corrected (the engine ignores it: the read model shows it): the time left as
   * of ply `ply` (that move's %clk), or without a ply the clock as it stands now.
   */
  | { type: 'set-clock'; at: number; ply?: number; whiteMs?: number; blackMs?: number };

export interface EngineSnapshot {
  started: boolean;
  kind?: GameKind;
  chess960Number?: number;
  startFen?: string;
  fen: string;
  orientation: 'white' | 'black';
  reversed: boolean;
  connected: boolean;
  moves: RecordedMove[];
  incidents: Incident[];
  illegalCounts: { white: number; black: number };
  result?: { result: GameResult; termination: Termination; ply: number };
  lastClock?: ClockReading;
}
