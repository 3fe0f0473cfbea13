import type { BoardEvent } from '../board-events.ts';
import type { GameResult, GameStatus, IncidentRecord } from './model.ts';

// The arbiter's timeline of a game (GET /api/arbiter/games/:id/timeline): what the sensors saw
// next to what the engine decided, step by step. Plain JSON, read by the viewer's replay page.

/**
 * What a change meant, for an arbiter reading a replay. The feed sends a clock press that confirms
 * a move as an `amendment` of that ply (it brings the move's %clk); an arbiter must not read it as
 * a changed move, so the replay tells the two apart by comparing with the moves it has seen.
 */
export type ReplayLabel =
  | { kind: 'move'; ply: number; san: string; uci: string }
  | { kind: 'confirmation'; ply: number; san: string; clockMs: number | null }
  | { kind: 'amendment'; fromPly: number; before: string[]; after: string[] }
  | { kind: 'takeback'; toPly: number }
  | { kind: 'result'; result: string; termination: string | null }
  | { kind: 'incident'; incident: IncidentRecord }
  | { kind: 'game'; gameId: string; round: number; table: number };

/** One moment of a game's record, as an arbiter steps through it. */
export interface TimelineStep {
  /** Position in the timeline (0-based). */
  index: number;
  kind: 'event' | 'arbiter';
  /** The raw event's id; for an arbiter decision, the last raw event before it. */
  rawEventId: number;
  /** When the board event was received, or null for an arbiter decision (stored in its amendment). */
  wallMs: number | null;
  /** The decoded board event (null: undecoded bytes, or an arbiter step). */
  event: BoardEvent | null;
  /** The frame's bytes in hex ("" when the event came from no frame, e.g. caught up from the log). */
  raw: string;
  /** For a frame that carries no board event: the DGT message it decodes to (e.g. "version"), or null. */
  message: string | null;
  /** An arbiter decision: what it was, in words. */
  command: { kind: string; text: string } | null;
  /** What the engine made of this step. */
  produced: ReplayLabel[];
  /** The board as its sensors reported it after this step: FEN piece placement, the board's own orientation (a8 first). */
  sensors: string;
  /** The position the engine held after this step, and the game's standing. */
  engine: { fen: string; ply: number; status: GameStatus; result: GameResult };
  /** Squares where the sensors and the engine's position disagree (in the engine's orientation). */
  differ: string[];
  /** The table's last clock reading at this step. */
  clock: { whiteMs: number; blackMs: number; running: 'white' | 'black' | null; whiteFlag: boolean; blackFlag: boolean } | null;
  /** The game's moves (SAN) after this step. */
  moves: string[];
}

export interface Timeline {
  gameId: string;
  round: number;
  table: number;
  /** The rules in force: every incident's consequence follows from these. */
  rules: { edition: string; category: string; chess960: boolean };
  steps: TimelineStep[];
  /** Each incident with the step it arose at. */
  incidents: (IncidentRecord & { step: number })[];
  /**
   * Every decision recorded about the game (the audit trail), oldest first, undone ones included:
   * the timed ones are also steps of the timeline; those that hold for the whole game (colours
   * swapped, a Chess960 start) and undos are only here.
   */
  amendments: TimelineAmendment[];
}

/** One audit-trail row of a game, as the replay and the dispute report show it. */
export interface TimelineAmendment {
  id: number;
  /** The audit trail's action name (`set-result`, `set-clock`, `swap-colours`, `chess960`, `undo`, …). */
  action: string;
  /** What was decided, in words. */
  text: string;
  /** The account (or the name the token's request gave) and when (epoch ms). */
  by: string;
  at: number;
  reason: string;
  /** Taken back by an undo in force; `undoneBy` names it. */
  undone: boolean;
  undoneBy: number | null;
  /** The step at which it was taken (the last step at or before its place in the table's raw events); null before the game's first step. */
  step: number | null;
}
