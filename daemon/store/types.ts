import type { Color } from 'chessops';
import type { BoardEvent } from '../../protocols/board-events.ts';

/** What the board driver hands over for one frame: the decoded event and the bytes it came from. */
export interface RawEventInput {
  tableNumber: number;
  /** Serial number the board reported (null until the driver has read it). */
  boardSerial: string | null;
  /** Monotonic ms of the table session, as in BoardEvent.at. */
  monoMs: number;
  /** Epoch ms when the daemon received the frame. */
  wallMs: number;
  /** The decoded event; null for bytes that decoded to nothing the engine consumes (kept as evidence). */
  event: BoardEvent | null;
  raw: Uint8Array;
}

export interface StoredRawEvent extends RawEventInput {
  /** Increasing across the whole file: the order events were committed in. */
  id: number;
}

export type GameResult = '1-0' | '0-1' | '1/2-1/2' | '*';
export type GameStatus = 'pending' | 'live' | 'finished';
export type RoundStatus = 'upcoming' | 'live' | 'finished';
/** Who decided a result: the engine (mate, stalemate, flag…), the result pieces on the board, or the arbiter. */
export type ResultSource = 'engine' | 'result-pieces' | 'arbiter';
export type RulesEdition = '2018' | '2009' | '1997';
export type GameCategory = 'standard' | 'rapid' | 'blitz';

export interface PlayerInfo {
  name: string;
  title: string | null;
  rating: number | null;
  federation: string | null;
  fideId: number | null;
}

export interface TournamentSetup {
  name: string;
  site: string | null;
  startDate: string | null;
  endDate: string | null;
  /** PGN TimeControl form (seconds), e.g. "5400+30". */
  timeControl: string | null;
  rulesEdition: RulesEdition;
  category: GameCategory;
  variant: 'standard' | 'chess960';
  roundCount: number;
  /** ISO dates per round (index 0 = round 1); missing entries are unknown. */
  roundDates: (string | null)[];
}

export interface TournamentRow extends Omit<TournamentSetup, 'roundDates'> {
  id: number;
}

export interface RoundRow {
  id: number;
  tournamentId: number;
  round: number;
  date: string | null;
  status: RoundStatus;
  startedWall: number | null;
  closedWall: number | null;
  gameCount: number;
}

export interface HallTable {
  number: number;
  /** Device path or serial number from the config; null for emulated tables. */
  board: string | null;
  whiteOnClock: 'left' | 'right';
}

export interface PairingInput {
  table: number;
  white: PlayerInfo;
  black: PlayerInfo;
}

export interface PairingRow {
  id: number;
  roundId: number;
  table: number;
  white: PlayerInfo & { id: number };
  black: PlayerInfo & { id: number };
}

/** One half-move as the engine reported it (shape of the engine's move-made event). */
export interface MoveInput {
  ply: number;
  san: string;
  uci: string;
  fenAfter: string;
  /** Wall clock (epoch ms) when the move was completed. */
  wallMs: number;
  /** Monotonic ms of the table session, when known. */
  monoMs?: number | null;
  /** Mover's remaining time just after the move. */
  clockMs?: number | null;
  confirmed?: boolean;
}

export interface MoveRow {
  ply: number;
  san: string;
  uci: string;
  fenAfter: string;
  /** Wall clock (epoch ms). */
  at: number;
  clockMs: number | null;
  confirmed: boolean;
  amended: boolean;
}

export interface ClockReadingInput {
  gameId: number | null;
  tableNumber: number;
  monoMs: number;
  wallMs: number;
  whiteMs: number;
  blackMs: number;
  running: Color | null;
  whiteFlag: boolean;
  blackFlag: boolean;
  /** The raw event the reading was decoded from: a second write of the same reading is ignored. */
  rawEventId?: number | null;
}

export interface IncidentInput {
  ply: number;
  kind: string;
  article: string | null;
  consequence: string | null;
  message: string;
  detail?: unknown;
  monoMs?: number | null;
  wallMs: number;
}

export interface IncidentRow {
  id: number;
  ply: number;
  at: number;
  kind: string;
  article: string | null;
  consequence: string | null;
  message: string;
}

export interface GameRow {
  id: number;
  roundId: number | null;
  round: number | null;
  table: number;
  status: GameStatus;
  result: GameResult;
  resultSource: ResultSource | null;
  termination: string | null;
  startFen: string;
  white: PlayerInfo | null;
  black: PlayerInfo | null;
  createdWall: number;
  startedWall: number | null;
  endedWall: number | null;
  /** Number of current (not taken back) plies. */
  ply: number;
}

export interface AmendmentInput {
  gameId: number | null;
  wallMs: number;
  arbiter: string;
  /** Short machine name, e.g. "set-result", "replace-move", "add-time". */
  action: string;
  reason: string;
  detail?: unknown;
}

export interface AmendmentRow extends Omit<AmendmentInput, 'detail'> {
  id: number;
  detail: unknown;
}
