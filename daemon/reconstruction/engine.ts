import type { Color, NormalMove } from 'chessops';
import { Chess, castlingSide, normalizeMove } from 'chessops/chess';
import { parseFen } from 'chessops/fen';
import { SquareSet } from 'chessops/squareSet';
import { attacks } from 'chessops/attacks';
import { makeSanAndPlay, parseSan } from 'chessops/san';
import { makeSquare, makeUci } from 'chessops/util';
import type { BoardEvent } from '../../protocols/board-events.ts';
import { PIECE, codeToPiece, type PieceCode } from '../../protocols/dgt/squares.ts';
import type {
  ArbiterCommand,
  ClockReading,
  EngineOptions,
  EngineSnapshot,
  GameEvent,
  GameKind,
  GameResult,
  IllegalKind,
  Incident,
  RecordBreak,
  RecordedMove,
  RulesConfig,
  SquareDifference,
  Termination,
  Uncertainty,
} from './game-events.ts';
import { illegalMoveRuling } from './laws.ts';
import { fenOf, placementOf } from './fen.ts';
import { recogniseStart } from '../../protocols/dgt/start-position.ts';
import { ObservedBoard, placementHash, squaresApart } from './observed-board.ts';
import { matchMove, positionCodes, successorsOf, type Successor } from './successors.ts';
import { searchJump as searchSequences, type JumpSearchOptions, type NodeMeter, type SearchResume } from './jump-search.ts';
import { bySequenceLength, legalAfter, seenDetourFirst, takenFromHand, throughHand, withExcursion, withExcursionThrough, withHandThrough } from './jump-variants.ts';
import { planReplacement } from './replacement.ts';
import { boardAtPress } from './press-board.ts';
import { pressesBetween, type StampedReading } from './press-count.ts';
import { passesThrough, showsReading } from './return-board.ts';
import { SeenBoards } from './seen-boards.ts';
import { StepBoards, breakPosition, type RecordEnd, type StepMove } from './step-boards.ts';

/**
 * A piece that rested on a square at least this long (event time) before being moved on was
 * released there (Art 4.7). A sliding piece lights intermediate squares for a scan or two
 * (dgt-protocol.md "Dynamics"), well under this.
 */
const RELEASE_MS = 250;
/**
 * How many plies a jump may hide when the board has settled: a reconnect or drift dump, a press,
 * a piece put down while out of step. A burst in the middle of a hand's work (a piece may be in the
 * hand) is searched only a few plies deep: deeper, a capture sequence "explains" any missing piece.
 */
const MAX_MISSED_PLIES = 8;
const BURST_PLIES = 3;
/** Jumps up to this long with one explanation are trusted (see jumpFrom). */
const TRUSTED_JUMP_PLIES = 3;
/**
 * Nodes one jump search may look at: a search runs inside the event loop that serves every table,
 * so a board nothing explains must fail fast (measured in `npm run bench -- engine`).
 */
const JUMP_BUDGET = 60_000;
/**
 * Nodes for the searches on the board read whole when it comes back (the power-up listing, the
 * reconnect dump). That is once per outage, not once per piece moved. An eight-ply jump can take
 * 400,000 nodes to find exactly; the everyday budget leaves it unexplained, or read through a
 * hand. Measured with `npm run bench -- engine`: a return that nothing explains holds the event
 * loop for up to about 0.7 s in all (0.1 s at the everyday budget).
 */
const RETURN_JUMP_BUDGET = 500_000;
/**
 * Nodes all the searches of one board event may spend together: the event loop waits on them
 * (about a second; a return searched exactly and then through a hand, each at the larger budget,
 * took up to 1.4 s before).
 */
const EVENT_NODES = 800_000;
/**
 * Nodes a count's fill of a break may spend in all, an event's nodes at each live reading (about
 * one a second): the record stays broken meanwhile, the views follow the board. A ninth ply
 * completed by the hand at the return took 11 million nodes to search whole at the nine plies the
 * clock counted, 2 to 3 million to a first sequence (4.4 s and about 1 s of one core).
 */
const COUNT_FILL_NODES = 16_000_000;
/** Boards remembered since the board last went away, to tell the order of a jump (see SeenBoards). */
const SEEN_BOARDS = 256;
/** Boards seen latest, tried as the one before a move that tells a jump's parity (seenMoveTellsTurn). */
const SEEN_MOVE_BOARDS = 4;
/** The plies a takeback into an inferred span may take back: the noise model's and the players' (1–3). */
const TAKEBACK_INTO_SPAN_PLIES = 3;
/** Squares tried as where a piece read in a hand came from, when its landing is seen (seenMoveTellsTurn). */
const HAND_ORIGINS = 3;
/** Sequences kept for the arbiter when several explain one jump. */
const JUMP_ALTERNATIVES = 64;
/**
 * Nodes for a jump read again through the board it was read at with a piece in a hand, all the
 * boards that hand leaves together (jump-variants throughHand): more than a field event's search
 * (an eight-ply reading through a knight's hand took 92,000 nodes), and less than half the event's
 * meter, which the search from the jump's start may still need when it fails.
 */
const HAND_READING_BUDGET = 300_000;
/**
 * The most plies by which the clock's count of presses (press-count.ts) may correct a jump: a
 * tempo or a hand misread is two plies. More is likelier a clock the arbiter set meanwhile (two
 * minutes added for an illegal move look like four presses under a 30 s increment), unless the
 * jump was read through a piece in a hand: then up to HAND_HIDES_PLIES (countPressesSince).
 */
const COUNTED_PLIES_OFF = 2;
/** The most plies a piece in a hand can hide from a reading: its trip out and back, and the replies. */
const HAND_HIDES_PLIES = 4;
/**
 * Without a clock, the longest jump read with one piece out and back when no sequence reaches the
 * board (it shows moves of one side only: the other's tempo left no trace). Deeper, wandering
 * pieces "explain" any board.
 */
const DETOUR_WITHOUT_CLOCK_PLIES = 4;
/**
 * A running clock is read at least every second (SEND_UPDATE_NICE sends a reading whenever a time
 * changes). Silent this long while pieces move, it has stopped or gone (its cable out, its battery
 * flat: the board drops readings that say no clock is connected), and no press will complete
 * anything: a board off the record is then judged as in a game without a clock.
 */
const CLOCK_SILENT_MS = 10_000;

/**
 * A running clock read again only after this long was not read in between: a press its reading
 * shows may have been made at any moment of the gap (a jittery line delays a reading by
 * milliseconds, not by seconds; a host busy with a search, by about one).
 */
const CLOCK_UNREAD_MS = 3_000;

/**
 * A reading at a press shows the side whose clock the press started with the time it stopped at,
 * less at most the second the display may have ticked since. Less than that by more, and that
 * side's clock has run for longer: the reading came after the press, which was not read.
 */
const PRESS_READ_LATE_MS = 1_000;

/**
 * A board in live-update mode reports a running clock every second; a bus line's poll reads it only
 * when a press is in the board's change list. Two readings of one running side this close apart,
 * the time gone down, show the first kind: only there do gaps and silences say readings were lost.
 */
const CLOCK_TICK_MS = 1_500;

/**
 * The last of `moves` left square `sq` empty: it moved from there, or took en passant the pawn
 * standing there (beside its origin, on its landing's file). A move seen ending with a lift ends
 * so (its landing seen before its own square emptied, a pawn put down before the one it took en
 * passant was lifted).
 */
function leftLast(moves: readonly NormalMove[], sq: number): boolean {
  const last = moves[moves.length - 1];
  return last !== undefined && (last.from === sq || ((last.to & 7) === (sq & 7) && last.from >> 3 === sq >> 3 && (last.from & 7) !== (last.to & 7)));
}

/** The SAN of `moves` played from `pos`. */
function sansOf(pos: Chess, moves: readonly NormalMove[]): string[] {
  const probe = pos.clone();
  return moves.map((m) => makeSanAndPlay(probe, m));
}

/** The board a jump was read at, and the jump's length (plies). */
interface JumpReading {
  codes: Uint8Array;
  /** The square whose piece the reading took to be in a hand (undefined: read exactly). */
  held?: number;
  plies: number;
}

/** A jump as adopted from ply `base`: its sequences (the first played), whether more fit, the hand it was read through. */
interface Adoption {
  base: number;
  sequences: readonly NormalMove[][];
  more: boolean;
  inHand?: number;
}

/**
 * The last jump, while nothing seen on the board has confirmed it (plies `base`+1..`end`).
 * `doubted`, without a clock: searched again from its start for a piece put down out of turn,
 * nothing fitted; play seen from then on may break the record, as on a board out of step.
 * `inHand`: the jump was read through a piece in a hand (the square it stood on); `readAt`:
 * the board it was read at, kept while the jump is searched again from the same ply. `refuted`: a
 * piece was then put down where no move explains it while that square stayed empty, and nothing
 * from the jump's start fitted: the boards seen from then on are kept, so that a break starts
 * where play went on from (not deeper searches at every piece put down: those find detours
 * for the piece in the hand, moves nobody saw made). `searchedAt`: the jump was searched again
 * at a piece put down (where and when it landed), replacing the reading kept there.
 */
interface Provisional {
  base: number;
  end: number;
  trusted: boolean;
  doubted?: true;
  inHand?: number;
  refuted?: true;
  readAt?: JumpReading;
  searchedAt?: { sq: number; code: number; at: number; replaced: { adoption: Adoption; provisional: Provisional } };
}

/** The game after a number of plies, with what the board should show then. */
interface Ply {
  /** Kept for the last two plies only (memory per live game); older ones come back from the FEN. */
  pos?: Chess;
  codes: Uint8Array;
  hash: number;
  /** FEN without the move counters: equal keys are the same position for Art 9.2. */
  key: string;
  fen: string;
  successors?: Successor[];
  /** The move that led here (absent for ply 0). */
  record?: RecordedMove;
  move?: NormalMove;
  /** Event sequence number and time at which this position became the game's. */
  sinceSeq: number;
  /**
   * For the move that led here: lifts after this event sequence number belong to that move (the
   * last time the board showed the position before it, so a piece touched and put back is not).
   */
  movedSince: number;
  sinceAt: number;
  /** The move was inferred from a jump, not seen made on the board. */
  inferred?: true;
  /** The move is an inferred one amended (its piece seen moved on from the landing the jump read): where it started was never seen. */
  amendsInferred?: true;
  /**
   * A break whose board has a piece read in a hand on one of several squares it may have come
   * from (StepBoards.beforeHand): the move after it is known, that board is not, and no fill is
   * searched to it.
   */
  guessed?: true;
}

/** A count's fill of a break searched again at the next live reading (fillBreakByCount). */
interface FillAgain {
  since: number;
  presses: number;
  off: number;
  /** Searches that ran out of an event's nodes again: gone on with, where they stopped. */
  pending?: PendingFill[];
}

/**
 * fillBreakByPlies's search for one break: which (the break's ply and board, the position it is
 * searched from), how far it has got (a plain search over the lengths the record's numbering
 * allows, then one with a piece out and back at the record's own length), where it stopped, and
 * the nodes spent.
 */
interface PliesFill {
  key: string;
  stage: 'plain' | 'detour' | 'done';
  resume?: SearchResume;
  spent: number;
}

/** A fill's search from `base` that stopped, and the positions it was searched between (it is dropped when either changed). */
interface PendingFill {
  base: number;
  fen: string;
  breakFen: string;
  resume: SearchResume;
  spent: number;
}

interface Alias {
  /** Square where a pawn left on the last rank stands for a queen (7.5.2), or -1 while in hand. */
  sq: number;
  pawn: number;
  queen: number;
}

/** d4, e4, d5, e5 (chessops squares). */
const SQ_E4 = 28;
const SQ_D5 = 35;
const CENTRE: ReadonlySet<number> = new Set([27, SQ_E4, SQ_D5, 36]);

const sameMove = (a: NormalMove, b: NormalMove): boolean => a.from === b.from && a.to === b.to && a.promotion === b.promotion;
/**
 * The same move played from `pos`. A king put down two squares over before its rook is matched as
 * that step (matchMove), the move lists write castling as the king onto its rook: chessops plays
 * both as the castling, so a recorded move is looked up among the successors by what it plays.
 */
const samePlayedMove = (pos: Chess, a: NormalMove, b: NormalMove): boolean => sameMove(normalizeMove(pos, a) as NormalMove, normalizeMove(pos, b) as NormalMove);

/** `moves` from `pos` written as the move lists write them (castling as the king onto its rook). */
function asPlayed(pos: Chess, moves: readonly NormalMove[]): NormalMove[] {
  const p = pos.clone();
  return moves.map((m) => {
    const move = normalizeMove(p, m) as NormalMove;
    p.play(move);
    return move;
  });
}

const other = (c: Color): Color => (c === 'white' ? 'black' : 'white');

/** A two-period control adds its bonus at the period's last move: the clock's times count nothing across it (`plies` from `pos`). */
function nearBonusMove(tc: NonNullable<EngineOptions['timeControl']>, pos: Chess, plies: number): boolean {
  const period = tc.movesToSecondPeriod;
  return period !== undefined && period >= pos.fullmoves - 1 && period <= pos.fullmoves + Math.ceil(plies / 2);
}

/** What a jump search from a ply of the record looks for (see GameEngine.jumpFrom). */
interface JumpQuery {
  /** Longest sequence tried, in plies. */
  maxDepth: number;
  /** Shortest sequence tried (default 2: one move is the matcher's business). */
  minDepth?: number;
  /** Sequences that leave the board one piece short may explain it (a piece in a hand). */
  inHand?: boolean;
  /** The placement to reach (default: the board as seen now). */
  target?: Uint8Array;
  /** Boards seen whole that every sequence must pass through (the board nothing explained at a return is added to them). */
  through?: readonly Uint8Array[];
  /** Nodes each search may look at (default: the event's, the return's larger one while a board comes back). */
  budget?: number;
  /** A square just emptied: the last move of every sequence must have left it (a move ends with a lift only so). */
  liftedLast?: number;
  /** The board a jump was read at through a hand, and its plies: sequences as long or longer must pass through it (boardReadThroughHand). */
  readThroughHand?: JumpReading;
  /** The move seen made after the jump's board: every sequence must leave it legal (an en passant capture needs the double step last). */
  moveAfter?: NormalMove;
  /** No piece out and back: the sequences the pruned search finds, and only those. */
  plain?: boolean;
}

/**
 * Reconstructs one table's legal game from its board events under the FIDE Laws. Pure and
 * deterministic: time comes only with the events, and the same events always give the same game
 * events. Never throws on bad input: what cannot be explained becomes an incident.
 *
 * Method: keep the board as observed (oriented, index = chessops Square) and the squares where it
 * differs from the game's current position. When two to four squares differ, the candidate moves
 * those squares allow are built and checked with chessops; the first event that makes the board
 * equal to a legal successor makes the move, with no debounce. Transient boards
 * (piece in hand, slides, scan-order doubles) equal nothing and wait. A board that equals another
 * successor of the previous position is the same player changing an unconfirmed move; one that
 * equals an earlier position is a takeback; jumps are searched a few plies deep.
 */
export class GameEngine {
  private readonly rules: RulesConfig;
  private readonly opts: EngineOptions;
  private readonly board = new ObservedBoard();
  private seq = 0;
  private started = false;
  private kind: GameKind | undefined;
  private chess960Number: number | undefined;
  private chess960 = false;
  private history: Ply[] = [];
  private readonly byHash = new Map<number, number[]>();
  private readonly repetitions = new Map<string, number>();
  private incidents: Incident[] = [];
  private illegalCounts = { white: 0, black: 0 };
  /**
   * The last illegal move reported, while the board still shows it: when the opponent then moves
   * and presses, the illegal move stood (rapid and blitz after the opponent's move, or nobody
   * noticed), and the record breaks there instead of holding the opponent's press against them.
   */
  private pendingIllegal: { by: Color; ply: number } | undefined;
  /**
   * The ply of the last break in the record until a move after it is seen made and pressed: the
   * board it was taken from may still have had a piece in a hand, or the other side to move, so an
   * irregular press meanwhile takes the break again from the board, and is held against nobody.
   */
  private breakGrace: number | undefined;
  /** The event sequence number of the last board change read from the board's log. */
  private loggedSeq = -1;
  /** Nodes a jump search may look at now: more for the board read whole on its return (onDump). */
  private jumpBudget = JUMP_BUDGET;
  /** What the searches of the event being pushed may still spend (EVENT_NODES). */
  private readonly meter: NodeMeter = { left: EVENT_NODES };
  /** The event sequence number at which the board was last disconnected. */
  private disconnectedSeq = 0;
  private result: { result: GameResult; termination: Termination; ply: number } | undefined;
  private connected = true;
  private resyncPending = false;
  private lastClock: ClockReading | undefined;
  /** The last reading knew one side's time only (BoardEvent clock `partial`): no move's reading. */
  private lastClockPartial = false;
  /** The last reading the board sent live: where a count of presses starts. */
  private lastLiveReading: StampedReading | undefined;
  /** That reading and the record's plies pressed for and made when the board went away, until the first live reading after it came back. */
  private beforeOutage: { reading: StampedReading; pressed: number; ply: number; handFirst?: true; waitsOn?: number } | undefined;
  private running: Color | null = null;
  /** The square and piece of the last field event that put a piece down since the record or the board was last taken whole. */
  private lastPlaced: { sq: number; code: number; at: number } | undefined;
  /** The square last emptied on the board, and when. */
  private lastLifted: { sq: number; at: number } | undefined;
  /** A clock has been read in this game: presses will confirm moves. */
  private clockSeen = false;
  /** When the last clock reading arrived (CLOCK_SILENT_MS). */
  private lastClockAt = -Infinity;
  /** When the board's link last came up: a clock silent since then was silent on a live board. */
  private connectedAt = -Infinity;
  /** When the last reading the board sent live (not read back from its log) arrived. */
  private lastLiveClockAt = -Infinity;
  /** When the board, back, first showed a change live (pieces moved on a board being read). */
  private liveFieldSince: number | undefined;
  /** The record's length at each side's latest press seen: the other side's clock ran from there on (movedSinceClockStarted). */
  private readonly pressedAtPly: Partial<Record<Color, number>> = {};
  /** The clock has been seen read every second while it runs (CLOCK_TICK_MS). */
  private clockTicks = false;
  /** Each side's time at the latest reading in which its clock stood (PRESS_READ_LATE_MS). */
  private readonly stoppedMs: Partial<Record<Color, number>> = {};
  private alias: Alias | undefined;
  /** Board hash and clock side of the last jump search (a board is searched once per reading). */
  private lastSearchKey: string | undefined;
  /** The board takebackIntoUnkeptOrder last searched for (by hash): a press again on it searches nothing more. */
  private unkeptSearched: number | undefined;
  /**
   * The plies pressed for since the game began, as the clock's times counted them after the board
   * was last away (press-count.ts) and every press since: a search again from an inferred jump's
   * start at a press asks for that length. Forgotten when the players take a move back (a press
   * is not taken back with it) and when the board goes away.
   */
  private clockCount: number | undefined;
  /** The board event in which the record last broke. */
  private brokeSeq = -1;
  /**
   * Placements the board showed since it last went away, while the record was not yet sure of it
   * (away, back and out of step, or an inferred jump unconfirmed; by hash, the latest SEEN_BOARDS):
   * of the orders that explain a jump, one that passes through a board seen is the one played, and
   * a move seen made from one of them may tell whose turn the jump left (seenMoveTellsTurn).
   */
  private readonly seenBoards = new SeenBoards(SEEN_BOARDS);
  /**
   * The board read whole at the board's return, when nothing explained it, and the record's plies
   * then: a sequence found later from that ply or before must pass through it (return-board.ts).
   */
  private returnBoard: { codes: Uint8Array; ply: number } | undefined;
  /** A fill of a break by the count whose search ran out of the event's nodes: searched again at the next live reading (fillBreakByCount). */
  private fillAgain: FillAgain | undefined;
  /** The break a count's fill was last tried on, the count's start and presses, and the board it had then (countedBreakRetaken). */
  private countedBreak: { since: number; presses: number; ply: number; fen: string } | undefined;
  /** A break in a game the clock cannot count, searched for over the moves played after it (fillBreakByPlies). */
  private pliesFill: PliesFill | undefined;
  /** A clock reading arrived since the board last (re)connected. */
  private clockFresh = true;
  /**
   * Without a clock, the board has gone off the record while it was watched (a piece moved where
   * no legal move takes it, a move of the side the record does not have to move) and nothing has
   * brought it back yet: no press will ever say so, so the boards are kept and a move and its reply
   * seen on them break the record (breakBeforeMoveAndReply). Reset when the record moves or the
   * board is in step again.
   */
  private adrift = false;
  /**
   * The board came back (or settled) showing something nothing explains yet: every placement and
   * press searches again until a sequence fits or the board returns to the game, and a press
   * meanwhile is not judged (the engine, not the player, has lost the thread).
   */
  private outOfStep: false | 'silent' | 'reported' = false;
  /** While out of step, the boards seen after each change and each dump (step-boards.ts). */
  private readonly stepBoards = new StepBoards();
  /**
   * The arbiter has just set a position or taken moves back: the pieces are being put to it, so
   * the views show the arbiter's position, not the half-arranged board, until a press resumes play.
   */
  private arrangingForArbiter = false;
  /** The last jump, while nothing seen on the board has confirmed it (Provisional). */
  private provisional: Provisional | undefined;
  /** The last jump adopted, as adopted (a reading searched again at a piece that did not rest is put back). */
  private lastAdoption: Adoption | undefined;
  /** The jump's start, the hand's reading and the board last searched through it (adoptThroughHand). */
  private lastThroughKey: string | undefined;
  /** The last jump confirmed, and the ply whose completion confirmed it (taking that ply back undoes the confirmation). */
  private confirmedJump: { jump: { base: number; end: number; trusted: boolean }; by: number } | undefined;
  /** The placement last published while out of step (null: the record follows the board). */
  private shownPlacement: string | null = null;
  private out: GameEvent[] = [];
  /** After a result shown with the kings, the move the board showed once they left the centre (play may be going on). */
  private kingsResume: Successor | undefined;
  /** Times of the last two field events (a knock or a burst changes several squares at one time). */
  private previousAt = -Infinity;
  /** The castling rights the game started with (castlingUnderOtherReading). */
  private startRights = SquareSet.empty();
  /** Last event after which the board showed the game's position exactly. */
  private settledSeq = 0;
  private lastAt = -Infinity;

  constructor(opts: EngineOptions) {
    this.opts = opts;
    this.rules = opts.rules;
  }

  /**
   * What the push or decision under way (or the last one) has derived: after one that threw, what
   * it derived before (the state already holds it). Each step starts a new list.
   */
  derivedSoFar(): GameEvent[] {
    return this.out;
  }

  push(ev: BoardEvent): GameEvent[] {
    this.out = [];
    this.seq++;
    this.meter.left = EVENT_NODES;
    const pliesBefore = this.plyCount();
    if (ev.type === 'field') {
      this.previousAt = this.lastAt;
      this.lastAt = ev.at;
      if (ev.logged !== true && this.connected && this.liveFieldSince === undefined) this.liveFieldSince = ev.at;
    }
    switch (ev.type) {
      case 'field':
        // A change read from the board's log has its order but not its time: how long a piece
        // stood released before it was moved on (Art 4.7) cannot be told across it.
        if (ev.logged) this.loggedSeq = this.seq;
        this.onField(ev.field, ev.piece, ev.at);
        if (this.plyCount() > pliesBefore) this.fillBreakByPlies(ev.at);
        break;
      case 'dump':
        this.onDump(ev.board, ev.at);
        break;
      case 'clock':
        this.onClock(ev);
        break;
      case 'connection':
        this.onConnection(ev.connected, ev.at);
        break;
    }
    this.noteStepBoard(ev);
    this.noteSeenBoard(ev);
    this.showBoard(ev.at);
    return this.out;
  }

  private noteSeenBoard(ev: BoardEvent): void {
    if (ev.type === 'connection' && !ev.connected) {
      this.seenBoards.clear();
      return;
    }
    if (ev.type !== 'dump' && ev.type !== 'field') return;
    // In step with a record nothing put in doubt, every board is the record's or a move under
    // way: nothing to remember (this runs on every board event).
    if (!this.resyncPending && !this.outOfStep && !this.provisional) return;
    this.seenBoards.note(this.board.hash, this.board.seen);
  }

  private noteStepBoard(ev: BoardEvent): void {
    if (!this.outOfStep && !this.provisional?.doubted && !this.provisional?.refuted && !this.adrift) {
      this.stepBoards.clear();
      return;
    }
    if (ev.type !== 'dump' && ev.type !== 'field') return;
    // Play went off the record from the record's own board: it is the first kept (a move of the
    // side the record does not have to move starts there; so may play after a break, whose side
    // to move is a guess without a clock).
    if (this.adrift && this.stepBoards.list.length === 0) this.stepBoards.startFrom(this.top().codes);
    this.stepBoards.note(this.board.seen);
  }

  /**
   * Never freeze: while the record cannot follow the board, the board itself is published (its
   * placement, in the game's orientation) so every live view keeps showing the table; null once
   * the record is in step again.
   */
  private showBoard(at: number): void {
    if (this.arrangingForArbiter && (this.board.mismatches === 0 || this.result)) this.arrangingForArbiter = false;
    const placement = this.started && this.outOfStep && !this.result && !this.arrangingForArbiter ? placementOf(this.board.seen) : null;
    if (placement === this.shownPlacement) return;
    this.shownPlacement = placement;
    this.out.push({ type: 'board-shown', at, placement });
  }

  arbiter(cmd: ArbiterCommand): GameEvent[] {
    this.out = [];
    this.seq++;
    this.meter.left = EVENT_NODES;
    switch (cmd.type) {
      case 'set-result':
        if (this.started) this.end(cmd.result, 'arbiter', cmd.at);
        break;
      case 'reinstate':
        if (this.started && Number.isInteger(cmd.ply) && cmd.ply >= 0 && cmd.ply < this.history.length - 1) {
          this.takeback(cmd.ply, cmd.at);
          this.arrangingForArbiter = true;
        }
        break;
      case 'replace-moves':
        if (this.started) this.replaceMoves(cmd.fromPly, cmd.sans, cmd.at, cmd.replaces ?? cmd.sans.length);
        break;
      case 'accept-board':
        if (this.started) this.acceptBoard(cmd.ply, cmd.at);
        break;
      case 'set-position': {
        const setup = parseFen(cmd.fen);
        const pos = setup.isOk ? Chess.fromSetup(setup.value) : undefined;
        if (!pos || !pos.isOk) {
          this.incident({
            kind: 'illegal-position',
            at: cmd.at,
            ply: this.plyCount(),
            article: 'arbiter',
            consequences: [{ kind: 'arbiter-decides', note: 'the position given is not a legal FEN' }],
            message: `Arbiter position rejected: ${cmd.fen}`,
            differences: [],
          });
          break;
        }
        this.startGame('arbiter-position', pos.value, undefined, this.board.reversed, cmd.at);
        this.arrangingForArbiter = true;
        this.evaluate(cmd.at, 'dump');
        break;
      }
    }
    this.showBoard(cmd.at);
    return this.out;
  }

  /** See ArbiterCommand 'replace-moves'. Readings of presses stay with their plies. */
  private replaceMoves(fromPly: number, sans: readonly string[], at: number, replaces: number, uncertain?: Uncertainty): void {
    const planned = planReplacement(
      this.history.map((p) => p.fen),
      this.history.slice(1).map((p) => p.move ?? null),
      fromPly,
      sans,
      replaces,
    );
    if (!planned.ok) {
      this.incident({
        kind: 'illegal-position',
        at,
        ply: this.plyCount(),
        article: 'arbiter',
        consequences: [{ kind: 'arbiter-decides', note: planned.error }],
        message: `Arbiter's moves refused: ${planned.error}`,
        differences: [],
      });
      return;
    }
    const old = this.history.slice(fromPly + 1).map((p) => p.record!);
    // Each new ply takes the press reading of the recorded ply in its place: the given moves those
    // of the plies they replace (the last of them the last one's, when the counts differ: a break
    // filled with the moves it hid keeps the press that ended it), the later moves their own.
    const readingOf = (i: number): RecordedMove | undefined =>
      i < sans.length ? (sans.length === replaces ? old[i] : i === sans.length - 1 ? old[replaces - 1] : undefined) : old[i - sans.length + replaces];
    this.takeback(fromPly, at);
    this.provisional = undefined;
    this.confirmedJump = undefined;
    planned.value.forEach((m, i) => {
      const cur = this.top();
      const was = i > 0 ? readingOf(i - 1) : undefined;
      if (was?.confirmed) this.confirmWith(this.plyCount(), was.clockAfter, at);
      const s = this.successors(cur).find((x) => samePlayedMove(this.posOf(cur), x.move, m))!;
      this.makeMove(cur, s, at, false, i < sans.length ? uncertain : undefined);
    });
    const last = readingOf(planned.value.length - 1);
    if (last?.confirmed) this.confirmWith(this.plyCount(), last.clockAfter, at);
  }

  /**
   * An irregular press soon after a break (no move after it seen made and pressed yet), or with the
   * record taken back to one: the break was taken from a board not yet right (a piece in a hand,
   * the other side to move), or the players went back into the moves it hid. It is taken again
   * from the board as it is now, replacing the last break when no move came after it.
   */
  private rebreak(by: Color, at: number, seenAtPress: boolean): boolean {
    // Moves taken back to a break and then into the moves it hid (a player's own takeback) leave
    // a board no move of the record explains: the moves before the break are not known, so nothing
    // there can be judged.
    const ply = this.top().record?.gap ? this.plyCount() : this.breakGrace;
    if (ply === undefined || ply > this.plyCount()) return false;
    const gap = this.history[ply]?.record?.gap;
    if (!gap) return false;
    // Taken again in place of a break nothing followed yet: the arbiter was told of it already.
    const replacing = ply === this.plyCount();
    const broken = this.history[ply]!;
    // A board no position can be set up from (a king in check with the other side to move) breaks
    // nothing: the break stands rather than be taken back with nothing in its place, which would
    // take the record back and forth at every press.
    const settable = !replacing || breakPosition(this.recordEndBefore(), this.board.seen, other(by)) !== undefined;
    if (settable && replacing) this.takeback(ply - 1, at);
    if (!settable || !this.openBreak(by, at, gap.reason, false, replacing)) {
      if (!this.outOfStep) this.outOfStep = 'silent';
      return true;
    }
    if (replacing && this.clockCount !== undefined && this.putRightAfterPress(broken.codes, broken.record!.by, by)) this.clockCount -= 2;
    this.confirm(this.plyCount(), 'clock', at, seenAtPress);
    return true;
  }

  /**
   * The break `breakerBy` pressed at showed one of their pieces moved (or taking) where the board
   * taken again now, at `by`'s press, has it back and the square it went to as it was: a move that
   * broke the record (an illegal one, as a rule) was put right, and the opponent pressed to start
   * the mover's clock again (7.5.1). Two presses, and no move: the clock's count drops them.
   */
  private putRightAfterPress(breakBoard: Uint8Array, breakerBy: Color, by: Color): boolean {
    return by !== breakerBy && this.stepBoards.displaced({ codes: this.board.seen, turn: breakerBy }, breakBoard) !== undefined;
  }

  /** See ArbiterCommand 'accept-board'. */
  private acceptBoard(ply: number | undefined, at: number): void {
    const n = this.plyCount();
    const target = this.history[ply ?? n];
    const gap = target?.record?.gap;
    if (gap && !gap.accepted) {
      gap.accepted = true;
      const r = target.record!;
      this.out.push({ type: 'move-amended', at, ply: r.ply, by: r.by, previousSan: r.san, san: r.san, uci: r.uci, fenAfter: r.fenAfter, gap: { ...gap } });
      return;
    }
    if (gap) return;
    // No break yet: the board as it stands, with the running clock's side to move.
    if (this.board.mismatches === 0 || !this.acceptsMoves()) return;
    const turn = this.running ?? other(this.posOf(this.top()).turn);
    if (this.openBreak(other(turn), at, 'unexplained', true)) this.confirm(this.plyCount(), 'clock', at);
  }

  /**
   * The record breaks: play goes on from the board as it stands, `by` having moved last. The break
   * takes one ply with no move (RecordBreak); false when the board is no legal position with the
   * other side to move (a piece still in a hand, a king missing), and the record stays out of step.
   * `ep`: the move after the break is an en passant capture, so the break ended with its double step.
   */
  private openBreak(
    by: Color,
    at: number,
    reason: RecordBreak['reason'],
    accepted = false,
    quiet = false,
    placement: Uint8Array = this.board.seen,
    note?: string,
    ep?: number,
    rightBack?: number,
  ): boolean {
    const top = this.top();
    const pos = breakPosition(this.recordEnd(), placement, other(by), ep, rightBack);
    if (!pos) return false;
    const n = this.plyCount();
    const differences: SquareDifference[] = [];
    for (let s = 0; s < 64; s++) if (placement[s] !== top.codes[s]) differences.push({ square: makeSquare(s), expected: top.codes[s]!, seen: placement[s]! });
    const prev = top.record;
    if (prev && !prev.confirmed) this.confirm(n, 'opponent-moved', at);
    const gap: RecordBreak = { reason, ...(accepted ? { accepted: true as const } : {}) };
    const record: RecordedMove = { ply: n + 1, by, san: '--', uci: '0000', fenAfter: '', at, confirmed: false, gap };
    const next = this.pushPly(pos, record, undefined, at);
    record.fenAfter = next.fen;
    next.inferred = true;
    this.outOfStep = false;
    this.provisional = undefined;
    this.confirmedJump = undefined;
    this.pendingIllegal = undefined;
    this.breakGrace = record.ply;
    this.brokeSeq = this.seq;
    this.out.push({
      type: 'move-made',
      at,
      ply: record.ply,
      by,
      san: record.san,
      uci: record.uci,
      fenAfter: record.fenAfter,
      ...(this.lastClock ? { clock: { ...this.lastClock } } : {}),
      gap: { ...gap },
    });
    if (quiet) return true;
    this.incident({
      kind: 'illegal-position',
      at,
      ply: n,
      article: reason === 'illegal-move-stood' ? '7.5.1 (rapid, blitz: A.4.2, B.3)' : '7.4 (2018: 7.5.1)',
      consequences: [
        {
          kind: 'arbiter-decides',
          note: `the record goes on from the board; give the missing moves (POST /api/arbiter/games/:id/moves {fromPly: ${n}, replaces: 1, sans}) or accept the board's position (POST /api/arbiter/games/:id/accept-board {ply: ${n + 1}})`,
        },
      ],
      message:
        reason === 'illegal-move-stood'
          ? `The illegal move stood and play went on: the record breaks after ply ${n} and goes on from the board (${next.fen}).`
          : differences.length === 0 && ep !== undefined
            ? `The record breaks after ply ${n}: the en passant capture that follows needs the pawn to have reached ${makeSquare(ep + (by === 'white' ? 8 : -8))} by a double step, which the record's inferred moves do not have (one of them was read otherwise); the record goes on from its board${note ? `; ${note}` : ''}.`
            : differences.length === 0 && rightBack !== undefined
              ? `The record breaks after ply ${n}: the castling that follows needs the king and the rook of ${makeSquare(rightBack)} never to have moved, and the record's inferred moves move one of them (they were read otherwise); the record goes on from its board, that castling right given back${note ? `; ${note}` : ''}.`
              : differences.length > 0
                ? `The record breaks after ply ${n}: play goes on from a board the game cannot reach (it differs on ${differences.map((d) => d.square).join(' ')}); the record goes on from it${note ? `; ${note}` : ''}.`
                : `The record breaks after ply ${n}: play goes on from the record's board with ${other(by)} to move, where the record has ${by} to move; the record goes on from it${note ? `; ${note}` : ''}.`,
      differences,
    });
    return true;
  }

  /**
   * The record breaks at the board before the move that shows it: a board seen while out of step
   * from which one legal move of `mover` leads to the board as it stands (the press that named
   * `mover` says that move is complete). The break takes that board, and the move is recorded
   * after it, so the first move after an outage is kept. The oldest such board wins: a castling
   * whose king went first passes through a board from which the rook's move alone would explain
   * the last one.
   */
  private breakBeforeMove(mover: Color, at: number, to: Uint8Array = this.board.seen): boolean {
    const end = this.recordEnd();
    for (const codes of this.stepBoards.list) {
      const s = this.stepBoards.moveBetween(end, codes, to, mover);
      if (!s || !this.stepBoards.breakable(end, codes)) continue;
      if (!this.openBreak(other(mover), at, 'unexplained', false, false, codes, undefined, s.ep)) return false;
      this.makeMove(this.top(), s, at);
      return true;
    }
    for (const codes of this.stepBoards.list) {
      const hand = this.stepBoards.beforeUnseen(end, codes, to, mover);
      if (!hand) continue;
      if (!this.openBreak(other(mover), at, 'unexplained', false, false, hand.codes, hand.note, hand.move.ep)) return false;
      if (hand.several) this.top().guessed = true;
      this.makeMove(this.top(), hand.move, at);
      return true;
    }
    return false;
  }

  /**
   * The search at a press by `by` on a board out of step: to the board now, and else to the board
   * as it stood when the press landed (boardAtPress), the opponent's move then under way.
   */
  private searchAtPress(by: Color, at: number): boolean {
    if (this.searchJump(at, by, MAX_MISSED_PLIES, true)) return true;
    const pressed = this.boardAtPress(by, at);
    return pressed !== undefined && this.jumpFrom(this.plyCount(), at, by, { maxDepth: MAX_MISSED_PLIES, inHand: true, target: pressed });
  }

  /**
   * The record breaks at a press by `by` that nothing explains: before the move pressed for when
   * it can be told (breakBeforeMove), else at the board as it stood when the press landed.
   */
  private breakAtPress(by: Color, at: number): boolean {
    const pressed = this.boardAtPress(by, at);
    // The opponent's move seen made before the one pressed for (read back from the board's log
    // after a USB pull, or made on the board after it came back) goes after the break too.
    if (this.breakBeforeMoveAndReply(at, by) || this.breakBeforeMove(by, at) || (pressed && this.breakBeforeMove(by, at, pressed))) return true;
    return this.openBreak(by, at, 'unexplained', false, false, pressed ?? this.board.seen);
  }

  /**
   * Without a clock nothing says a move is complete: a piece sliding to a capture passes through
   * boards each one legal move from the last. Play is going on when a move and the opponent's
   * reply are seen on a board nothing explains: the record breaks before the first, and both are
   * recorded. `pressedBy`: at a press that breaks the record, the reply is that side's (the move
   * pressed for), and the opponent's move seen before it is kept too.
   */
  private breakBeforeMoveAndReply(at: number, pressedBy?: Color): boolean {
    const boards = this.stepBoards.list;
    const end = this.recordEnd();
    const repliers = pressedBy ? [pressedBy] : (['white', 'black'] as const);
    for (let j = boards.length - 1; j > 0; j--) {
      const between = boards[j]!;
      if (!this.stepBoards.mayBeMove(between, this.board.seen)) continue;
      for (const replier of repliers) {
        for (let i = 0; i < j; i++) {
          let from = boards[i]!;
          let first = this.stepBoards.moveBetween(end, from, between, other(replier));
          let note: string | undefined;
          let guessed = false;
          if (!first) {
            const hand = this.stepBoards.beforeUnseen(end, from, between, other(replier));
            if (hand) ({ codes: from, move: first, note } = hand);
            guessed = hand?.several === true;
          }
          if (!first) continue;
          // A piece moved in full where no legal move takes it, and play went on from there: the
          // move stood (nothing completes one without a clock, so it was never reported).
          const breakable = this.stepBoards.breakable(end, from);
          const stood = note === undefined && !breakable && this.adrift ? this.stepBoards.displaced(end, from) : undefined;
          // The record's own board, and a move of the side it does not have to move: a move out of
          // turn (or the break before it left the wrong side to move), and play went on.
          const own = squaresApart(from, end.codes).length === 0;
          if (!breakable && !stood && !(own && this.adrift && other(replier) !== end.turn)) continue;
          // The piece moved in full is the one the jump was read with in a hand: it came from
          // elsewhere (a bishop read as lifted from c8 takes on b1 from f5). Play went on from
          // there, so it was no try: the jump is read again through that board, and the move and
          // the reply are recorded after it.
          if (stood && stood.from === end.inHand && this.readThroughStood(from, at)) {
            this.playMoveAndReply(from, between, replier, at);
            return true;
          }
          // The reply from the position the first move leaves (an en passant capture of the pawn
          // that has just gone two squares), not from a board's guess.
          const reply = this.stepBoards.replyAfter(end, from, first, between, this.board.seen, replier);
          if (!reply) continue;
          // Moves seen made before `first` (one completed in the same instant as another change,
          // which no event of its own judged) go after the break too: it starts at the oldest
          // board kept from which they lead to `from`, one legal move at a time.
          const earlier = breakable && note === undefined ? this.movesBefore(end, i, [first.move, reply.move], other(replier)) : undefined;
          const start = earlier ? boards[earlier.index]! : from;
          const moves = earlier ? [...earlier.moves, first] : [first];
          if (stood) note = this.displacedNote(stood);
          // The record's own board, ending in a break: play went on from it with the other side to
          // move. The break is taken again in its place (the arbiter was told of it already).
          const gap = this.top().record?.gap;
          const again = gap !== undefined && own && !earlier;
          // Not taken back unless it can be taken again (with the other side to move the side not
          // to move may stand in check: then that board is no position to go on from).
          const ep = earlier ? earlier.moves[0]!.ep : first.ep;
          if (again && !breakPosition(this.recordEndBefore(), from, other(replier), ep)) continue;
          if (again) this.takeback(this.plyCount() - 1, at);
          if (!this.openBreak(earlier?.by ?? replier, at, again ? gap.reason : 'unexplained', false, again, start, note, ep)) return false;
          if (guessed) this.top().guessed = true;
          for (const s of moves) this.makeMove(this.top(), s, at);
          this.playMoveShown(at);
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The jump read with a piece in a hand, read again through `board`: that piece put down where no
   * move of the reading's length takes it, and play went on from there (adoptThroughHand, two
   * plies longer allowed).
   */
  private readThroughStood(board: Uint8Array, at: number): boolean {
    const jump = this.provisional;
    return jump !== undefined && jump.end === this.plyCount() && jump.inHand !== undefined && this.readAgainThroughBoard(jump, at, board, true);
  }

  /** The record stands at board `from`: the move to `between` and `replier`'s reply to the board now are recorded, when they are moves. */
  private playMoveAndReply(from: Uint8Array, between: Uint8Array, replier: Color, at: number): void {
    const end = this.recordEnd();
    const first = this.stepBoards.moveBetween(end, from, between, other(replier));
    const reply = first && this.stepBoards.replyAfter(end, from, first, between, this.board.seen, replier);
    if (!first || !reply) return;
    this.makeMove(this.top(), first, at);
    this.makeMove(this.top(), reply, at);
    this.playMoveShown(at);
  }

  /**
   * The moves seen made, one legal move at a time, from an older board kept (breakable) to board
   * `index` of the step boards, the last of them by the side other than `mover`, such that `after`
   * (the moves from board `index` on, `mover` first) still play from the oldest: that oldest
   * board's index, the moves, and the side that moved before it. Undefined when there are none.
   */
  private movesBefore(end: RecordEnd, index: number, after: NormalMove[], mover: Color): { index: number; moves: StepMove[]; by: Color } | undefined {
    const boards = this.stepBoards.list;
    const moves: StepMove[] = [];
    let at = index;
    let next = mover;
    for (;;) {
      const by = other(next);
      let found: { k: number; s: StepMove } | undefined;
      for (let k = 0; k < at && !found; k++) {
        const prev = boards[k]!;
        if (!this.stepBoards.breakable(end, prev)) continue;
        const s = this.stepBoards.moveBetween(end, prev, boards[at]!, by);
        if (s && this.stepBoards.playsThrough(end, prev, by, [s.move, ...moves.map((m) => m.move), ...after], s.ep)) found = { k, s };
      }
      if (!found) break;
      moves.unshift(found.s);
      at = found.k;
      next = by;
    }
    return moves.length > 0 ? { index: at, moves, by: other(next) } : undefined;
  }

  /** What a break says of a board with one piece moved where no legal move takes it (StepBoards.displaced). */
  private displacedNote(moved: { from: number; to: number }): string {
    const piece = codeToPiece(this.top().codes[moved.from]! as PieceCode)!;
    return `the board it goes on from has the ${piece.color} ${piece.role} of ${makeSquare(moved.from)} on ${makeSquare(moved.to)}, where no legal move takes it, and play went on from there (an illegal move nobody put right, or a piece misplaced)`;
  }

  /**
   * Adrift, the board as it stands is the record's with one legal move and the opponent's reply
   * and nothing else: a piece was put down wrong, the reply made before it was put right, then put
   * right. Every change was seen, so those two moves are what the board shows, not a search's
   * guess; both are recorded. The first board off the record must have touched a square of the
   * first move: a reply seen made first is a move out of turn, not these two in the other order.
   * Only when exactly one pair fits.
   */
  private moveAndReplyShown(at: number): boolean {
    const top = this.top();
    const seen = this.board.seen;
    if (this.board.mismatches < 3 || this.board.mismatches > 8) return false;
    const firstOff = this.stepBoards.list.find((b) => squaresApart(b, top.codes).length > 0);
    if (!firstOff) return false;
    const touchedFirst = squaresApart(firstOff, top.codes);
    let found: [Successor, Successor] | undefined;
    for (const s of this.successors(top)) {
      if (!s.squares.some((sq) => touchedFirst.includes(sq))) continue;
      const codes = top.codes.slice();
      s.squares.forEach((sq, i) => (codes[sq] = s.codes[i]!));
      const diff = squaresApart(codes, seen);
      if (diff.length < 2 || diff.length > 4) continue;
      const pos = this.posOf(top).clone();
      pos.play(s.move);
      const reply = matchMove(pos, codes, seen, diff);
      if (!reply) continue;
      if (found) return false;
      found = [s, reply];
    }
    if (!found) return false;
    this.makeMove(top, found[0], at);
    this.makeMove(this.top(), found[1], at);
    return true;
  }

  /** boardAtPress (press-board.ts) of the board now, against the record's board. */
  private boardAtPress(by: Color, at: number): Uint8Array | undefined {
    return boardAtPress(this.board.lastChange, this.board.seen, this.top().codes, by, at);
  }

  /**
   * The move from the record's position to the board as it stands, when there is one, played from
   * the real position (castling rights, en passant), not a board's guess: the move seen after a
   * record re-made under it.
   */
  private playMoveShown(at: number, board: Uint8Array = this.board.seen): void {
    const top = this.top();
    const s = matchMove(this.posOf(top), top.codes, board, squaresApart(board, top.codes));
    if (s) this.makeMove(top, s, at);
  }

  /** The position before the record's last ply (a break about to be taken again judges its board against it). */
  private recordEndBefore(): Pick<RecordEnd, 'fen' | 'turn'> {
    const before = this.history[this.plyCount() - 1]!;
    return { fen: before.fen, turn: this.posOf(before).turn };
  }

  /** The record's last position, as the boards kept while out of step are judged against it. */
  private recordEnd(): RecordEnd {
    const top = this.top();
    const inHand = this.provisional?.inHand;
    return { codes: top.codes, fen: top.fen, turn: this.posOf(top).turn, plies: this.plyCount(), doubted: this.provisional?.doubted === true, ...(inHand !== undefined ? { inHand } : {}) };
  }

  /** Confirms a ply with a reading known from before (an arbiter's re-ordering keeps it). */
  private confirmWith(ply: number, reading: ClockReading | undefined, at: number): void {
    const r = this.history[ply]?.record;
    if (!r || r.confirmed) return;
    r.confirmed = true;
    if (reading) r.clockAfter = { ...reading };
    this.out.push({ type: 'move-confirmed', at, ply, by: 'clock', mover: r.by, ...(reading ? { clock: { ...reading } } : {}) });
  }

  snapshot(): EngineSnapshot {
    const top = this.history[this.history.length - 1];
    return {
      started: this.started,
      kind: this.kind,
      chess960Number: this.chess960Number,
      startFen: this.history[0]?.fen,
      fen: top?.fen ?? '',
      orientation: this.board.reversed ? 'black' : 'white',
      reversed: this.board.reversed,
      connected: this.connected,
      moves: this.history.slice(1).map((p) => ({ ...p.record!, clockAfter: p.record!.clockAfter && { ...p.record!.clockAfter } })),
      incidents: this.incidents.map((i) => structuredClone(i)),
      illegalCounts: { ...this.illegalCounts },
      result: this.result && { ...this.result },
      lastClock: this.lastClock && { ...this.lastClock },
    };
  }

  // ---- board observation ----

  private onField(field: number, piece: PieceCode, at: number): void {
    if (!Number.isInteger(field) || field < 0 || field > 63 || !Number.isInteger(piece) || piece < 0 || piece > 15) return;
    this.board.raw[field] = piece;
    const sq = this.board.orient(field);
    this.board.set(sq, this.normalise(sq, piece), this.seq, at);
    if (piece !== PIECE.EMPTY) this.lastPlaced = { sq, code: this.board.seen[sq]!, at };
    else this.lastLifted = { sq, at };
    if (piece >= PIECE.DRAW) {
      this.onResultPiece(piece, at);
      return;
    }
    if (this.resyncPending) {
      // The first change after a reconnect is a hand at work (or one line of a power-up listing):
      // searched shallow, like a burst; the dump that follows is searched in full.
      this.evaluate(at, 'resync', piece !== PIECE.EMPTY, 'field');
      this.resynchronised(at);
    } else this.evaluate(at, 'field', piece !== PIECE.EMPTY);
  }

  private onDump(board: PieceCode[], at: number): void {
    if (!Array.isArray(board) || board.length !== 64) return;
    this.lastPlaced = undefined;
    let result: PieceCode | undefined;
    const before = this.board.hash;
    for (let f = 0; f < 64; f++) {
      const code = board[f]!;
      if (!Number.isInteger(code) || code < 0 || code > 15) continue;
      this.board.raw[f] = code;
      if (code >= PIECE.DRAW) result = code;
    }
    for (let f = 0; f < 64; f++) {
      const sq = this.board.orient(f);
      this.board.set(sq, this.normalise(sq, this.board.raw[f]!), this.seq, at);
    }
    // A dump is no hand at work: nothing of it was done at a press (boardAtPress).
    this.board.lastChange.sq = -1;
    // The board read whole on its return (the power-up listing arrives while the link is still
    // down, then the reconnect dump): its searches get the larger budget, once per outage.
    const returning = this.resyncPending || !this.connected;
    if (returning) this.jumpBudget = RETURN_JUMP_BUDGET;
    // Sessions also dump periodically to catch drift: a dump that tells nothing new (often taken
    // while a piece is in the hand) must not be judged as a settled board.
    if (result !== undefined) this.onResultPiece(result, at);
    // The board's log, read back since the link dropped, showed every change (the board stayed
    // powered), and the dump shows nothing the log did not: nothing jumped. A move may be under way
    // (a piece lifted, a rook halfway through its slide), and sequences that explain such a board
    // are out and back; it is judged like any board a hand is at work on.
    else if (this.resyncPending && this.board.hash === before && this.loggedSeq > this.disconnectedSeq) this.evaluate(at, 'field');
    else if (this.resyncPending) this.evaluate(at, 'resync');
    else if (this.board.hash !== before) this.evaluate(at, 'dump');
    this.jumpBudget = JUMP_BUDGET;
    if (returning) this.returnBoard = this.started && this.outOfStep && this.acceptsMoves() && !this.shortOfHand() ? { codes: this.board.seen.slice(), ply: this.plyCount() } : undefined;
    if (this.resyncPending) this.resynchronised(at);
  }

  private onConnection(connected: boolean, at: number): void {
    if (connected === this.connected) return;
    this.connected = connected;
    this.clockFresh = false;
    if (!this.started) return;
    if (!connected) {
      this.disconnectedSeq = this.seq;
      this.returnBoard = undefined;
      this.fillAgain = undefined;
      this.countedBreak = undefined;
      // Presses come with readings, so the plies pressed for are as they were at the last one;
      // unless the clock has gone silent (its cable out, its battery flat): the moves made since
      // its last reading were pressed for where nothing was read, and no count can start there.
      this.clockCount = undefined;
      const live = this.lastLiveReading && (!this.clockTicks || at - this.lastLiveClockAt <= CLOCK_UNREAD_MS) ? this.lastLiveReading : undefined;
      this.beforeOutage = live && { reading: live, pressed: this.pressedPlies(this.running), ply: this.plyCount() };
      this.resyncPending = false;
      this.incident({
        kind: 'board-disconnected',
        at,
        ply: this.plyCount(),
        article: '',
        consequences: [],
        message: 'Board disconnected: moves made meanwhile will be recovered from the next board scan.',
      });
    } else {
      this.resyncPending = true;
      this.connectedAt = at;
      this.liveFieldSince = undefined;
    }
  }

  private resynchronised(at: number): void {
    this.resyncPending = false;
    const differences = this.board.differences();
    this.incident({
      kind: 'board-resynchronised',
      at,
      ply: this.plyCount(),
      article: '',
      consequences: [],
      message: differences.length === 0 ? 'Board reconnected and in step with the game.' : `Board reconnected; ${differences.length} square(s) differ from the game.`,
      differences,
    });
  }

  /**
   * DGT's convention for e-boards: both kings on the centre squares show the result (both on light
   * squares d5/e4 1-0, both on dark d4/e5 0-1, one of each ½-½). The four squares touch each other,
   * so no game ever has both kings there. The first king put down may have been a legal move: a
   * king move onto a centre square nobody confirmed with the clock is taken back, not recorded.
   */
  private resultShownWithKings(at: number): boolean {
    if (this.result && !this.isAutomatic(this.result.termination)) return false;
    let white = -1;
    let black = -1;
    for (let sq = 0; sq < 64; sq++) {
      const code = this.board.seen[sq];
      if (code === PIECE.WKING) white = white === -1 ? sq : -2;
      else if (code === PIECE.BKING) black = black === -1 ? sq : -2;
    }
    if (!CENTRE.has(white) || !CENTRE.has(black)) return false;
    for (;;) {
      const top = this.top();
      const r = top.record;
      if (!r || r.confirmed || !top.move || !CENTRE.has(top.move.to) || (top.codes[top.move.to] !== PIECE.WKING && top.codes[top.move.to] !== PIECE.BKING)) break;
      this.takeback(this.plyCount() - 1, at);
    }
    const light = (sq: number): boolean => sq === SQ_D5 || sq === SQ_E4;
    const result: GameResult = light(white) && light(black) ? '1-0' : !light(white) && !light(black) ? '0-1' : '1/2-1/2';
    if (this.result) this.out.push({ type: 'result-withdrawn', at, ply: this.result.ply });
    this.end(result, 'result-kings', at);
    return true;
  }

  /**
   * Kings in the centre that were a king moved illegally next to the other (and put back), not a
   * result: the kings leave the centre and play goes on from the game's position, a move and the
   * reply. One move is not enough: a result shown with the kings is often taken down one king at
   * a time, and the first king put back can look like a move. The result is withdrawn and both
   * moves are recorded.
   */
  private playResumedAfterKings(at: number): boolean {
    if (this.result?.termination !== 'result-kings' || this.result.ply !== this.plyCount()) return false;
    const top = this.top();
    const pos = this.posOf(top);
    const first = matchMove(pos, top.codes, this.board.seen, this.board.diffFrom(top.codes));
    if (first) {
      this.kingsResume = first;
      return false;
    }
    const pending = this.kingsResume;
    if (!pending) return false;
    const after = pos.clone();
    after.play(pending.move);
    const codes = positionCodes(after);
    const reply = matchMove(after, codes, this.board.seen, this.board.diffFrom(codes));
    if (!reply) return false;
    this.out.push({ type: 'result-withdrawn', at, ply: this.result.ply });
    this.result = undefined;
    this.kingsResume = undefined;
    this.makeMove(top, pending, at);
    this.makeMove(this.top(), reply, at);
    return true;
  }

  private onResultPiece(code: number, at: number): void {
    if (!this.started || this.result) return;
    const result: GameResult = code === PIECE.DRAW ? '1/2-1/2' : code === PIECE.WHITE_WINS ? '1-0' : '0-1';
    this.end(result, 'result-pieces', at);
  }

  /**
   * 7.5.2: a pawn left on the last rank is a queen, wherever that pawn is put next: on a square
   * that did not show it already. A dump reads every square again, and a pawn that stood where it
   * stands is not the one in the hand (seed 15125, Chess960: gxf8=Q+ pressed with the pawn, lifted
   * to be replaced, and the next periodic dump made the c5 pawn the queen; the record never moved
   * again). Called before the square is set.
   */
  private normalise(sq: number, code: number): number {
    const a = this.alias;
    if (!a) return code;
    if (a.sq === sq) {
      if (code === a.pawn) return a.queen;
      if (code === PIECE.EMPTY) a.sq = -1;
      else this.alias = undefined;
      return code;
    }
    if (a.sq === -1 && code === a.pawn && this.board.seen[sq] !== code) {
      a.sq = sq;
      return a.queen;
    }
    // The arbiter or player put a real queen in: nothing stands in for one any more.
    if (a.sq === -1 && code === a.queen) this.alias = undefined;
    return code;
  }

  // ---- clock ----

  private onClock(ev: Extract<BoardEvent, { type: 'clock' }>): void {
    if (!this.clockTicks) this.clockTicks = this.tickSeen(ev);
    this.lastClock = { whiteMs: ev.whiteMs, blackMs: ev.blackMs };
    this.lastClockPartial = ev.partial === true;
    // The first reading after the board came back may show a press made while it was away: the
    // press is real, but this reading is later than it (the clock has run since), so it is not
    // that move's time. A reading from the board's log of presses is the one at the press.
    // The same goes for the first reading after a running clock went unread on a board that
    // stayed connected (a running clock is read every second, a stopped one need not be; its
    // cable out, its battery flat): a press this reading shows is of some moment of the gap, and
    // no count of presses runs across the gap either: the players may have taken a move back, or
    // had an illegal one put right, and pressed again meanwhile.
    // Measured from the last live reading since the board came back, or else from the first change
    // it showed live: the first reading after a return comes once the handshake and the log's
    // catch-up are done (seconds on a real board), and the board shows nothing live before that.
    const gap = ev.logged !== true ? this.unreadFor(ev.at) : 0;
    if (gap > CLOCK_UNREAD_MS) {
      this.beforeOutage = undefined;
      this.clockCount = undefined;
      this.fillAgain = undefined;
    }
    // A shorter gap shows in the clock's own times (pressReadLate).
    const late = this.clockTicks && this.pressReadLate(ev);
    this.noteStoppedTimes(ev);
    const seenAtPress = (this.clockFresh && gap <= CLOCK_UNREAD_MS && !late) || ev.logged === true;
    this.clockFresh = true;
    const prev = this.running;
    this.running = ev.running;
    this.clockSeen = true;
    this.lastClockAt = ev.at;
    if (ev.logged !== true) this.lastLiveClockAt = ev.at;
    // The lever went down on one side: that player pressed (Art 6.2). The first press of a game
    // starts the opponent's clock and completes nothing.
    if (ev.running !== null && ev.running !== prev) {
      const by = other(ev.running);
      this.onPress(by, ev.at, prev === null, seenAtPress);
      this.pressedAtPly[by] = this.plyCount();
    }
    // Readings the board sends live (not read back from its log, both times known) count presses.
    if (!this.started || !this.connected || this.resyncPending || ev.logged === true || ev.partial === true) return;
    const before = this.beforeOutage;
    this.beforeOutage = undefined;
    // Nothing recorded since the board went, and the board still out of step: the count waits for
    // what the record makes of it (a jump, or a break at a press, which the press's own reading counts).
    // A break made at this very press is counted at the next reading: its search would wait the
    // event loop on top of the press's own searches.
    if (before && ((this.outOfStep && this.plyCount() === before.ply) || this.brokeSeq === this.seq)) this.beforeOutage = before;
    else if (before) this.countPressesSince(before, ev);
    else if (this.fillAgain && this.opts.timeControl) {
      const again = this.fillAgain;
      this.fillAgain = undefined;
      this.fillBreakByCount(again.since, again.presses, again.off, ev.at, this.opts.timeControl, again);
    } else if (this.opts.timeControl && ev.running !== null && this.clockCount !== undefined && this.brokeSeq !== this.seq && this.countedBreakRetaken()) {
      const { since, presses } = this.countedBreak!;
      this.fillBreakByCount(since, presses, this.clockCount - this.pressedPlies(ev.running), ev.at, this.opts.timeControl);
    }
    this.lastLiveReading = ev;
  }

  /**
   * How long a running clock read every second has gone unread at `at`: since the last live reading
   * since the board came back, or else since the first change it showed live (0 when no gap can be
   * told: a standing clock, one not read every second, a board back and not yet heard from).
   */
  private unreadFor(at: number): number {
    if (!this.clockTicks || this.running === null) return 0;
    const since = this.lastLiveClockAt >= this.connectedAt ? this.lastLiveClockAt : this.liveFieldSince;
    return since === undefined ? 0 : at - since;
  }

  /** This live reading of a running side comes CLOCK_TICK_MS at most after the last of the same side, its time gone down. */
  private tickSeen(ev: Extract<BoardEvent, { type: 'clock' }>): boolean {
    const previous = this.lastClock;
    if (!previous || ev.logged === true || ev.running === null || ev.running !== this.running) return false;
    if (ev.at <= this.lastClockAt || ev.at - this.lastClockAt > CLOCK_TICK_MS) return false;
    const side = ev.running === 'white' ? 'whiteMs' : 'blackMs';
    return ev[side] < previous[side];
  }

  /**
   * The reading shows a press (its running side changed) and the clock the press started has run
   * for more than PRESS_READ_LATE_MS since it stood: the press was made before this reading, in
   * readings the host never got.
   */
  private pressReadLate(ev: Extract<BoardEvent, { type: 'clock' }>): boolean {
    if (ev.running === null || ev.running === this.running || ev.partial === true) return false;
    const stood = this.stoppedMs[ev.running];
    return stood !== undefined && stood - (ev.running === 'white' ? ev.whiteMs : ev.blackMs) > PRESS_READ_LATE_MS;
  }

  /** Each side's time where its clock stands in this reading (pressReadLate). */
  private noteStoppedTimes(ev: Extract<BoardEvent, { type: 'clock' }>): void {
    if (ev.partial === true) return;
    if (ev.running !== 'white') this.stoppedMs.white = ev.whiteMs;
    if (ev.running !== 'black') this.stoppedMs.black = ev.blackMs;
  }

  /** Plies of the record pressed for, with `running`'s clock running: all but a last move whose mover's clock still runs. */
  private pressedPlies(running: Color | null): number {
    const n = this.plyCount();
    return running !== null && this.top().record?.by === running ? n - 1 : n;
  }

  /**
   * The first reading the board sends live after it was away: the clock's times count the presses
   * made meanwhile (press-count.ts). When the record since then holds another number of plies
   * pressed for, the jump read at the return has the wrong length: the shortest sequence that fits
   * where the players made a longer one (a king stepped away and back while the board was read with
   * it in a hand), or a longer one where a piece was in a hand. The jump is searched again at the
   * length the clock counts, to the board as it stands; when nothing of that length fits, the record
   * stands as read and the jump is no longer trusted. A clock the arbiter stopped or set while the
   * board was away misleads the count, so the incident says what it replaced.
   */
  private countPressesSince(before: NonNullable<GameEngine['beforeOutage']>, now: StampedReading): void {
    const tc = this.opts.timeControl;
    if (!tc || now.running === null || !this.acceptsMoves()) return;
    const presses = pressesBetween(before.reading, now, tc.incrementMs);
    if (presses === undefined) return;
    const pressed = before.pressed + presses;
    this.clockCount = pressed;
    const off = pressed - this.pressedPlies(now.running);
    const jump = this.provisional ?? this.confirmedJump?.jump;
    if (!jump || jump.end <= before.ply || jump.base > this.plyCount()) {
      this.fillBreakByCount(before.ply, presses, off, now.at, tc);
      return;
    }
    if (off === 0) return;
    // A reading through a piece in a hand is no length to weigh more presses against: the hand
    // let the search skip that piece's moves, and the shortest sequences it was preferred to may
    // have lacked only a tempo the players made (a rook a8-a5-a8 while the board was off). The
    // count is searched at however far it is off, with a piece allowed out and back (below).
    // No further than a hand can hide, though: one piece's trip out and back and the replies
    // between (a count further off is a clock set by hand: seed 20121, a minute given while the
    // board was away counted as six presses more than the four plies read with the h4 queen
    // lifted to be taken, read as ten with that queen wandering to d2 to be taken by the king).
    const handReadShort = this.provisional?.inHand !== undefined && off > 0 && off <= HAND_HIDES_PLIES;
    if (Math.abs(off) > COUNTED_PLIES_OFF && !handReadShort) {
      if (this.provisional) this.provisional.trusted = false;
      return;
    }
    const pos = this.posOf(this.history[jump.base]!).clone();
    if (nearBonusMove(tc, pos, pressed + 1 - jump.base)) return;
    const target = this.board.seen;
    const lifted = this.seenBoards.emptied(positionCodes(pos), target);
    // The count is of presses made before the reading, and the board may be a move further on (a
    // move made since the return, not yet pressed for). A reading of the counted length that shows
    // the board the jump was read at is taken before one that never does (seed 5157: Qa3-a5 made
    // after the return, read into eight plies with Qxa5 and no queen ever on a3, Qa5 lost; nine
    // plies show it). Only when no length has one is the other kept: a search that lets a piece go
    // out and back may find a trip that is not the one made, and play goes on from its board (seed
    // 121). Readings shorter than the jump's are not held to it (showsReading).
    const readAt = this.jumpReadingOf(jump);
    const read = this.history.slice(jump.base + 1).map((p) => p.record!.san);
    // All pressed for (the running side to move), or one more made and not pressed yet.
    const lengths: [number, Color][] = [
      [pressed - jump.base, now.running],
      [pressed + 1 - jump.base, other(now.running)],
    ];
    const held = this.provisional?.inHand;
    const heldStill = held !== undefined && target[held] === PIECE.EMPTY;
    // Put off until the board changes (a capture under way, below).
    if (before.waitsOn === this.board.hash) {
      this.beforeOutage = before;
      return;
    }
    // The count is taken again with the hand (below) for the piece still held. Put back by now,
    // another piece lifted since is a move under way, no board to search to (seed 4311: the a3
    // pawn back, the b1 knight lifted to be taken, and a count thrown off by a minute given by
    // hand read as ten plies that never show the board read at). With nothing else off the board
    // (as many pieces as the record's end), the board is whole again: the count is taken as at
    // the first reading, to that board, with the event's nodes to itself, as a fill taken again
    // has (seed 6191: the b8 knight off at the first live reading and back before the next; eight
    // plies counted where seven were read, and the first of the eight-ply readings takes 544,000
    // nodes, more than one search's budget; before, the record broke and two moves were lost).
    const putBack = before.handFirst === true && !heldStill;
    if (putBack && !this.boardWhole()) return;
    const handFirst = before.handFirst === true && heldStill;
    const budget = putBack ? EVENT_NODES : RETURN_JUMP_BUDGET;
    type CountFit = { sequences: NormalMove[][]; more: boolean; turnAfter: Color; showsRead: boolean; inHand: number | undefined };
    const optionsFor = (plies: number, turnAfter: Color) => ({ minDepth: plies, maxDepth: plies, budget, keep: JUMP_ALTERNATIVES, turnAfter, meter: this.meter });
    const counted = lengths.filter(([plies]) => plies >= 1 && plies <= MAX_MISSED_PLIES + 2);
    // With the piece the jump was read without still in the hand, and only a reading that shows
    // the board the jump was read at (a search with a hand reads a board short of two pieces as one
    // taken by moves nobody made: seed 126, a bishop lifted to take the pawn in the hand, read as
    // Be1 Qxe1).
    const withHandShowing = (plies: number, turnAfter: Color, through: boolean): CountFit | undefined => {
      if (!heldStill || !readAt) return undefined;
      const options = { ...optionsFor(plies, turnAfter), pieceInHand: true };
      const found = through && readAt.plies < plies ? withHandThrough(pos, readAt.codes, target, options) : searchSequences(pos, target, options);
      const showing = this.seenBoards.bySeen(pos, found.sequences, lifted).filter((moves) => showsReading(pos, moves, readAt));
      return showing.length > 0 ? { sequences: showing, more: found.more, turnAfter, showsRead: true, inHand: found.inHand } : undefined;
    };
    const fits: CountFit[] = [];
    for (const [plies, turnAfter] of counted) {
      // Counted again at the next reading, the piece still off the board (below): the hand first.
      const shown = handFirst ? withHandShowing(plies, turnAfter, false) : undefined;
      if (shown) {
        fits.push(shown);
        break;
      }
      const options = optionsFor(plies, turnAfter);
      let found = seenDetourFirst(pos, target, options, searchSequences(pos, target, options), lifted);
      // A piece the board saw lifted from a square it is back on may have gone out and back; after
      // a reading through a hand, any piece may have (a board that came back powered up saw no
      // lift that would say which).
      if (found.sequences.length === 0 && handReadShort) found = withExcursion(pos, target, options, lifted);
      else if (found.sequences.length === 0 && lifted.size > 0) found = searchSequences(pos, target, { ...options, excursions: 1, excursionFrom: lifted });
      const sequences = this.seenBoards.bySeen(pos, found.sequences, lifted);
      if (sequences.length === 0) continue;
      const showing = readAt ? sequences.filter((moves) => showsReading(pos, moves, readAt)) : sequences;
      const showsRead = showing.length > 0;
      fits.push({ sequences: showsRead ? showing : sequences, more: found.more, turnAfter, showsRead, inHand: found.inHand });
      if (showsRead) break;
    }
    // Nothing without a hand shows the board read at, and the piece the jump was read without is
    // still off the board: a reading with it in the hand that shows that board goes before one that
    // never does (seed 3095: the g5 pawn read in the hand, then played to g6 and taken by fxg6 with
    // the f7 pawn still in Black's hand; the count's nine plies were read without a hand as f5
    // gxf6 … with no pawn ever on f7 beside the queen on f6, and two later moves were lost).
    if (!handFirst && fits.length > 0 && !fits.some((f) => f.showsRead)) {
      for (const [plies, turnAfter] of counted) {
        const shown = withHandShowing(plies, turnAfter, true);
        if (!shown) continue;
        fits.unshift(shown);
        break;
      }
    }
    const fit = fits.find((f) => f.showsRead) ?? fits[0];
    // Only readings that never show the board read at, with the piece held there still off: the
    // board may be a capture under way, the piece taken lifted too (seed 7086: the d2 bishop
    // held, then the g5 pawn lifted for Bxg5, read as nine plies with Bxf4 gxf4, the bishop taken
    // by moves nobody made, and two later moves lost). Taken again at the first reading after the
    // board has changed.
    if (fit && !fit.showsRead && heldStill && !before.handFirst && readAt && this.piecesShort() >= 2) {
      if (this.provisional) this.provisional.trusted = false;
      this.beforeOutage = { ...before, handFirst: true, waitsOn: this.board.hash };
      return;
    }
    if (fit) {
      const note = `the clock's times count ${presses} presses while the board was away, where ${read.length} plies had been read (${read.join(' ')})`;
      this.adoptJump(pos, jump.base, fit.sequences, fit.more, fit.inHand, now.at, undefined, note);
      if (fit.turnAfter === now.running) this.confirm(this.plyCount(), 'clock', now.at, false);
      return;
    }
    if (this.provisional) this.provisional.trusted = false;
    // Nothing fitted before the event's nodes ran out, and the piece the jump was read without is
    // still off the board (the clock's first live reading after a return comes while the player
    // holds it): the count is taken again at the next reading, with that piece in the hand first
    // (seed 5156: eight plies pressed, read as seven to the same placement, Black's h6 pawn lifted
    // to take on g5; the exact search and the one with a piece out and back spent the event's
    // nodes at eight plies, the record stood a ply out of turn, and two later moves were lost).
    // Not first: a reading with a piece out and back, exact, goes before one with a hand (seed 21).
    if (heldStill && !handFirst && this.meter.left <= 0) this.beforeOutage = { ...before, handFirst: true };
  }

  /** The board holds as many pieces as the record's end: nothing is off it in a hand (or taken since). */
  private boardWhole(): boolean {
    return this.piecesShort() === 0;
  }

  /** How many pieces fewer the board holds than the record's end (negative: more). */
  private piecesShort(): number {
    let pieces = 0;
    for (const code of this.top().codes) if (code !== PIECE.EMPTY) pieces++;
    return pieces - this.board.occupied;
  }

  /**
   * The record broke while the board was away or at its return (nothing within the search's
   * reach explained the board: a ninth ply made before the board was read, a piece out and back)
   * and the clock's times count the presses made meanwhile: the break stands for that many plies,
   * less the moves recorded since. Searched at exactly that length, from the ply before the break
   * (or from where a jump read since then and ending there began, the jump and the break together)
   * to the board the break took, a sequence that fits fills the break (flagged as ambiguous, with
   * the others, when several fit), as the arbiter would; when none fits the break stays for the
   * arbiter. A clock set by hand meanwhile gives a length no sequence of pieces fits, as a rule.
   */
  private fillBreakByCount(since: number, presses: number, off: number, at: number, tc: NonNullable<EngineOptions['timeControl']>, again?: FillAgain): void {
    const breaks: number[] = [];
    for (let p = since + 1; p <= this.plyCount(); p++) if (this.history[p]!.record?.gap) breaks.push(p);
    const breakPly = breaks[0];
    if (breaks.length !== 1 || breakPly === undefined) return;
    if (!again && off >= 1) this.countedBreak = { since, presses, ply: breakPly, fen: this.history[breakPly]!.fen };
    const gap = this.history[breakPly]!.record!.gap!;
    if (gap.reason !== 'unexplained' || gap.accepted) return;
    // A board with a piece on a square guessed among several is no board the game passed through
    // for certain: a sequence to it would tell how the piece got to a square it may never have
    // stood on. The break stays for the arbiter (the move after it is recorded all the same).
    if (this.history[breakPly]!.guessed) return;
    if (off < 1) return;
    // From the ply before the break; and when a jump read since the count began ends there, from
    // where that jump began: a jump read short (a pawn's d4-d5xc6 e.p. read as d3 taken on d3, the
    // pawn in a hand) leaves a position from which nothing of the counted length reaches the board
    // the break took, while the jump and the break together are the counted plies.
    // Searched again at the next live reading when the event's nodes ran out, with a piece out and
    // back allowed; a search still not done then goes on at each reading after, where it stopped,
    // up to COUNT_FILL_NODES (a ninth ply completed by the hand at the return).
    const tries: { base: number | undefined; going?: PendingFill }[] = again?.pending
      ? again.pending.map((going) => ({ base: going.base, going }))
      : [{ base: breakPly - 1 }, { base: this.jumpStartBefore(breakPly, since) }];
    let exhausted = false;
    const pending: PendingFill[] = [];
    for (const { base, going } of tries) {
      if (base === undefined) continue;
      if (going && (going.fen !== this.history[base]!.fen || going.breakFen !== this.history[breakPly]!.fen)) continue;
      const filled = this.fillFrom(base, breakPly, off + breakPly - base, presses, at, tc, again !== undefined, going);
      if (filled === true) return;
      if (filled === false) continue;
      exhausted = true;
      const spent = (going?.spent ?? 0) + filled.nodes;
      if (again && filled.resume && spent < COUNT_FILL_NODES) pending.push({ base, fen: this.history[base]!.fen, breakFen: this.history[breakPly]!.fen, resume: filled.resume, spent });
    }
    if (!again && exhausted) this.fillAgain = { since, presses, off };
    else if (pending.length > 0) this.fillAgain = { since, presses, off, pending };
  }

  /**
   * fillBreakByCount for a game the clock cannot count (none, or no increment): nothing counts the
   * presses made while the board was away, so the record's own numbering stands in for the count.
   * When play goes on after a break that nothing explained (a ninth ply made before the board was
   * read, a queen out to take a pawn and back), the record's last break is searched for, a share
   * of an event's nodes at each move made after it (the live view follows the board meanwhile):
   * from where the jump read before it began (or the ply before it), the shortest plain sequences
   * to the board the break took that leave the side to move the moves after it show, of the length
   * the record gives the jump and the break together or longer by whole moves; then, at that
   * length only, with one piece out and back. A plain sequence moves only pieces the board shows
   * moved: a board set by hand or an illegal move that stood has none as a rule, and the break
   * stays for the arbiter. A sequence found fills the break as a count's would (marked, with the
   * others, when several fit); the moves after it are recorded again after it.
   */
  private fillBreakByPlies(at: number): void {
    // A clock under an increment counts (fillBreakByCount); one without an increment cannot.
    if ((this.clockSeen && (this.opts.timeControl?.incrementMs ?? 0) > 0) || this.outOfStep || this.provisional) return;
    let breakPly = this.plyCount();
    while (breakPly > 0 && !this.history[breakPly]!.record?.gap) breakPly--;
    if (breakPly === 0 || breakPly === this.plyCount()) return;
    const entry = this.history[breakPly]!;
    const gap = entry.record!.gap!;
    if (gap.reason !== 'unexplained' || gap.accepted || entry.guessed) return;
    // With a clock, not before a move after the break is seen made and pressed: until then an
    // irregular press takes the break again from the board (breakGrace), which may not be right yet.
    if (this.clockSeen && this.breakGrace === breakPly) return;
    // From where the jump before it began when that is within a search's reach (inferred plies may
    // run back over earlier jumps and breaks); else from the ply before the break.
    const start = this.jumpStartBefore(breakPly, 0);
    const base = start !== undefined && breakPly - start <= MAX_MISSED_PLIES + 2 ? start : breakPly - 1;
    const key = `${breakPly}/${entry.fen}/${this.history[base]!.fen}`;
    if (this.pliesFill?.key !== key) this.pliesFill = { key, stage: 'plain', spent: 0 };
    const fill = this.pliesFill;
    if (fill.stage === 'done') return;
    const pos = this.posOf(this.history[base]!).clone();
    const target = entry.codes;
    const lifted = this.seenBoards.emptied(positionCodes(pos), target);
    const plies = breakPly - base;
    const options = { budget: EVENT_NODES, keep: JUMP_ALTERNATIVES, turnAfter: this.posOf(entry).turn, meter: this.meter, ...(fill.resume ? { resume: fill.resume } : {}) };
    const found =
      fill.stage === 'plain'
        ? searchSequences(pos, target, { ...options, minDepth: plies, maxDepth: Math.max(plies, MAX_MISSED_PLIES + 2) })
        : searchSequences(pos, target, { ...options, minDepth: plies, maxDepth: plies, excursions: 1 });
    fill.spent += found.nodes;
    delete fill.resume;
    if (found.sequences.length === 0) {
      // Gone on with at the next move while nodes are left; a plain search complete without a
      // sequence makes way for the one with a piece out and back.
      if (found.resume && fill.spent < COUNT_FILL_NODES) fill.resume = found.resume;
      else fill.stage = fill.stage === 'plain' && !found.exhausted ? 'detour' : 'done';
      return;
    }
    const detour = fill.stage === 'detour';
    fill.stage = 'done';
    // A board read whole at a return nothing explained, between the two, binds the fill as it binds
    // every search across it (return-board.ts).
    const returned = this.returnBoard && base <= this.returnBoard.ply && this.returnBoard.ply < breakPly ? this.returnBoard.codes : undefined;
    const sequences = this.seenBoards.bySeen(pos, found.sequences, lifted).filter((moves) => !returned || passesThrough(pos, moves, returned));
    if (sequences.length === 0) return;
    const uncounted = this.clockSeen ? 'the time control has no increment, so no clock counts the presses made while the board was away' : 'no clock counts the presses made while the board was away';
    const how = detour
      ? 'as many plies as the record gives the jump and the break, one piece going out and back (no plain sequence reaches the board the break took)'
      : 'the fewest plies that reach the board the break took, leaving the side to move that the moves after it show';
    this.fillBreakWith(pos, base, breakPly, sequences, found.more || found.exhausted, at, (read, line) => `${uncounted}${read}, and ${line}: ${how}`);
  }

  /**
   * The break a count's fill was tried on is still the only one since the count began, at the
   * same ply, but was taken again with another board: a transient board first (a capture's landing
   * seen before the capturing pawn left, which no sequence reaches), then the board play went on
   * from. The clock's count still holds, so the fill is tried again, on the board it has now.
   */
  private countedBreakRetaken(): boolean {
    const counted = this.countedBreak;
    if (!counted || this.fillAgain || this.plyCount() < counted.ply) return false;
    const entry = this.history[counted.ply]!;
    if (!entry.record?.gap || entry.fen === counted.fen) return false;
    for (let p = counted.since + 1; p <= this.plyCount(); p++) if (p !== counted.ply && this.history[p]!.record?.gap) return false;
    return true;
  }

  /**
   * Where the run of inferred plies that ends right before `breakPly` began, when it began at
   * `since` or later (the break is the only one since then, so the run is a jump's).
   */
  private jumpStartBefore(breakPly: number, since: number): number | undefined {
    let base = breakPly - 1;
    while (base > since && this.history[base]!.inferred) base--;
    return base < breakPly - 1 ? base : undefined;
  }

  /**
   * The break at `breakPly` and the plies from `base` to it, replaced by a sequence of exactly
   * `plies` from `base` to the board the break took (fillBreakByCount). When the event's nodes ran
   * out before anything was found: the nodes spent, and where to go on from. `going`: a search
   * with a piece out and back that stopped there, gone on with.
   */
  private fillFrom(
    base: number,
    breakPly: number,
    plies: number,
    presses: number,
    at: number,
    tc: NonNullable<EngineOptions['timeControl']>,
    again: boolean,
    going?: PendingFill,
  ): boolean | { nodes: number; resume?: SearchResume } {
    if (plies > MAX_MISSED_PLIES + 2) return false;
    const pos = this.posOf(this.history[base]!).clone();
    if (nearBonusMove(tc, pos, plies)) return false;
    let target = this.history[breakPly]!.codes;
    const lifted = this.seenBoards.emptied(positionCodes(pos), target);
    const options = { minDepth: plies, maxDepth: plies, budget: RETURN_JUMP_BUDGET, keep: JUMP_ALTERNATIVES, turnAfter: this.posOf(this.history[breakPly]!).turn, meter: this.meter };
    // The break's board may have been read with the piece the next move took already off (the
    // usual way to capture: the taken piece lifted first, then the capturing one put down): that
    // board with the piece the record had on the landing square, when the count fits it. Searched
    // first: a board with nothing of that length to it spends the event's nodes to the end.
    const taken = again ? undefined : this.takenBeforeBreak(breakPly, base);
    const withTaken = taken && searchSequences(pos, taken.codes, options);
    const takenFirst = withTaken && withTaken.sequences.length > 0 ? taken : undefined;
    if (takenFirst) target = takenFirst.codes;
    let found = takenFirst ? withTaken : again ? undefined : seenDetourFirst(pos, target, options, searchSequences(pos, target, options), lifted);
    // A piece out and back is what most often puts a board beyond the search's reach (a knight
    // b4-a6xb4 while the board was off): at the counted length, one is allowed. Searched again at
    // the next reading when this event's nodes ran out first: the search with a piece out and back
    // finds the plain sequences too, and there it has an event's nodes of its own (a knight
    // g4xe5-g4 at nine plies took 704,000, after 500,000 spent on the plain search).
    if (going) found = searchSequences(pos, target, { ...options, budget: EVENT_NODES, excursions: 1, resume: going.resume });
    else if (!found || found.sequences.length === 0) found = withExcursion(pos, target, again ? { ...options, budget: EVENT_NODES } : options, lifted);
    // A search gone on with is taken up again until it is complete, so that every sequence it
    // finds is offered, unless it has spent what a fill may.
    if (going && found.resume && going.spent + found.nodes < COUNT_FILL_NODES) return { nodes: found.nodes, resume: found.resume };
    const sequences = this.seenBoards.bySeen(pos, found.sequences, lifted);
    if (sequences.length === 0) return found.exhausted ? { nodes: found.nodes, ...(found.resume ? { resume: found.resume } : {}) } : false;
    // A search gone on with over several readings may stop again before it is complete.
    return this.fillBreakWith(
      pos,
      base,
      breakPly,
      sequences,
      found.more || (going !== undefined && found.exhausted),
      at,
      (read, line) => `the clock's times count ${presses} presses while the board was away${read}, and ${line}${takenFirst ? `; ${takenFirst.note}` : ''}`,
    );
  }

  /**
   * The plies from `base` to the break at `breakPly` replaced by the first of `sequences` (from
   * `pos`, the position at `base`), the others offered when several fit, and the missed-moves
   * incident saying why (`explain`: the plies read before the break, and the line of moves). False
   * when a move recorded after the break no longer follows: nothing is changed then.
   */
  private fillBreakWith(pos: Chess, base: number, breakPly: number, sequences: NormalMove[][], more: boolean, at: number, explain: (read: string, line: string) => string): boolean {
    const replaces = breakPly - base;
    // The moves recorded after the break are replayed from the fill by their SAN: all must still be legal.
    const planned = planReplacement(
      this.history.map((p) => p.fen),
      this.history.slice(1).map((p) => p.move ?? null),
      base,
      sansOf(pos, sequences[0]!),
      replaces,
    );
    if (!planned.ok) return false;
    const readBefore = this.history.slice(base + 1, breakPly).map((p) => p.record!.san);
    const read = readBefore.length > 0 ? `, where ${readBefore.length} plies had been read before it (${readBefore.join(' ')})` : '';
    const { sans, uncertain } = this.reportMissedMoves(pos, sequences, more, at, base, 'the board the break took', (line) => `The break after ply ${breakPly - 1} is filled: ${explain(read, line)}`);
    this.replaceMoves(base, sans, at, replaces, uncertain);
    return true;
  }

  /**
   * The break's board with the piece the move after it took put back, when that move landed on a
   * square the board showed empty where the record, before the board was away, had a piece of the
   * other side (not a king): the capture's taken piece was off when the board was read.
   */
  private takenBeforeBreak(breakPly: number, base: number): { codes: Uint8Array; note: string } | undefined {
    const next = this.history[breakPly + 1];
    const move = next?.move;
    if (!next || !move) return undefined;
    const board = this.history[breakPly]!.codes;
    const taken = this.history[base]!.codes[move.to]!;
    const takenPiece = codeToPiece(taken as PieceCode);
    const mover = codeToPiece(next.codes[move.to] as PieceCode);
    if (board[move.to] !== PIECE.EMPTY || !takenPiece || !mover || takenPiece.color === mover.color || takenPiece.role === 'king') return undefined;
    const codes = board.slice();
    codes[move.to] = taken;
    const note = `the ${takenPiece.color} ${takenPiece.role} of ${makeSquare(move.to)} was off the board when the break's board was read (the capture that followed was under way), where the record had it before`;
    return { codes, note };
  }

  /** The players took moves back to ply `p`: a press is not taken back with them, so the clock's count no longer tells plies. */
  private takenBackOnBoard(p: number, at: number): void {
    this.clockCount = undefined;
    this.takeback(p, at);
  }

  /** `fromStopped`: the clock was not running (game start, after a pause): completes, never offends. */
  private onPress(by: Color, at: number, fromStopped: boolean, seenAtPress = true): void {
    if (!this.started || !this.acceptsMoves()) return;
    if (seenAtPress && !fromStopped && this.clockCount !== undefined) this.clockCount++;
    this.arrangingForArbiter = false;
    if (seenAtPress && !fromStopped && this.pieceReappeared(by, at)) return;
    if (seenAtPress && !fromStopped) this.handPutBackBeforeMove(by, at);
    if (seenAtPress && !fromStopped) this.takenFromHandBeforeMove(by, at);
    const n = this.plyCount();
    const top = this.top();
    if (this.posOf(top).turn !== by || fromStopped) {
      // A move of the side the inferred jump does not have to move, seen made and pressed: the
      // jump left the wrong side to move.
      const jump = this.provisional;
      if (jump && seenAtPress && !fromStopped && this.board.mismatches >= 2 && this.board.mismatches <= 4 && this.pressTellsTurn(jump.base, by, at)) {
        this.confirm(this.plyCount(), 'clock', at, seenAtPress);
        return;
      }
      const last = top.record;
      if (last && !last.confirmed && last.by === by) this.confirm(n, 'clock', at, seenAtPress);
      // Out of step, a press by the side that is not to move in the record says moves were missed
      // (the record is a ply behind or ahead): the press fixes whose turn it is, so search with it,
      // and when nothing fits the record breaks here as below.
      if (this.posOf(top).turn !== by && seenAtPress && !fromStopped && this.outOfStep && this.board.mismatches > 2) {
        if (this.searchAtPress(by, at) || this.breakAtPress(by, at)) this.confirm(this.plyCount(), 'clock', at, seenAtPress);
        return;
      }
      // The opponent of a player whose illegal move was reported moved on and pressed: the illegal
      // move stood (Laws A.4.2, B.3 once the opponent has moved in rapid and blitz; or nobody saw it).
      const stood = this.pendingIllegal;
      if (this.posOf(top).turn !== by && seenAtPress && stood && stood.by !== by && stood.ply === n && this.board.mismatches > 2) {
        if (this.openBreak(by, at, 'illegal-move-stood')) this.confirm(this.plyCount(), 'clock', at, seenAtPress);
        return;
      }
      if (this.posOf(top).turn !== by || this.board.mismatches === 0) return;
    }
    // A press first seen in the reading after an outage was made while the board was away: the
    // moves around it were not seen, so it completes nothing and is held against nobody. It still
    // says something of the jump inferred at the return when it was made by the side the record
    // has to move: either that side's opponent moved last and has not pressed yet, or the jump
    // left the wrong side to move (a pawn that went one square and then another looks like one
    // that went two). When a sequence of the other parity fits too, the jump is no longer trusted:
    // the next irregular press searches again from where it began.
    if (!seenAtPress) {
      const jump = this.provisional;
      if (jump && jump.trusted && jump.end === n && this.board.mismatches === 0) {
        const pos = this.posOf(this.history[jump.base]!).clone();
        const otherParity = searchSequences(pos, this.board.seen, { minDepth: 1, maxDepth: this.revisionDepth(jump.base), budget: JUMP_BUDGET, keep: 1, turnAfter: other(by), meter: this.meter });
        if (otherParity.sequences.length > 0) jump.trusted = false;
      }
      return;
    }
    if (this.ownBoardAsPressed(by, at, seenAtPress)) return;
    if (this.board.mismatches === 0) {
      if (this.reviseJump(at, by, seenAtPress)) return;
      // The record's own board, pressed by the side it has to move, right after a jump no sequence
      // of the other parity reads: a move of that side's went unseen (a piece out and back while
      // the board was away) or none was made. The board shows neither, and it is no board the game
      // cannot reach: nothing is reported. The record stays out of step, so the next press that
      // does not fit searches again from where the jump began, and breaks there, said, if nothing
      // fits.
      if (this.outOfStep) return;
      if (this.rebreak(by, at, seenAtPress)) return;
      if (this.movedSinceClockStarted(by)) return;
      if (this.pressTellsTurnAfterConfirmedJump(by, at, seenAtPress)) return;
      this.illegal('clock-without-move', by, at, []);
      return;
    }
    const promo = this.pawnLeftOnLastRank(top, by);
    if (promo) {
      const square = makeSquare(promo.move.to);
      this.alias = { sq: promo.move.to, pawn: this.board.seen[promo.move.to]!, queen: promo.codes[promo.squares.indexOf(promo.move.to)]! };
      this.board.set(promo.move.to, this.alias.queen, this.seq, at);
      const fenBefore = top.fen;
      this.makeMove(top, promo, at);
      const count = ++this.illegalCounts[by];
      const ruling = illegalMoveRuling(this.rules, 'pawn-not-replaced', by, count, this.posOf(this.top()), fenBefore, square);
      this.incident({
        kind: 'pawn-not-replaced',
        by,
        count,
        square,
        san: this.top().record!.san,
        at,
        ply: n + 1,
        ...ruling,
        message: `${by} pressed the clock with a pawn on ${square}: the pawn is a queen (illegal move #${count}).`,
      });
      this.confirm(n + 1, 'clock', at, seenAtPress);
      return;
    }
    // Two or more plies always change at least three squares: a two-square difference is a
    // single illegal move, not a jump.
    if (this.board.mismatches > 2 && this.searchAtPress(by, at)) {
      this.confirm(this.plyCount(), 'clock', at, seenAtPress);
      return;
    }
    if (this.takebackIntoOtherOrder(at)) return;
    if (this.reviseJump(at, by, seenAtPress)) return;
    if (this.takebackIntoUnkeptOrder(at)) return;
    // The board lost the thread before this move (an outage, a dump nothing explained): what the
    // player did cannot be told from what the engine missed, so nothing is held against anyone.
    // Play goes on, and so does the record: it breaks here and follows the board from now on (the
    // arbiter is told, and may fill the break or accept it). A board that is no position yet (a
    // piece still in a hand) stays out of step, said once.
    if (this.outOfStep) {
      if (this.breakAtPress(by, at)) this.confirm(this.plyCount(), 'clock', at, seenAtPress);
      else if (this.outOfStep === 'silent') this.outOfStepReport(at);
      return;
    }
    if (this.rebreak(by, at, seenAtPress)) return;
    const differences = this.board.differences();
    // A move, legal or not, takes one of the mover's own pieces off its square: a board where every
    // piece of the presser's stands where the record has it shows nothing that player did. It may
    // differ where the opponent's pieces stand (a pawn of theirs taken back, a piece of theirs
    // knocked over), or show a piece of the presser's that no square of theirs lost (one the
    // record had taken, put back where a misread move took it).
    if (!differences.some((d) => codeToPiece(d.expected as PieceCode)?.color === by)) return;
    // Legal under another reading of inferred moves: held against nobody, and the record breaks.
    // Judged on the board as the press found it: the opponent may lift the next move's piece in
    // the press's instant.
    const pressed = this.boardAtPress(by, at) ?? this.board.seen;
    if (this.enPassantUnderOtherReading(by, pressed)) {
      if (this.breakBeforeEnPassant(by, at, pressed)) this.confirm(this.plyCount(), 'clock', at, seenAtPress);
      return;
    }
    const castling = this.castlingUnderOtherReading(by);
    if (castling) {
      if (this.castlingTellsReading(castling.rook, at) || this.breakBeforeCastling(by, castling, at) || this.openBreak(by, at, 'unexplained')) this.confirm(this.plyCount(), 'clock', at, seenAtPress);
      return;
    }
    // A move, legal or not, puts none of the opponent's pieces anywhere: a board with one of theirs
    // where the record has something else shows more than this player did (moves taken back into
    // a jump the record read otherwise, a piece knocked over and put down elsewhere). Held against
    // nobody: the jump is read again to this board, or the record breaks.
    if (this.opponentPieceShown(by, at)) {
      if (this.takenBackIntoJump(by, at) || this.openBreak(by, at, 'unexplained')) this.confirm(this.plyCount(), 'clock', at, seenAtPress);
      return;
    }
    this.illegal('illegal-move', by, at, differences);
    this.pendingIllegal = { by, ply: this.plyCount() };
  }

  /**
   * The board as it stood at `by`'s press has a piece of the opponent's on a square where the record
   * has something else. A piece of theirs put down in the press's instant is their hand already at
   * work on the next move (boardAtPress), not part of the board pressed for.
   */
  private opponentPieceShown(by: Color, at: number): boolean {
    const board = this.boardAtPress(by, at) ?? this.board.seen;
    const record = this.top().codes;
    for (let sq = 0; sq < 64; sq++) if (board[sq] !== record[sq] && codeToPiece(board[sq] as PieceCode)?.color === other(by)) return true;
    return false;
  }

  /**
   * The board is a position the last jump's start reaches, though not through the record since
   * (the players took moves back, into a jump the record read in another way, and may have played
   * on): the jump is read again to it, the moves after it replaced. A move that confirmed the jump
   * may have been an illegal try that fitted the reading (a knight taken from d8 to e5, read as
   * Nc6xe5 under a return read with that knight in a hand), corrected, and play gone on. The press
   * would break the record otherwise, and does so once per board: the search has the return's
   * budget (ten plies from the jump's start can need 130,000 nodes). A jump no more than a
   * search's length behind (the search from its start goes no deeper than one from a return).
   */
  private takenBackIntoJump(by: Color, at: number): boolean {
    const jump = this.provisional ?? this.confirmedJump?.jump;
    const plies = jump ? this.plyCount() - jump.base - 1 : 0;
    if (!jump || plies < 1 || plies > MAX_MISSED_PLIES + 2) return false;
    if (!this.firstSearch(`${this.board.hash}/${by}/taken-back`)) return false;
    return this.jumpFrom(jump.base, at, by, { ...this.fromStart(jump.base), budget: RETURN_JUMP_BUDGET });
  }

  /**
   * `board` (as the press found it) shows `by` taking en passant a pawn the record has arriving by
   * a second single step, the first of which was inferred from a jump, not seen: read as one double
   * step (the move the jump has for the first another the search did not find), the capture is
   * legal. The record cannot say the player erred. The first step may be any of that side's plies
   * before (g3 read at the start of an eight-ply jump, where a4 was played, and g4 after the
   * return).
   */
  private enPassantUnderOtherReading(by: Color, board: Uint8Array): boolean {
    const n = this.plyCount();
    if (n < 3) return false;
    const last = this.history[n]!.move;
    if (!last) return false;
    let p = n - 2;
    while (p > 0 && this.history[p]!.move?.to !== last.from) p -= 2;
    const first = this.history[p]!;
    if (p <= 0 || !first.move || !first.inferred) return false;
    const pawn = by === 'white' ? PIECE.BPAWN : PIECE.WPAWN;
    const home = by === 'white' ? 6 : 1;
    // That pawn's own first step, and it stood there from then until its second.
    for (let q = p; q < n; q++) if (this.history[q]!.codes[last.from] !== pawn) return false;
    if (first.move.from >> 3 !== home) return false;
    if (Math.abs(first.move.to - first.move.from) !== 8 || Math.abs(last.to - last.from) !== 8) return false;
    const top = this.top();
    const pos = this.posOf(top).clone();
    pos.epSquare = last.from;
    const s = matchMove(pos, top.codes, board, squaresApart(board, top.codes));
    return s !== undefined && s.move.to === last.from && top.codes[s.move.from] === (by === 'white' ? PIECE.WPAWN : PIECE.BPAWN);
  }

  /**
   * The record breaks at its own board, the pawn's last step taken as a double step, and `by`'s
   * capture is recorded after it (StepBoards.moveBetween tells the capture and the break's en
   * passant square, as for a break after an outage that ended with the double step): the capture
   * is kept, where a break at the board after it would lose it. Else the break takes the board as
   * it stands.
   */
  private breakBeforeEnPassant(by: Color, at: number, board: Uint8Array): boolean {
    const top = this.top();
    const capture = this.stepBoards.moveBetween(this.recordEnd(), top.codes, board, by);
    if (capture?.ep !== undefined && this.openBreak(other(by), at, 'unexplained', false, false, top.codes, undefined, capture.ep)) {
      this.makeMove(this.top(), capture, at);
      return true;
    }
    return this.openBreak(by, at, 'unexplained', false, false, board);
  }

  /** The position after `sans` played from ply `base` of the record; undefined when one of them is not legal there. */
  private playedFrom(base: number, sans: readonly string[]): Chess | undefined {
    const pos = this.posOf(this.history[base]!).clone();
    for (const san of sans) {
      const move = parseSan(pos, san);
      if (!move) return undefined;
      pos.play(move);
    }
    return pos;
  }

  /**
   * The board shows `by` castling with a king and a rook on their starting squares, where the
   * record lost that right only at an inferred ply (a jump read with the king or that rook out and
   * back, where they never left): under another reading of the jump the castling is legal, and the
   * record cannot say the player erred. The castling, and the rook square of the right it needs.
   */
  private castlingUnderOtherReading(by: Color): { castling: Successor; rook: number } | undefined {
    const top = this.top();
    const now = this.posOf(top);
    if (now.turn !== by) return undefined;
    // Asked of every board a few squares off the record that no move explains: nothing to do
    // unless the record has lost a right of `by`'s that the game started with.
    const lost = this.startRights.diff(now.castles.castlingRights).intersect(SquareSet.backrank(by));
    if (lost.isEmpty()) return undefined;
    const king = now.board.kingOf(by);
    if (king === undefined) return undefined;
    const kingCode = top.codes[king]!;
    const rookCode = by === 'white' ? PIECE.WROOK : PIECE.BROOK;
    const rank = king & 56;
    for (const rook of lost) {
      // A castling leaves its king on the c- or g-file and its rook beside it (Chess960 too),
      // where the record has not got them already (a king that castled before stands there).
      const kingTo = rank + (rook > king ? 6 : 2);
      const rookTo = rank + (rook > king ? 5 : 3);
      if (this.board.seen[kingTo] !== kingCode || this.board.seen[rookTo] !== rookCode) continue;
      if (top.codes[kingTo] === kingCode && top.codes[rookTo] === rookCode) continue;
      const diff = this.board.diffFrom(top.codes);
      if (diff.length < 2 || diff.length > 4) continue;
      const setup = now.toSetup();
      setup.castlingRights = setup.castlingRights.with(rook);
      const pos = Chess.fromSetup(setup);
      if (!pos.isOk) continue;
      const s = matchMove(pos.value, top.codes, this.board.seen, diff);
      const lostAt = s?.castling && s.move.to === rook ? this.plyRightLost(rook) : undefined;
      if (s && lostAt !== undefined && this.history[lostAt]!.inferred) return { castling: s, rook };
    }
    return undefined;
  }

  /** The ply at which the record lost the castling right of the rook on `rook`. */
  private plyRightLost(rook: number): number | undefined {
    for (let p = this.plyCount(); p > 0; p--) {
      const before = parseFen(this.history[p - 1]!.fen);
      if (before.isOk && before.value.castlingRights.has(rook)) return p;
    }
    return undefined;
  }

  /**
   * The castling says the king and its rook never moved: when the right was lost in an inferred
   * span whose reading could not be told, the candidates that leave them at home, and after which
   * every move recorded since is legal and the castling too, are the span's readings (as a move
   * right after a span tells its order: nextMoveTellsOrder). The span is played again in the first,
   * still marked while several fit, and the castling recorded.
   */
  private castlingTellsReading(rook: number, at: number): boolean {
    const lost = this.plyRightLost(rook);
    const span = lost === undefined ? undefined : this.history[lost]!.record?.uncertain;
    if (!span || span.candidates.length < 2) return false;
    const base = span.firstPly - 1;
    const since = this.history.slice(base + span.plies + 1).map((p) => p.move);
    const fitting = span.candidates.filter((candidate) => {
      const pos = this.playedFrom(base, candidate);
      if (!pos) return false;
      for (const move of since) {
        if (!move || !pos.isLegal(move)) return false;
        pos.play(move);
      }
      const codes = positionCodes(pos);
      return matchMove(pos, codes, this.board.seen, squaresApart(codes, this.board.seen))?.castling === true;
    });
    const first = fitting[0];
    if (!first) return false;
    const uncertain =
      fitting.length > 1 || span.candidates.length >= JUMP_ALTERNATIVES ? { firstPly: span.firstPly, plies: first.length, candidates: fitting.filter((c) => c.length === first.length) } : undefined;
    this.replaceMoves(base, first, at, span.plies, uncertain);
    this.playMoveShown(at);
    return true;
  }

  /**
   * The record breaks at its own board with the castling right given back, and `by`'s castling is
   * recorded after it (as an en passant capture is after breakBeforeEnPassant): the castling is
   * kept, where a break at the board after it would lose it.
   */
  private breakBeforeCastling(by: Color, found: { castling: Successor; rook: number }, at: number): boolean {
    const top = this.top();
    if (!this.openBreak(other(by), at, 'unexplained', false, false, top.codes, undefined, undefined, found.rook)) return false;
    this.makeMove(this.top(), found.castling, at);
    return true;
  }

  /**
   * A press with no move right after the opponent's move that confirmed a jump read in more than
   * one way (the first move after it): that move's piece may have been one of the jump's put back
   * where it stood (a hand held at the return), the jump then leaving the other side to move. Seed
   * 11045 (8 plies with a hand, the clock set by hand): c6 read in a hand and put back, taken for
   * Black's move; Black tried a5-b7 and pressed, the try was put right and White pressed to start
   * Black's clock again. The jump is searched again from its start with `by`'s opponent to move;
   * when a sequence fits, the record is read again to it and nothing is held against `by`.
   */
  private pressTellsTurnAfterConfirmedJump(by: Color, at: number, seenAtPress: boolean): boolean {
    const confirmed = this.confirmedJump;
    const n = this.plyCount();
    if (!confirmed || confirmed.jump.trusted || confirmed.by !== n || n !== confirmed.jump.end + 1 || this.top().record?.by === by) return false;
    if (!this.firstSearch(`${this.board.hash}/${by}/confirmed-jump`)) return false;
    if (!this.fromJumpStart(confirmed.jump.base, at, by, false)) return false;
    this.confirm(this.plyCount(), 'clock', at, seenAtPress);
    return true;
  }

  /**
   * The lever: `by`'s clock ran from the opponent's latest press seen. A move of `by`'s recorded
   * since then is what this press was for, though the opponent's reply was already on the board
   * when it was read (the reading at the press lost, the press made late): no press without a move.
   */
  private movedSinceClockStarted(by: Color): boolean {
    const started = this.pressedAtPly[other(by)];
    if (started === undefined) return false;
    const n = this.plyCount();
    for (let p = Math.min(started, n) + 1; p <= n; p++) if (this.history[p]!.record?.by === by) return true;
    return false;
  }

  /**
   * A press on a board the last inferred jump cannot lead to: search again from where the jump
   * began (its order or length was wrong). When nothing fits from there either and the board
   * differs by more than one move could, the board is out of step: the press is not held against
   * the player (a single illegal move right after an outage still is).
   */
  private reviseJump(at: number, by: Color, seenAtPress: boolean): boolean {
    const jump = this.provisional;
    // After a trusted jump, two squares are one move, legal or not: that is the player's. A press
    // with no move at all right after one says rather that the jump left the wrong side to move
    // (a piece come from nowhere has been searched for already: pieceReappeared).
    if (!jump || (jump.trusted && this.board.mismatches > 0 && this.board.mismatches <= 2)) return false;
    if (this.firstSearch(`${this.board.hash}/${by}/revise`)) {
      // A board that is the record's own, whole, was not read mid-move: no piece is in a hand
      // there (a piece out and back, which the press asks for, is: see jumpFrom).
      if (this.presserMovedLast(jump.base, by, at, seenAtPress)) return true;
    }
    if (!this.outOfStep) this.outOfStep = 'silent';
    return false;
  }

  /**
   * The jump from `base` searched again with `by`'s move last, to `board` (default: the board as
   * it stands, read with a piece in a hand where it differs from the record), the press confirming it.
   */
  private presserMovedLast(base: number, by: Color, at: number, seenAtPress: boolean, board?: Uint8Array): boolean {
    const inHand = board === undefined && this.board.mismatches > 0;
    if (!this.seenMoveTellsTurn(base, by, at, board) && !this.fromJumpStart(base, at, by, inHand, undefined, undefined, board ? { target: board } : undefined)) return false;
    this.confirm(this.plyCount(), 'clock', at, seenAtPress);
    return true;
  }

  /**
   * The record's own board as the press landed, a piece of the opponent's put down for the next
   * move in its instant, pressed by the side the record has to move: as on that board whole
   * (reviseJump), the jump may have left the wrong side to move, and is searched again from its
   * start with the presser's move last (seed 13056: White's Kd1 and Ke2 while the board was away,
   * the king put back on e2 as it came back, read as eight plies with Black to move; White's press
   * for Ke2, Black's king put down on e7 in its instant, broke the record and lost Ke2). When
   * nothing is found the press goes on as before, on the board as it stands.
   */
  private ownBoardAsPressed(by: Color, at: number, seenAtPress: boolean): boolean {
    const jump = this.provisional;
    if (!jump || this.board.mismatches === 0) return false;
    const pressed = this.boardAtPress(by, at);
    if (!pressed || squaresApart(pressed, this.top().codes).length > 0 || !this.firstSearch(`${this.board.hash}/${by}/pressed`)) return false;
    return this.presserMovedLast(jump.base, by, at, seenAtPress, pressed);
  }

  /**
   * seenMoveTellsTurn at a press of the side the jump did not leave to move. The jump is searched
   * again at about the length read at the return, with the nodes it had there (a press's own run
   * out before eight plies). The board is also taken as it stood when the press landed, the
   * opponent's hand already at work (blitz): the move pressed for is on that board alone.
   */
  private pressTellsTurn(base: number, by: Color, at: number): boolean {
    if (this.seenMoveTellsTurn(base, by, at, this.board.seen, RETURN_JUMP_BUDGET)) return true;
    const pressed = this.boardAtPress(by, at);
    return pressed !== undefined && this.seenMoveTellsTurn(base, by, at, pressed, RETURN_JUMP_BUDGET);
  }

  /**
   * A press by `by` right after a move of theirs seen made on the board (from a board seen since the
   * return to the board now), where the inferred jump has the other side to move or no move at all
   * since: the jump left the wrong side to move. The shortest sequence to the board now would
   * swallow the move seen (a knight out and back is no sequence at all); the jump is searched
   * again to the board seen before the move, with `by` to move after it, and the move is played.
   * Boards seen latest first (the move just made).
   */
  private seenMoveTellsTurn(base: number, by: Color, at: number, current: Uint8Array = this.board.seen, budget = this.jumpBudget, plain = false): boolean {
    const end = this.recordEnd();
    let tried = 0;
    // A jump read through a piece in a hand: the board before that piece's move is the record's
    // own (the piece where the jump left it), never seen whole.
    const held = this.provisional?.inHand !== undefined;
    // A board seen with the mover's piece in a hand, its landing the only change since: the board
    // before the move had it on a square it may have come from (handOrigins). Not when a board
    // seen since the return showed a piece like it where it is gone now: that piece was seen
    // lifted, and its move is what the board showed (a wrong one is the player's, not a hand's).
    const origin = this.history[base]!.codes;
    let origins = 0;
    let takenOff = 0;
    const boards = function* (engine: GameEngine): Generator<Uint8Array> {
      if (held) yield engine.top().codes.slice();
      for (const seen of engine.seenBoards.latest()) {
        const restored = engine.takenOffFirst(base, seen, current, by);
        if (restored) {
          takenOff++;
          yield restored;
        }
        yield seen;
        if (origins > 0) continue;
        const landing = squaresApart(seen, current);
        if (landing.length !== 1 || engine.seenBoards.seenLeaving(current[landing[0]!]!, current)) continue;
        const before = engine.stepBoards.handOrigins(end, seen, current, by, origin, HAND_ORIGINS);
        origins = before.length;
        yield* engine.byJumpLength(base, before, by);
      }
    };
    for (const before of boards(this)) {
      if (tried >= SEEN_MOVE_BOARDS + Number(held) + origins + takenOff) break;
      if (squaresApart(before, current).length === 0) continue;
      tried++;
      const seenMove = this.stepBoards.moveBetween(end, before, current, by);
      if (!seenMove) continue;
      // The move seen is played after the jump: a reading under which it is illegal would lose it
      // (seed 4012: bxa3 en passant after a jump read with a4 before c6 cxd5).
      if (!this.jumpFrom(base, at, other(by), { ...this.fromStart(base), target: before, budget, moveAfter: seenMove.move, plain })) continue;
      this.playMoveShown(at, current);
      return true;
    }
    return false;
  }

  /**
   * Board `seen` with an opponent's piece back on the square `by` moved onto since (empty on
   * `seen`): a capture made the usual way, the taken piece lifted first, the board read between
   * the two. The record's piece there when that board was seen whole (below); else the piece the
   * jump's start had there, only when a jump no longer than the record's reaches it with `by` to
   * move and none reaches `seen` itself: the piece may have been taken while the board was away,
   * and then the move onto its square is a move onto an empty one (seed 15098: the board came back with Black's
   * h8 queen lifted for Qxh8, read as the white queen's trip to h8 and back; White's press after
   * Qxh8 asked the jump again, to the board without that queen, and eight plies were found with
   * her taken on a1 by a knight out and back).
   */
  private takenOffFirst(base: number, seen: Uint8Array, current: Uint8Array, by: Color): Uint8Array | undefined {
    const apart = squaresApart(seen, current);
    if (apart.length !== 2) return undefined;
    const landing = apart.find((sq) => seen[sq] === PIECE.EMPTY && current[sq] !== PIECE.EMPTY);
    const left = apart.find((sq) => sq !== landing);
    if (landing === undefined || left === undefined || current[left] !== PIECE.EMPTY || seen[left] !== current[landing]) return undefined;
    if (codeToPiece(current[landing]! as PieceCode)?.color !== by) return undefined;
    const takeable = (code: number): boolean => {
      const taken = codeToPiece(code as PieceCode);
      return taken !== undefined && taken.color !== by && taken.role !== 'king';
    };
    // That board seen whole before (the record's piece on the landing, as the board read at the
    // return showed it): the capture's taken piece was lifted from it, whatever jump reaches the
    // board without that piece (seed 17255: the white queen read on c4 at the return, lifted for
    // Bxc4, and the board without her read as her taken on e6 by moves nobody saw). A press says
    // the other side moved last, so a jump a ply longer than the record's may reach it.
    const recorded = this.top().codes[landing]!;
    if (takeable(recorded)) {
      const before = seen.slice();
      before[landing] = recorded;
      if (this.seenBoards.hasSeen(before) && this.byJumpLength(base, [before], by, this.plyCount() - base + 1).length > 0) return before;
    }
    const start = this.history[base]!.codes[landing]!;
    if (!takeable(start)) return undefined;
    const before = seen.slice();
    before[landing] = start;
    if (this.byJumpLength(base, [seen], by).length > 0) return undefined;
    return this.byJumpLength(base, [before], by)[0];
  }

  /**
   * `boards`, the one the shortest jump from `base` reaches (with `turn` to move) first; those only
   * a longer jump than the record's reaches are left out: a piece whose lift nobody saw is no
   * licence to send it on a detour (a queen put down on the wrong square, then corrected).
   */
  private byJumpLength(base: number, boards: Uint8Array[], turn: Color, plies = this.plyCount() - base): Uint8Array[] {
    return boards.length === 0 ? boards : bySequenceLength(this.posOf(this.history[base]!), boards, turn, plies, JUMP_BUDGET, this.meter);
  }

  private outOfStepReport(at: number): void {
    this.outOfStep = 'reported';
    const differences = this.board.differences();
    this.incident({
      kind: 'illegal-position',
      at,
      ply: this.plyCount(),
      article: '7.4 (2018: 7.5.1)',
      consequences: [{ kind: 'arbiter-decides', note: 'the board matches no legal continuation of the game; nothing is held against either player' }],
      message: `Play goes on from a board the game cannot reach: it differs on ${differences.map((x) => x.square).join(' ')}.`,
      differences,
    });
  }

  private pawnLeftOnLastRank(top: Ply, by: Color): Successor | undefined {
    const pawn = by === 'white' ? PIECE.WPAWN : PIECE.BPAWN;
    for (const s of this.successors(top)) {
      if (s.move.promotion !== 'queen' || s.squares.length !== this.board.mismatches) continue;
      let ok = true;
      for (let i = 0; i < s.squares.length && ok; i++) {
        const sq = s.squares[i]!;
        ok = this.board.seen[sq] === (sq === s.move.to ? pawn : s.codes[i]);
      }
      if (ok) return s;
    }
    return undefined;
  }

  private illegal(kind: IllegalKind, by: Color, at: number, differences: SquareDifference[]): void {
    const count = ++this.illegalCounts[by];
    const top = this.top();
    const ruling = illegalMoveRuling(this.rules, kind, by, count, this.posOf(top), top.fen);
    const ply = this.plyCount();
    if (kind === 'clock-without-move') this.incident({ kind, by, count, at, ply, ...ruling, message: `${by} pressed the clock without moving (irregularity #${count}).` });
    else
      this.incident({
        kind: 'illegal-move',
        by,
        count,
        differences,
        at,
        ply,
        ...ruling,
        message: `${by} completed an illegal move (${differences.map((d) => d.square).join(' ')}) — irregularity #${count}.`,
      });
  }

  // ---- recognising what the board shows ----

  /**
   * `source`: a field change; a drift dump that changed squares (field updates were lost); or the
   * first scan after a reconnect, the only time a board nothing explains is reported as such.
   */
  private evaluate(at: number, source: 'field' | 'dump' | 'resync', placed = false, trigger: 'field' | 'dump' = source === 'field' ? 'field' : 'dump'): void {
    if (this.started && this.board.mismatches === 0) {
      this.pendingIllegal = undefined;
      // A piece put somewhere else and brought back ends that attempt (an illegal move corrected);
      // a piece only lifted and put back where it stood was touched, and that still counts for 4.4.2.
      if (this.board.displaced) this.settledSeq = this.seq;
      this.board.displaced = false;
      this.outOfStep = false;
      this.adrift = false;
      if (this.provisional) {
        delete this.provisional.doubted;
        delete this.provisional.refuted;
      }
      return;
    }
    if (this.tryStart(at)) return;
    if (!this.started) return;
    if (this.resultShownWithKings(at)) return;
    if (this.playResumedAfterKings(at)) return;
    const top = this.top();
    const n = this.plyCount();
    const playing = this.acceptsMoves();
    if (playing && source === 'field' && !placed && this.searchedPlacementLeft(at)) return;
    if (playing && this.board.mismatches >= 2 && this.board.mismatches <= 4) {
      const s = matchMove(this.posOf(top), top.codes, this.board.seen, this.board.diffFrom(top.codes));
      if (s && this.handPutBackInOtherOrders(s, at)) return;
      if (s) {
        this.makeMove(top, s, at);
        return;
      }
      // Seen made in full, as any move is: without a clock nothing else would record it before
      // play went on from it (seed 4110: O-O-O after a jump read with the rook out and back).
      const turn = this.posOf(top).turn;
      const castling = this.castlingUnderOtherReading(turn);
      if (castling && (this.castlingTellsReading(castling.rook, at) || this.breakBeforeCastling(turn, castling, at))) return;
      if (this.nextMoveTellsOrder(at)) return;
    }
    // Reconnect dumps: time has passed, so a forward jump is likelier than a takeback to a
    // repeated placement.
    // Not while the last move, unconfirmed, is still under way (its piece lifted again from where it
    // landed: a slide read from the board's log, a piece being corrected): the board differs only
    // where that move was made, and sequences that explain such a board go out and back.
    if (
      playing &&
      source !== 'field' &&
      !(top.record?.confirmed === false && this.lastMoveUnderWay()) &&
      this.searchJump(at, undefined, source === 'resync' && trigger === 'field' ? BURST_PLIES : MAX_MISSED_PLIES, trigger === 'dump')
    )
      return;
    const last = top.record;
    if (last && !last.confirmed && playing) {
      const parent = this.history[n - 1]!;
      const diff = this.board.diffFrom(parent.codes);
      if (diff.length === 0) {
        if (at !== this.previousAt) this.takenBackOnBoard(n - 1, at);
        return;
      }
      const s = matchMove(this.posOf(parent), parent.codes, this.board.seen, diff);
      if (s && !samePlayedMove(this.posOf(parent), s.move, top.move!)) {
        if (this.shorterFromJumpStart(n, at)) return;
        this.amend(parent, s, at);
        return;
      }
    }
    if (playing) {
      const plies = this.byHash.get(this.board.hash);
      if (plies) {
        for (let i = plies.length - 1; i >= 0; i--) {
          const p = plies[i]!;
          if (p < n && this.board.equals(this.history[p]!.codes) && this.plausibleTakeback(p)) {
            // Hands lift and place one at a time; a knocked piece leaves its square and lands in
            // the same instant. A pawn falling back onto the square it came from shows an earlier
            // position without anyone taking a move back.
            if (at !== this.previousAt) this.takenBackOnBoard(p, at);
            return;
          }
        }
      }
    }
    if (!playing) return;
    // A burst (many changes stamped with one time, as a buffered poll delivers them) may hide
    // whole moves; a hand moving pieces one by one never needs the deeper search, unless the board
    // is already out of step: then every piece put down may be the one that completes the picture
    // (a dump taken with a piece in the hand, a player finishing a move after the board came back).
    const burst = this.board.mismatches >= 5 && at === this.previousAt;
    // The side the record does not have to move put a piece somewhere no move explains, right
    // after an inferred jump nothing has confirmed: the jump may have left the wrong side to move
    // (without a clock nothing else will tell), so search again from where it began.
    const jump = this.provisional;
    // Not while a move is being taken back, one made after the jump or the jump's own: its piece
    // put back first, the piece it took still in the hand (Bxe4 taken back, the bishop on g2 and
    // e4 still empty; cxd4, the jump's last ply, taken back, the rook not yet back on d4). Nor
    // once the players have taken the jump's moves back: nothing of it is left to have left the
    // wrong side to move, and a search from its start is one from the record as it stands, where
    // a capture still being taken back (Rxh4 undone rook first, the queen not yet put back on h4)
    // reads as a tempo and a move out of turn. Nor a knock (a piece landing in the instant another
    // square emptied): no hand put that piece down (seed 3144: g6 knocked onto g7 and put back).
    // A move whose landing is seen before its square empties, in one instant (the board's scan
    // order), is judged at that square's emptying, as before (seed 3052: Qc2, c2 then c1).
    if (
      source === 'field' &&
      jump &&
      n > jump.base &&
      (!jump.trusted || !this.clockSeen) &&
      this.board.mismatches >= 2 &&
      !(placed && at === this.previousAt) &&
      this.placedOutOfTurn() &&
      !this.takebackUnderWay(jump.base)
    ) {
      if (this.firstSearch(`${this.board.hash}/doubted`)) {
        if (this.fromJumpStart(jump.base, at, undefined, false, undefined, this.boardReadThroughHand(jump))) return;
        // Nothing from there either. Without a clock no press will tell, so play seen on this
        // board (a move and the reply) breaks the record instead of leaving it waiting for good.
        if (!this.clockSeen && !jump.doubted) {
          jump.doubted = true;
          // The board before the piece was put down is the record's, unless the jump left the
          // wrong side to move: play may go on from it.
          // (The boards kept since a hand was refuted stay: play may go on from one of them.)
          this.stepBoards.startFrom(this.top().codes, jump.refuted === true);
        }
      }
    }
    // A piece put down that no move brings (the only square that differs), right after a jump read
    // exactly: the board it was read at may have been short of that piece all the same (a player
    // holding it; an exact sequence a ply longer is preferred to a hand), so the jump is read
    // again through that board. Not a piece of the side to move landing where a move of theirs
    // goes, from a square that still shows it: that is the next move, its landing seen first.
    if (
      source === 'field' &&
      placed &&
      jump &&
      jump.inHand === undefined &&
      jump.end === n &&
      this.board.mismatches === 1 &&
      !this.nextMoveLanding(this.posOf(top).turn) &&
      (this.readAgainThroughBoard(jump, at) || this.putBackIntoJump(jump, at))
    )
      return;
    // A piece put down where no move explains it while the jump's hand is still empty (the piece
    // in the hand came from elsewhere, or the one the jump held had been taken): the board is whole
    // again, so the jump is searched again from where it began, exactly. Without a clock, when
    // nothing is found within a field event's budget, it is searched again with the return's: it
    // is as long as the return's search, and no press will come to search again (seed 5129,
    // Chess960: eight plies read with the rook of e8 in the hand where it had gone on to e7; put
    // down on b7, the nine plies from the jump's start took more than 60,000 nodes, the record
    // broke, and Rb7 was lost in the break). No more than one ply past the record, the piece put
    // down being one move: a piece put down on a square its slide passes is no move yet, and a
    // deeper reading tells a story around it (seed 132: Rxd3 seen on d7 on its way, read as seven
    // plies from a four-ply jump). With a clock the press searches again (seed 4063: Qe1+ Kxe1 from
    // the record's end, where the wider search from the jump's start reads six wrong plies).
    if (source === 'field' && placed && jump?.inHand !== undefined && this.handPutDownElsewhere(jump.inHand)) {
      if (
        this.firstSearch(`${this.board.hash}/hand`) &&
        (this.fromJumpStart(jump.base, at, undefined, false) ||
          (!this.clockSeen && this.fromJumpStart(jump.base, at, undefined, false, undefined, undefined, { budget: RETURN_JUMP_BUDGET, maxDepth: n - jump.base + 1 })))
      )
        return;
      // Nothing leads there: the boards from this one on are kept, so that a break starts where
      // play went on (StepBoards.breakable).
      jump.refuted = true;
    }
    if (source === 'field' && (burst || (this.outOfStep && placed)) && this.searchJump(at, undefined, this.outOfStep && placed ? MAX_MISSED_PLIES : BURST_PLIES)) return;
    // Without a clock nothing presses, so nothing else would ever break the record: a move and
    // its reply seen made on a board nothing explains break it before them. Not a knock (several
    // squares changed in one instant). A move may end with a lift (the piece put down first, then
    // the one it took, or its own square's piece, lifted), so lifts count here too.
    const pressless = !this.clockSeen || (this.clockTicks && at - this.lastClockAt > CLOCK_SILENT_MS);
    if (source === 'field' && (((this.outOfStep || this.provisional?.doubted || this.provisional?.refuted) && !this.clockSeen) || (this.adrift && pressless)) && at !== this.previousAt) {
      if (!placed && this.outOfStep && this.searchJump(at, undefined, MAX_MISSED_PLIES, false, this.lastLifted?.at === at ? this.lastLifted.sq : undefined)) return;
      if (placed && this.adrift && this.moveAndReplyShown(at)) return;
      if (this.breakBeforeMoveAndReply(at)) return;
    }
    // Without a clock (or with one gone silent), a board off the record by two squares or more that
    // nothing above explained (an illegal move, a move of the side not to move) is kept from here
    // on (adrift).
    if (source === 'field' && playing && pressless && !this.outOfStep && this.board.mismatches >= 2) this.adrift = true;
    // Not reported yet: a dump is often taken with a piece in the hand, and the next piece put
    // down may explain everything. A press on a board still unexplained is (onPress).
    if ((source !== 'field' || burst) && !this.outOfStep) this.outOfStep = 'silent';
  }

  /** A board is searched once per reading and question (`key`): false when this one was just searched. */
  private firstSearch(key: string): boolean {
    if (this.lastSearchKey === key) return false;
    this.lastSearchKey = key;
    return true;
  }

  /**
   * The board jumped (reconnect, burst, unseen moves before a press, a board out of step put
   * right): the shortest legal sequences to it (jump-search.ts). The first is played; when others
   * fit too, the moves carry the alternatives for every consumer and the arbiter may pick another.
   */
  private searchJump(at: number, lastBy: Color | undefined, maxDepth = MAX_MISSED_PLIES, inHand = false, liftedLast?: number): boolean {
    if (!this.firstSearch(`${this.board.hash}/${lastBy ?? '-'}/${maxDepth}/${inHand}`)) return false;
    const lift = liftedLast !== undefined ? { liftedLast } : {};
    if (this.jumpFrom(this.plyCount(), at, lastBy, { maxDepth, inHand, ...lift })) return true;
    // A board the last inferred jump cannot lead to (a piece put back after an illegal move the
    // jump took for legal ones): from where that jump began, one move is enough.
    const jump = this.provisional;
    return jump !== undefined && jump.base < this.plyCount() && this.fromJumpStart(jump.base, at, lastBy, inHand, liftedLast);
  }

  /**
   * The jump from `base` was read through a piece in a hand, and the board now is that board one
   * move on (throughHand): that reading, before the board before the move is rebuilt from the
   * move alone (seenMoveTellsTurn), which cannot know the piece the move took was the hand's
   * (seed 5152: a pawn taken en passant on d3, read as standing on d4 and held; the rook's Rxd3
   * rebuilt as a move to an empty d3 and ten plies invented around it).
   */
  private readThroughHeld(base: number, at: number): boolean {
    const jump = this.provisional;
    return jump !== undefined && jump.base === base && jump.inHand !== undefined && jump.end === this.plyCount() && this.readAgainThroughBoard(jump, at);
  }

  /** The search again from where the last inferred jump began (its order, length or parity was wrong): one move is enough there. */
  private fromJumpStart(
    base: number,
    at: number,
    lastBy: Color | undefined,
    inHand: boolean,
    liftedLast?: number,
    readThroughHand?: JumpQuery['readThroughHand'],
    wider?: Partial<Pick<JumpQuery, 'budget' | 'maxDepth' | 'target'>>,
  ): boolean {
    // Without a clock nothing presses, but the piece just put down tells who moved last. When it
    // is of the side the record does not have to move and a move of theirs was seen made, the jump
    // left the wrong side to move: it runs to the board before that move, which is then played
    // (the shortest sequence to the board now would reorder the moves seen since the return). A
    // piece put back where the record had it since the jump began may be a move being taken back
    // (a queen going home before the pawn it took), which a detour would explain as moves: for it,
    // only a jump no piece goes out and back in (seed 16022: White's knight d4-e2 seen made after
    // the return, home where the jump began; read as never having left, the jump lost a ply
    // (b6 b5 as b5) and the record broke at Black's next move, Ne2 lost). Such a piece is judged
    // on the board as it came down too, when pieces were lifted since (the opponent already
    // moving), as any piece out of turn is (seed 22038, Chess960: a queen completing Qxb6 after the
    // return, the jump read whole with her taking on b6 and c6 the other way round; her landing
    // waited as a takeback under way, Black lifted g7 for g5 before anything judged it, and with
    // the board now short of that pawn no move of White's was found: g5 and Qb6 were recorded as
    // Black's move and White's reply, and Qxe6 from b6 then reported against White as the queen
    // released on b6 and moved on).
    const placed = this.lastPlaced;
    if (lastBy === undefined && !this.clockSeen && placed) {
      const by = codeToPiece(placed.code as PieceCode)?.color;
      if (by && by !== this.posOf(this.top()).turn) {
        const home = this.history.slice(base).some((p) => p.codes[placed.sq] === placed.code);
        const told = (!home && this.readThroughHeld(base, at)) || this.seenMoveTellsTurn(base, by, at, this.board.seen, this.jumpBudget, home) || this.seenMoveBeforeLift(base, by, at, home);
        if (told) return true;
      }
    }
    // Without a clock, the board of a move seen made since the jump (not inferred) was seen whole:
    // a reading from the jump's start must pass through it (a knight knocked from c8 onto d7 was
    // read as Nb6 … Nd7 in place of Rd7 … Rd8, the rook's return seen made). Not the board read at
    // the return: a hand at work there leaves a board no game passed through (a king lifted from
    // e1 and put down on c2 before going back).
    const top = this.top();
    const seenMade = lastBy === undefined && !this.clockSeen && this.plyCount() > base && top.record && !top.inferred && !top.record.gap;
    return this.jumpFrom(base, at, lastBy, {
      ...this.fromStart(base),
      inHand,
      through: seenMade ? [top.codes] : [],
      ...(liftedLast !== undefined ? { liftedLast } : {}),
      ...(readThroughHand ? { readThroughHand } : {}),
      ...wider,
    });
  }

  /**
   * seenMoveTellsTurn on the board as it stood when the last piece was put down, when the board now
   * is that board with pieces lifted since: the next move is under way (the piece just put down
   * being taken), and the move seen is the one that put it there. Seed 7050 (Chess960, no clock):
   * Qxc7+ after a jump read a ply short, its two squares seen in one scan (judged a knock), then
   * the queen lifted by the king taking it; the search to the board with c7 empty read Qxb6 cxb6
   * into the jump, a queen given away on a square the board never showed it on. `plain`: only jumps
   * no piece goes out and back in, for a piece put home (fromJumpStart).
   */
  private seenMoveBeforeLift(base: number, by: Color, at: number, plain = false): boolean {
    const placed = this.lastPlaced;
    if (!placed) return false;
    const now = this.board.seen;
    for (const seen of this.seenBoards.latest()) {
      if (seen[placed.sq] !== placed.code) continue;
      const lifted = squaresApart(seen, now);
      if (lifted.length === 0 || lifted.some((sq) => now[sq] !== PIECE.EMPTY)) return false;
      return this.seenMoveTellsTurn(base, by, at, seen, this.jumpBudget, plain);
    }
    return false;
  }

  /**
   * The board a jump was read at through a piece in a hand (jumpReadingOf). A search again from the
   * jump's start for a piece put down out of turn must pass through it (passesThrough allows the
   * hand): every other piece stood still there, and a reading that never shows them so tells
   * another story (seed 5177: a king knocked from e7 onto e6 as the queen in the hand went down
   * read as Ke6 played before the return, where that board had the king on e7). Only sequences as
   * long as the jump or longer: a shorter one is to a board from before it, moves taken back (seed
   * 4007: c5 and e5 taken back, the order they go back in telling the order they were played).
   */
  private boardReadThroughHand(jump: Provisional): JumpQuery['readThroughHand'] {
    const read = this.jumpReadingOf(jump);
    return read?.held !== undefined ? read : undefined;
  }

  /** How deep a search from `base` goes: the plies recorded since, and a few more. */
  private revisionDepth(base: number): number {
    return Math.min(MAX_MISSED_PLIES + 2, this.plyCount() - base + 3);
  }

  /** The depths of a search from where a jump began (fromJumpStart): from one ply to a few more than recorded since. */
  private fromStart(base: number): JumpQuery {
    return { maxDepth: this.revisionDepth(base), minDepth: 1 };
  }

  /** The piece last put down is of the side the record does not have to move, and still off its square in the record. */
  /** The board is a position the record reached at ply `from` or after (not the last) short of one piece: a move is being taken back. */
  private takebackUnderWay(from: number): boolean {
    for (let p = from; p < this.plyCount(); p++) {
      const apart = this.board.diffFrom(this.history[p]!.codes);
      if (apart.length === 1 && this.board.seen[apart[0]!] === PIECE.EMPTY) return true;
    }
    return false;
  }

  private placedOutOfTurn(): boolean {
    const placed = this.lastPlaced;
    if (!placed) return false;
    const top = this.top();
    if (top.codes[placed.sq] === placed.code) return false;
    const white = placed.code >= PIECE.WPAWN && placed.code <= PIECE.WQUEEN;
    return (this.posOf(top).turn === 'white') !== white;
  }

  /**
   * A press on a board taken back into an inferred span whose order could not be told: a board
   * part-way through another candidate order (not the one published) tells the order, so the span
   * is re-played in that order and taken back to that point, with any moves recorded after the
   * span (the players took those back too). Otherwise taking back the published order's last move
   * would look like an illegal move. (At a press only: a piece bouncing for an instant can pass
   * through such a board.)
   */
  private takebackIntoOtherOrder(at: number): boolean {
    const found = this.otherOrderShown();
    if (!found) return false;
    const { span, candidate, plies, alike } = found;
    const base = span.firstPly - 1;
    const jump = this.provisional;
    if (this.plyCount() > base + span.plies) this.takeback(base + span.plies, at);
    this.replaceMoves(base, candidate, at, span.plies, alike.length > 1 ? { firstPly: span.firstPly, plies: candidate.length, candidates: alike } : undefined);
    if (plies < candidate.length) this.takeback(base + plies, at);
    if (jump) this.provisional = { ...jump, end: Math.min(jump.end, this.plyCount()) };
    // The board whole at that reading's end: no hand holds a piece of it any more.
    if (this.provisional && plies === candidate.length) delete this.provisional.inHand;
    return true;
  }

  /**
   * takebackIntoOtherOrder where no order kept passes through the board (a span with more orders
   * than were kept, or one whose last moves go out and back): the board is searched for as the
   * record taken back by up to TAKEBACK_INTO_SPAN_PLIES plies, an order of the span's plies (and
   * the moves since) that reaches it from where the span began and then the record's board.
   * Seed 18202 (8 plies with a queen in the hand, 64 orders kept, g3 second in all of them): the
   * players took back Qd8, g3 and Qc7 and White pressed, and the record held it against White as
   * g3-g2 (7.5.1, two minutes to Black). Now the span is read again in an order through that
   * board and taken back to it, the moves replayed are recorded again, and nothing is held
   * against anyone. Marked as the span was. Into the span only: the moves recorded since it were
   * seen made, so all of them are taken back (seed 20137: an illegal pawn move back to h2, four
   * moves after a span, was read as three plies taken back from an order of the span and those
   * four moves together, eight plies read again).
   */
  private takebackIntoUnkeptOrder(at: number): boolean {
    const span = this.lastUncertainSpan();
    if (!span || span.candidates.length < 2 || this.unkeptSearched === this.board.hash) return false;
    this.unkeptSearched = this.board.hash;
    const base = span.firstPly - 1;
    const end = this.plyCount();
    const board = this.board.seen;
    const start = this.posOf(this.history[base]!);
    // Into the span: the moves recorded since it were seen made, and are taken back whole.
    const since = end - (base + span.plies);
    for (let back = since + 1; back <= TAKEBACK_INTO_SPAN_PLIES && end - back > base; back++) {
      const plies = end - back - base;
      const toBoard = this.exactSequences(start, board, plies, { keep: JUMP_ALTERNATIVES });
      for (const prefix of toBoard) {
        const mid = start.clone();
        for (const m of prefix) mid.play(m);
        const redo = this.exactSequences(mid, this.top().codes, back, { excursions: 1, keep: 1 })[0];
        if (!redo) continue;
        const reading = sansOf(start, [...prefix, ...redo]);
        const alike = toBoard.map((other) => sansOf(start, [...other, ...redo]));
        const uncertain = { firstPly: span.firstPly, plies: reading.length, candidates: alike };
        this.replaceMoves(base, reading, at, end - base, uncertain);
        this.takeback(end - back, at);
        const jump = this.provisional;
        if (jump) this.provisional = { ...jump, end: Math.min(jump.end, this.plyCount()) };
        return true;
      }
    }
    return false;
  }

  /** The sequences of exactly `plies` plies from `pos` to `target` (one ply: the matcher's move). */
  private exactSequences(pos: Chess, target: Uint8Array, plies: number, options: Partial<JumpSearchOptions>): NormalMove[][] {
    if (plies === 1) {
      const codes = positionCodes(pos);
      const move = matchMove(pos, codes, target, squaresApart(codes, target));
      return move ? [[move.move]] : [];
    }
    return searchSequences(pos, target, { ...options, minDepth: plies, maxDepth: plies, budget: this.jumpBudget }).sequences;
  }

  /** The record's last uncertain span, when the record ends with it or with moves made since. */
  private lastUncertainSpan(): Uncertainty | undefined {
    let p = this.plyCount();
    while (p > 0 && !this.history[p]!.record?.uncertain) p--;
    const span = this.history[p]?.record?.uncertain;
    return span && p === span.firstPly - 1 + span.plies ? span : undefined;
  }

  /**
   * The record's last uncertain span, and a candidate order of it (not the one published) that
   * passes through the board: the plies of it the board shows played.
   */
  private otherOrderShown(): { span: Uncertainty; candidate: readonly string[]; plies: number; alike: string[][] } | undefined {
    const span = this.lastUncertainSpan();
    if (!span || span.candidates.length < 2) return undefined;
    const base = span.firstPly - 1;
    const p = base + span.plies;
    const published = this.history.slice(base + 1, p + 1).map((h) => h.record!.san);
    // A span read through a piece in a hand has candidates that end on different boards (which
    // piece was held): the board where another one ends, the moves since taken back (or never
    // made: an illegal try read as a legal move under the published reading, corrected), tells
    // the reading as well (seed 4288: exd5 read with the c4 pawn held, the e4 pawn was; its try
    // on b5 read as cxb5 and put back). Still marked while several end there.
    const publishedEnd = this.history[p]!.codes;
    const endsHere = (candidate: readonly string[]): boolean => {
      const pos = this.playedFrom(base, candidate);
      return pos !== undefined && this.board.equals(positionCodes(pos));
    };
    for (const candidate of span.candidates) {
      if (candidate.every((san, i) => san === published[i])) continue;
      const pos = this.posOf(this.history[base]!).clone();
      for (let k = 0; k < candidate.length; k++) {
        const move = parseSan(pos, candidate[k]!);
        if (!move) break;
        pos.play(move);
        if (!this.board.equals(positionCodes(pos))) continue;
        if (k < candidate.length - 1) return { span, candidate, plies: k + 1, alike: [] };
        if (!this.board.equals(publishedEnd)) return { span, candidate, plies: k + 1, alike: span.candidates.filter(endsHere).map((c) => [...c]) };
      }
    }
    return undefined;
  }

  /**
   * A press on a board holding more pieces than the record, right after an inferred jump: a piece
   * was in a hand when the board of the jump was read, and the jump took it for captured. The
   * search goes again from where the jump began, to this board (whole: the move is complete). At
   * a press only: a piece seen landing before its own square empties (the scan's order) is there
   * twice for an instant. Not when the press is late and the opponent's next move is already
   * landing, seen before its square emptied (e4-e5 with both pawns on the board as Black presses
   * for Kxe6): that is no piece put down out of a hand.
   */
  private pieceReappeared(by: Color, at: number): boolean {
    const jump = this.provisional;
    if (!jump || !this.pieceAppeared() || this.nextMoveLanding(other(by))) return false;
    if (!this.firstSearch(`${this.board.hash}/${by}/appeared`)) return false;
    if (!this.fromJumpStart(jump.base, at, by, false)) return false;
    this.confirm(this.plyCount(), 'clock', at, true);
    return true;
  }

  /**
   * A piece was put down where no move explains it, while the square whose piece the jump took to
   * be in a hand is still empty: the hand was a wrong reading (the piece put down was in the hand
   * instead, come from a square the jump does not have it on, or the one on `square` had been taken).
   */
  private handPutDownElsewhere(square: number): boolean {
    const placed = this.lastPlaced;
    return placed !== undefined && placed.sq !== square && this.board.seen[square] === PIECE.EMPTY && this.top().codes[square] !== PIECE.EMPTY && !this.slidingToHand(square, placed.sq);
  }

  /**
   * The piece put down on `landing` is a quiet move of the side to move from the record's position,
   * the hand's `square` apart, and from there it attacks that square, an opponent's piece there:
   * the piece sliding on its way to take the piece the hand holds, lifted first (seed 8125: the d2
   * pawn held, the queen sliding d8-d7-…-d2 to take it; each square of the slide searched from the
   * jump's start read d4 Qxd4 into the jump, a pawn move nobody made). Not any move beside a hand:
   * play going on with the held square still empty says the hand was a wrong reading (seed 2352).
   */
  private slidingToHand(square: number, landing: number): boolean {
    const top = this.top();
    if (top.codes[landing] !== PIECE.EMPTY) return false;
    const board = this.board.seen.slice();
    board[square] = top.codes[square]!;
    const pos = this.posOf(top);
    const s = matchMove(pos, top.codes, board, squaresApart(top.codes, board));
    if (!s || s.move.to !== landing) return false;
    const after = pos.clone();
    after.play(s.move);
    const piece = after.board.get(landing);
    const held = after.board.get(square);
    return piece !== undefined && held !== undefined && held.color !== piece.color && attacks(piece, landing, after.board.occupied).has(square);
  }

  /**
   * The board is the record's position with one piece of `mover`, the side to move, more: on the
   * empty square a move of theirs lands on, from a square that still shows that piece (the
   * landing seen before the lift).
   */
  private nextMoveLanding(mover: Color): boolean {
    return this.posOf(this.top()).turn === mover && this.moveLanding(mover);
  }

  /** nextMoveLanding for `mover` whichever side the record has to move (a move out of turn lands the same way). */
  private moveLanding(mover: Color): boolean {
    const record = this.top();
    const apart = this.board.diffFrom(record.codes);
    const landing = apart[0];
    if (apart.length !== 1 || landing === undefined || record.codes[landing] !== PIECE.EMPTY) return false;
    const shown = this.board.seen[landing];
    let moves: Successor[];
    if (this.posOf(record).turn === mover) moves = this.successors(record);
    else {
      const pos = this.posOf(record).clone();
      pos.turn = mover;
      moves = successorsOf(pos, record.codes);
    }
    return moves.some((s) => !s.castling && s.move.to === landing && s.codes[s.squares.indexOf(landing)] === shown);
  }

  /** The board holds more pieces than the record's position: one was put down that no move took off. */
  private pieceAppeared(): boolean {
    return this.piecesShort() < 0;
  }

  /**
   * A move made right after an inferred span whose order could not be told, that does not follow
   * the published order but follows another candidate order: an en passant capture after its
   * pawn's double step, a castling once its rook has come home, a piece that can only have moved
   * last. The board tells the order: the span is played again in that one, and the move recorded.
   */
  private nextMoveTellsOrder(at: number): boolean {
    const span = this.top().record?.uncertain;
    if (!span || span.candidates.length < 2) return false;
    const base = span.firstPly - 1;
    if (this.plyCount() !== base + span.plies) return false;
    // Every order of a span read through a piece in a hand shares that guess: a move none of the
    // others would refute is rather the guess's refutation (the search goes again from the start).
    if (this.provisional?.inHand !== undefined) return false;
    const published = this.history.slice(base + 1).map((p) => p.record!.san);
    const fitting = span.candidates.filter((candidate) => {
      if (candidate.every((san, i) => san === published[i])) return false;
      const pos = this.playedFrom(base, candidate);
      if (!pos) return false;
      const codes = positionCodes(pos);
      return matchMove(pos, codes, this.board.seen, squaresApart(codes, this.board.seen)) !== undefined;
    });
    const first = fitting[0];
    if (!first) return false;
    // Still several orders when more than one lets the move follow: the span stays marked.
    const uncertain = fitting.length > 1 || span.candidates.length >= JUMP_ALTERNATIVES ? { firstPly: span.firstPly, plies: span.plies, candidates: fitting } : undefined;
    const jump = this.provisional;
    this.replaceMoves(base, first, at, span.plies, uncertain);
    if (jump) this.provisional = { ...jump, end: this.plyCount() };
    this.playMoveShown(at);
    return true;
  }

  /**
   * The piece a jump read in a hand is put down, right after the jump, making a move from where the
   * reading held it. The board says as much for another reading: that piece moved while the board
   * was away, was lifted at the return and is put back (a pawn gone d7-d6 before White's d4 and
   * Black's a6, or after them, leaves the same board). Both end on the board now, one ply longer
   * than the jump: when other orders of that length lead there, the jump and the move are one span
   * whose order the board cannot tell, published with the reading's order first and marked, the
   * others offered (as for any jump with several explanations). With a clock, only when a reading
   * since the return, taken before the piece was put down, shows the opponent's clock running: the
   * mover pressed while the board was away, so the move may have been made in any order among the
   * jump's (a pawn gone b4-b5 before gxf4 and Qf2, or after them) and lifted at the return. While
   * the mover's own clock runs, that tells the two apart. False when only the reading's order fits
   * (the move is then recorded as usual).
   */
  private handPutBackInOtherOrders(s: Successor, at: number): boolean {
    const jump = this.provisional;
    const n = this.plyCount();
    if (!jump || jump.inHand !== s.move.from || jump.end !== n || jump.base >= n) return false;
    // While the mover's clock runs, the mover has not pressed: the piece is being moved now, after
    // the jump, and the reading's order is the only one (see onClock for a reading that doubts the
    // jump's parity). Readings taken after the piece was put down can arrive before it (the board's
    // log of the power-up is read after the clock): they say nothing of it.
    const mover = this.posOf(this.top()).turn;
    const pressedBefore = this.clockFresh && this.lastClockAt <= at && this.running === other(mover);
    if (this.clockSeen && !pressedBefore) return false;
    const base = jump.base;
    const pos = this.posOf(this.history[base]!).clone();
    const read = asPlayed(pos, [...this.history.slice(base + 1).map((p) => p.move!), s.move]);
    const plies = read.length;
    const found = searchSequences(pos, this.board.seen, { minDepth: plies, maxDepth: plies, budget: JUMP_BUDGET, keep: JUMP_ALTERNATIVES, turnAfter: other(mover), meter: this.meter });
    const others = found.sequences.filter((moves) => moves.some((m, i) => !sameMove(m, read[i]!)));
    if (others.length === 0) return false;
    const sequences = [read, ...others].slice(0, JUMP_ALTERNATIVES);
    const { uncertain } = this.reportMissedMoves(
      pos,
      sequences,
      found.more || sequences.length < others.length + 1,
      at,
      base,
      'the board as it stands',
      (line) =>
        `The piece of ${makeSquare(s.move.from)}, read in a hand when the board came back, is put down on ${makeSquare(s.move.to)}: it may have moved there while the board was away and been put back, so the jump and this move are read together as ${line}`,
    );
    // The jump's moves again, marked, and the move seen made as it was seen: the jump still ends
    // where it did, and the move after it confirms it when pressed, as any move seen after a jump.
    this.takeback(base, at);
    this.playInferred(read.slice(0, -1), at, uncertain);
    this.provisional = jump;
    const top = this.top();
    const landing = this.successors(top).find((x) => samePlayedMove(this.posOf(top), x.move, s.move));
    if (landing) this.makeMove(top, landing, at, true, uncertain);
    return true;
  }

  /** The last jump, and the record's last move, made right after it by `by` and not yet confirmed (nor a break's). */
  private moveRightAfterJump(by: Color): { jump: Provisional; move: NormalMove } | undefined {
    const jump = this.provisional;
    const n = this.plyCount();
    const last = this.top().record;
    const move = this.top().move;
    if (!jump || jump.end !== n - 1 || jump.base >= jump.end || !last || !move || last.by !== by || last.confirmed || last.gap) return undefined;
    return { jump, move };
  }

  /**
   * A press by `by` on a board off the record, whose last move is `by`'s: the piece a jump was read
   * with in a hand, put down right after the jump where another reading of that jump has it. Then
   * another piece of `by`'s moved before this press: a player makes one move a press, so the piece
   * put down was no move (it had been lifted at the return and was put back where it stood, a queen
   * read as gone to d2 and put down on d3). The readings that have it there are the record's
   * (marked when more than one fits), and the press is for the other piece's move. Not when the
   * piece put down is pressed for alone: the player lifted it at the return to move it, and it is
   * that move.
   */
  private handPutBackBeforeMove(by: Color, at: number): void {
    const after = this.moveRightAfterJump(by);
    if (!after || after.jump.inHand === undefined) return;
    const { jump, move } = after;
    const adoption = this.lastAdoption;
    if (move.from !== jump.inHand || this.board.mismatches === 0 || this.board.mismatches > 4) return;
    // Only `by`'s pieces differ, and one of them other than the piece put down has left its
    // square: `by` moved on (not the opponent's reply begun, its landing seen before the press;
    // nor the piece put down lifted again in the press's instant, the opponent's hand taking it:
    // seed 9001, g4 put down, lifted for Qxg4 as White pressed).
    const colorOf = (code: number): Color | undefined => codeToPiece(code as PieceCode)?.color;
    const differences = this.board.differences();
    // A piece of the opponent's taken by `by`'s piece is `by`'s doing too (seed 11007: f4 put
    // down, then g2xh4, an illegal try, as White pressed).
    const landing = makeSquare(move.to);
    const opponents = (d: SquareDifference): boolean => colorOf(d.seen) === other(by) || (colorOf(d.expected) === other(by) && colorOf(d.seen) !== by);
    if (!differences.some((d) => colorOf(d.expected) === by && d.square !== landing) || differences.some(opponents)) return;
    if (!adoption || adoption.base !== jump.base || adoption.inHand !== jump.inHand) return;
    const landed = this.top().codes;
    const start = this.posOf(this.history[jump.base]!);
    const plies = jump.end - jump.base;
    let more = adoption.more;
    let fits = adoption.sequences.filter((moves) => {
      if (moves.length !== plies) return false;
      const pos = start.clone();
      for (const m of moves) {
        if (!pos.isLegal(m)) return false;
        pos.play(m);
      }
      return squaresApart(positionCodes(pos), landed).length === 0;
    });
    // No reading kept has it there (they all held it where the reading took it from): the jump
    // is searched again to the board with the piece where it was put down, at the jump's length.
    if (fits.length === 0) {
      const found = searchSequences(start.clone(), landed, { minDepth: plies, maxDepth: plies, budget: HAND_READING_BUDGET, keep: JUMP_ALTERNATIVES, meter: this.meter });
      fits = found.sequences;
      more = found.more || found.exhausted;
    }
    if (fits.length === 0) return;
    this.readJumpAgainAs(
      jump,
      fits,
      more,
      at,
      'the board the piece was put down on',
      (line) =>
        `The piece of ${makeSquare(move.from)}, read in a hand when the board came back, was put down on ${makeSquare(move.to)} and another of ${by}'s moved before ${by} pressed: it was put back where it stood, and the jump is read again as ${line}`,
    );
  }

  /**
   * A press by `by` for a move to an empty square made right after a jump read exactly, the board
   * in step: the board may have been read while a piece of the opponent's standing on that square
   * was in a hand, lifted first to be taken (takenFromHand). A reading of the same length with
   * that capture is a rival to the record's: the jump and the move are marked as one jump, with
   * the record's reading first and the others offered.
   */
  private takenFromHandBeforeMove(by: Color, at: number): void {
    const after = this.moveRightAfterJump(by);
    if (!after || after.jump.inHand !== undefined) return;
    const { jump, move } = after;
    const adoption = this.lastAdoption;
    if (this.board.mismatches !== 0 || !adoption || adoption.base !== jump.base || adoption.inHand !== undefined) return;
    const before = this.history[this.plyCount() - 1]!.codes;
    if (before[move.to] !== PIECE.EMPTY) return;
    const start = this.posOf(this.history[jump.base]!);
    const plies = jump.end - jump.base;
    const rivals = takenFromHand(start.clone(), before, this.top().codes, plies, { minDepth: plies, maxDepth: plies, budget: HAND_READING_BUDGET, meter: this.meter, keep: JUMP_ALTERNATIVES });
    if (!rivals || rivals.sequences.length === 0) return;
    // The record's readings first, with room kept for the rivals among the 64 offered.
    const own = adoption.sequences.filter((moves) => moves.length === plies).map((moves) => [...moves, move]);
    const readings = [...own.slice(0, Math.max(JUMP_ALTERNATIVES - rivals.sequences.length, JUMP_ALTERNATIVES / 2)), ...rivals.sequences].slice(0, JUMP_ALTERNATIVES);
    const more = adoption.more || rivals.more || own.length + rivals.sequences.length > readings.length;
    this.readJumpAgainAs(
      jump,
      readings,
      more,
      at,
      'the board after the move pressed for',
      (line) =>
        `${by} pressed for ${makeSquare(move.from)}-${makeSquare(move.to)} right after the jump: the board read when it came back may have been short of a piece of ${other(by)}'s on ${makeSquare(move.to)}, lifted to be taken, so the jump and that move are read together as ${line}`,
    );
  }

  /**
   * The record taken back to where `jump` began and played again as `readings` (the first; the
   * others offered, marked when more than one fits), with a `missed-moves` incident that says why
   * (`board`, `message` as in reportMissedMoves). The jump now ends there, with no hand; a jump
   * marked is not trusted (adoptJump).
   */
  private readJumpAgainAs(jump: Provisional, readings: readonly NormalMove[][], more: boolean, at: number, board: string, message: (line: string) => string): void {
    const { uncertain } = this.reportMissedMoves(this.posOf(this.history[jump.base]!).clone(), readings, more, at, jump.base, board, message);
    this.takeback(jump.base, at);
    this.playInferred(readings[0]!, at, uncertain);
    const { inHand: _read, ...rest } = jump;
    this.provisional = { ...rest, end: this.plyCount(), trusted: rest.trusted && uncertain === undefined };
    this.lastAdoption = { base: jump.base, sequences: readings, more };
  }

  /** The board differs from the record only on squares the last recorded move changed. */
  private lastMoveUnderWay(): boolean {
    const top = this.top();
    if (!top.move || this.plyCount() === 0) return false;
    const parent = this.history[this.plyCount() - 1]!;
    const touched = new Set<number>();
    for (let sq = 0; sq < 64; sq++) if (parent.codes[sq] !== top.codes[sq]) touched.add(sq);
    const diff = this.board.diffFrom(top.codes);
    return diff.length > 0 && diff.every((sq) => touched.has(sq));
  }

  /**
   * Searches from the position after `base` plies to the board and, when a sequence fits, takes
   * the record back to `base` (a provisional jump being revised) and plays it. `query.inHand`: the board
   * was read whole (a dump, a press), so it may be short of a piece in a hand; a board met field
   * by field (a hand at work, a burst being applied) is short of pieces on its way and is not.
   */
  private jumpFrom(base: number, at: number, lastBy: Color | undefined, query: JumpQuery): boolean {
    const { maxDepth, minDepth = 2, inHand = false, target = this.board.seen, through = [], budget = this.jumpBudget, plain = false } = query;
    const pos = this.posOf(this.history[base]!).clone();
    // The press that completed the jump tells whose turn it is now. The running side alone does not:
    // a player who has moved and not yet pressed leaves it one ply behind the board.
    const options = {
      minDepth,
      maxDepth,
      budget,
      meter: this.meter,
      keep: JUMP_ALTERNATIVES,
      ...(lastBy !== undefined ? { turnAfter: other(lastBy) } : {}),
    };
    const lifted = this.seenBoards.emptied(positionCodes(pos), target);
    const held = this.provisional;
    const readAt = held?.base === base ? this.jumpReadingOf(held) : undefined;
    // The jump was read with a piece in a hand and the board now is that board one move on: the
    // piece put down was the one in the hand, or the hand held the piece taken where one was put
    // down, whichever the reading took to be in the hand.
    if (readAt && this.adoptThroughHand(pos, base, readAt, target, options, at, lifted)) return true;
    const plainly = searchSequences(pos, target, options);
    let found = plain ? plainly : seenDetourFirst(pos, target, options, plainly, lifted);
    // Searched again from a jump read through a hand (the hand refuted), where every reading found
    // is shorter than that jump: none shows the board it was read at, and each says the pieces seen
    // there never stood so. Readings that pass through that board whole go first, one piece out and
    // back on the way where the hand stood in for a tempo (seed 20166, 4 plies while the clock was
    // set by hand: Kd7 Qf1 Bxc1 Qd1 read as Kd7 Bb2 Bc1 with the b2 bishop in the hand; Black's
    // king back to e8 was then read as Bxc1 alone, the king seen on d7 in two listings never
    // there, and Ke8 was lost).
    const readHeld = query.readThroughHand;
    if (!plain && readHeld && found.sequences.length > 0 && found.sequences.every((m) => m.length < readHeld.plies)) {
      const through = withExcursionThrough(pos, readHeld.codes, target, options, lifted);
      if (through.sequences.length > 0) found = through;
    }
    // Searched again from an inferred jump's start at a press, with the clock's count of the plies
    // pressed for: a sequence of that length, when the shortest is up to two plies shorter (a
    // queen exchange on d8 and the other queen gone on to c7 read as her taking on c7).
    const shortest = found.sequences[0]?.length;
    const counted = lastBy !== undefined && this.clockCount !== undefined && held?.base === base ? this.clockCount - base : undefined;
    if (counted !== undefined && shortest !== undefined && counted > shortest && counted - shortest <= COUNTED_PLIES_OFF && counted <= maxDepth + 2) {
      const atCount = { ...options, minDepth: counted, maxDepth: counted };
      const atLength = searchSequences(pos, target, atCount);
      const longer = plain ? atLength : seenDetourFirst(pos, target, atCount, atLength, lifted);
      if (longer.sequences.length > 0) found = longer;
    }
    // Searched again from a jump read through a piece in a hand, and the hand is still empty: a
    // piece that took the one missing and went back where it stood (Qxc7 … Qc4) leaves the same
    // board as a hand, and its square unchanged, which the pruned search leaves out. One such
    // detour is allowed.
    if (!plain && found.sequences.length === 0 && held?.inHand !== undefined && held.base === base && target[held.inHand] === PIECE.EMPTY) {
      found = withExcursion(pos, target, options, lifted);
    }
    // Nothing leads to the board exactly: it may have been read with a piece in a hand (a player
    // already moving when the board came back, a dump taken mid-move). Sequences that leave the
    // board short of one piece the next player could be moving or taking are the explanation
    // then, unless an exact one is at most a ply longer: a piece in a hand is one unseen event,
    // two more missed plies are two (an exact sequence of seven plies can nearly always be found
    // for a board of four plies with a knight in the hand: one knight taken, the other in its place).
    // Not while the board differs only where the last move was made: that move is still being
    // completed (a rook in the hand after the king went down) or adjusted.
    const exactDepth = found.sequences[0]?.length ?? maxDepth + 2;
    if (inHand && exactDepth - 2 >= 1 && !this.lastMoveUnderWay()) {
      const nearly = searchSequences(pos, target, { ...options, minDepth: 1, maxDepth: exactDepth - 2, pieceInHand: true });
      if (nearly.sequences.length > 0) found = nearly;
    }
    // The press fixed whose turn it is and no sequence of that parity fits, though one of the other
    // parity does: a piece may have gone out and back (a tempo), which the pruned search leaves
    // out. One such detour is allowed, one ply longer than that sequence and no more (a detour
    // searched any deeper "explains" a board the record lost long before, by wandering pieces).
    if (!plain && found.sequences.length === 0 && lastBy !== undefined) {
      const wrongTurn = searchSequences(pos, target, { minDepth, maxDepth: maxDepth - 1, budget: JUMP_BUDGET, keep: 1, meter: this.meter });
      const plies = wrongTurn.sequences[0]?.length;
      if (plies !== undefined) found = withExcursion(pos, target, { ...options, minDepth: plies + 1, maxDepth: plies + 1 }, lifted);
    }
    // Without a clock nothing fixes whose turn it is, and still no sequence fits a board read
    // whole by a dump (the return: the searches that allow a piece in a hand without a press): it
    // may show moves of one side only (a king's step and back of the other's between them, Kf8
    // b6 Ke7 Qh4). Read with one piece out and back, as short as the board allows; every piece
    // that can make that detour gives a reading of its own, so the jump is marked, with them
    // offered. When no detour reaches it exactly, a piece may be in a hand as well (the next
    // mover's knight lifted while the board came back, a bishop gone b7xe4-b7 meanwhile). Not on
    // a board seen change by change: a bishop sliding c8-d7-…-g4 to take a pawn already lifted
    // passes through boards a detour "explains" (Bxg4 Ra2 Bd7 Ra1).
    if (!plain && found.sequences.length === 0 && inHand && lastBy === undefined && !this.clockSeen && maxDepth >= DETOUR_WITHOUT_CLOCK_PLIES) {
      found = withExcursion(pos, target, { ...options, maxDepth: DETOUR_WITHOUT_CLOCK_PLIES }, lifted);
      if (found.sequences.length === 0) found = withExcursion(pos, target, { ...options, maxDepth: DETOUR_WITHOUT_CLOCK_PLIES, pieceInHand: true }, lifted);
    }
    const returned = this.unexplainedReturn(base);
    // A press on a board nothing explained at the return, and no sequence of either parity fits it:
    // a piece may have gone out and back taking something on its way (Nxd4 … Nc6: d4 empty, the
    // knight home, which the pruned search leaves out). Read with one piece out and back, as short
    // as the board allows and no longer than the clockless return's detour and the move pressed
    // since. Only there: on a board the record followed until a moment ago, such a reading would
    // turn an illegal move into moves nobody saw. Also when what fits never shows the board read at
    // the return, which every reading must (below): seed 6301, Rh4 Qc1 Rh6 Qa3 then Ra8 pressed,
    // where the rook's a7-b7-b8-a8 fits without a detour and never stands on a7 beside the queen on
    // a3; the record broke and Rh4 … Ra8 were lost.
    // Without a clock nothing presses: a piece of the side the record does not have to move, put
    // down on such a board where nothing fits, asks the same (seed 8140, Chess960: Kg2 Rg1+ Kxg1, the
    // king home taking the rook that checked it, read at the return as that rook in a hand; Black's
    // a6 then fitted nothing and the record broke with it).
    const pressless = lastBy === undefined && !this.clockSeen && found.sequences.length === 0 && this.placedOutOfTurn();
    if (!plain && (lastBy !== undefined || pressless) && returned && !found.sequences.some((moves) => passesThrough(pos, moves, returned))) {
      const detour = { ...options, maxDepth: Math.min(maxDepth, DETOUR_WITHOUT_CLOCK_PLIES + 1) };
      let detoured = withExcursionThrough(pos, returned, target, detour, lifted);
      if (detoured.sequences.length === 0) detoured = withExcursion(pos, target, detour, lifted);
      if (detoured.sequences.length > 0 || found.sequences.length === 0) found = detoured;
    }
    const mustPass = returned ? [...through, returned] : through;
    const sequences = this.seenBoards
      .bySeen(pos, found.sequences, lifted)
      .filter(
        (moves) =>
          mustPass.every((board) => passesThrough(pos, moves, board)) &&
          (!query.readThroughHand || showsReading(pos, moves, query.readThroughHand)) &&
          (query.liftedLast === undefined || leftLast(moves, query.liftedLast)) &&
          (query.moveAfter === undefined || legalAfter(pos, moves, query.moveAfter)),
      );
    const first = sequences[0];
    if (!first) return false;
    // The same square still empty after another move: no hand holds a piece that long. The board
    // was read wrong at the jump (that piece was taken or moved while the board was away): an
    // exact sequence from where the jump began, through the moves since, is searched first; without
    // one the record breaks where it stands, at the board without that piece, and the moves go on
    // from there (rather than a phantom piece carried in a hand move after move).
    const chained = found.inHand !== undefined && held?.inHand === found.inHand && held.base < base && base === this.plyCount() ? held.base : undefined;
    if (chained !== undefined) {
      if (this.jumpFrom(chained, at, lastBy, { ...this.fromStart(chained), budget })) return true;
      if (this.breakWithoutHeld(found.inHand!, first, at, chained)) return true;
    }
    // A search that ran out of nodes before it was complete may have left other sequences unfound:
    // one found is then no proof of one explanation (a six-ply board two sequences reach, the
    // second found after 530,000 nodes where the return's search has 500,000).
    this.adoptJump(pos, base, sequences, found.more || found.exhausted, found.inHand, at, chained);
    if (readAt && found.inHand === undefined && chained === undefined) this.keepJumpReading(readAt);
    return true;
  }

  /** The board is the record's short of the piece the last jump was read with in a hand: that reading explains it. */
  private shortOfHand(): boolean {
    const hand = this.provisional?.inHand;
    return hand !== undefined && this.provisional!.end === this.plyCount() && this.board.mismatches === 1 && this.board.seen[hand] === PIECE.EMPTY;
  }

  /** The board nothing explained at the return, while the record still stands where it stood then and a search from `base` would replace what follows. */
  private unexplainedReturn(base: number): Uint8Array | undefined {
    const board = this.returnBoard;
    return board && this.outOfStep && base <= board.ply && this.plyCount() === board.ply ? board.codes : undefined;
  }

  /** The board a jump was read at, and its length: the record's position at the jump's end, without the hand's piece when it was read through one. */
  private jumpReadingOf(jump: Provisional): JumpReading | undefined {
    if (jump.readAt) return jump.readAt;
    if (jump.end > this.plyCount()) return undefined;
    const codes = this.history[jump.end]!.codes.slice();
    if (jump.inHand === undefined) return { codes, plies: jump.end - jump.base };
    codes[jump.inHand] = PIECE.EMPTY;
    return { codes, held: jump.inHand, plies: jump.end - jump.base };
  }

  /** The jump searched again, from where a jump read through a hand began, keeps that reading. */
  private keepJumpReading(reading: JumpReading): void {
    if (this.provisional) this.provisional.readAt = reading;
  }

  /** `target` is one move on from the board a jump was read at (throughHand): that reading is adopted, and keeps the board it was read at. */
  private adoptThroughHand(pos: Chess, base: number, reading: JumpReading, target: Uint8Array, options: JumpSearchOptions, at: number, lifted: ReadonlySet<number>, playedOn = false): boolean {
    // Once per board: several questions of one event lead here, and a search that fits nothing
    // spends its budget.
    const key = `${base}/${reading.held}/${reading.plies}/${placementHash(target)}/${playedOn}`;
    if (this.lastThroughKey === key) return false;
    this.lastThroughKey = key;
    const through = throughHand(pos, reading.codes, reading.held, target, reading.plies, { ...options, budget: HAND_READING_BUDGET }, playedOn);
    if (!through || through.sequences.length === 0) return false;
    this.adoptJump(pos, base, this.seenBoards.bySeen(pos, through.sequences, lifted), through.more, undefined, at);
    this.keepJumpReading(reading);
    return true;
  }

  /** The jump read again through the board it was read at, to `board`, one piece put down since (adoptThroughHand; `playedOn` as there). */
  private readAgainThroughBoard(jump: Provisional, at: number, board: Uint8Array = this.board.seen, playedOn = false): boolean {
    const reading = this.jumpReadingOf(jump);
    if (!reading) return false;
    const pos = this.posOf(this.history[jump.base]!).clone();
    const options = { minDepth: 1, maxDepth: MAX_MISSED_PLIES + 2, budget: this.jumpBudget, meter: this.meter, keep: JUMP_ALTERNATIVES };
    const lifted = this.seenBoards.emptied(positionCodes(pos), board);
    return this.adoptThroughHand(pos, jump.base, reading, board, options, at, lifted, playedOn);
  }

  /**
   * The piece just put down, right after a jump read exactly, is back on the square it stood on
   * when the jump began, where the reading had it taken or gone: it was off the board in a hand
   * when the board was read, and the reading took its absence for moves. The jump is searched
   * again from its start to the board now, whole, through the board read at (seed 7057: the e6
   * pawn lifted at the return, read as Qxe6 … Qd7 where the queen went d6-e7-d7; put back, it
   * stood on a square the record had empty, and the record broke two moves on).
   */
  private putBackIntoJump(jump: Provisional, at: number): boolean {
    const placed = this.lastPlaced;
    const reading = this.jumpReadingOf(jump);
    if (!placed || !reading || this.top().codes[placed.sq] === placed.code || this.history[jump.base]!.codes[placed.sq] !== placed.code) return false;
    // Not a piece a move of its own side brings there: that is a move's landing seen before its
    // square emptied, whichever side the record has to move (seed 6270: f4-f5 landing, read as
    // the f5 pawn put back into a jump, and the f4 square's emptying then held against White).
    const color = codeToPiece(placed.code as PieceCode)?.color;
    if (!color || this.moveLanding(color)) return false;
    return this.fromJumpStart(jump.base, at, undefined, false, undefined, reading);
  }

  /**
   * The jump was searched again when a piece was put down, and that piece is lifted again before
   * it rested (a slide's flicker: a bishop from h6 passing g5 on its way to f4, a queen's slide
   * read from the board's log square by square): that board was one the piece passed, and the
   * reading it replaced stands again until the piece comes to rest.
   */
  private searchedPlacementLeft(at: number): boolean {
    const jump = this.provisional;
    const searched = jump?.searchedAt;
    if (!jump || !searched || this.plyCount() !== jump.end || at - searched.at >= RELEASE_MS) return false;
    const { adoption, provisional } = searched.replaced;
    const pos = this.posOf(this.history[adoption.base]!).clone();
    if (this.board.seen[searched.sq] === PIECE.EMPTY) {
      const note = `the piece put down on ${makeSquare(searched.sq)} did not rest there: the reading before stands again`;
      this.adoptJump(pos, adoption.base, adoption.sequences, adoption.more, adoption.inHand, at, undefined, note);
      this.provisional = provisional;
      return true;
    }
    return this.searchedPlacementLanded(pos, searched, at);
  }

  /**
   * The jump was searched again when a piece was put down, and a square of the record's emptied
   * right after it: the piece's landing was read before its lift (a board scans its squares in
   * order, and a piece can be seen arrive before its square is seen empty: a queen put on b2 read
   * before g2 emptied). When the reading it replaced, then that one move onto the square where the
   * piece was put down, is the board now, and the new reading is not, the reading before stands
   * again and the move is recorded after it (the new one had read a queen taken during the outage
   * as never taken, sent on a detour to b2, and the queen of g2 as held in a hand).
   */
  private searchedPlacementLanded(pos: Chess, searched: NonNullable<Provisional['searchedAt']>, at: number): boolean {
    if (this.board.mismatches === 0) return false;
    const { adoption, provisional } = searched.replaced;
    const end = pos.clone();
    for (const m of adoption.sequences[0]!) end.play(m);
    const codes = positionCodes(end);
    const s = matchMove(end, codes, this.board.seen, squaresApart(codes, this.board.seen));
    if (!s || s.move.to !== searched.sq) return false;
    const note = `the piece put down on ${makeSquare(searched.sq)} was a move's landing, seen before its square ${makeSquare(s.move.from)} emptied: the reading before stands again`;
    this.adoptJump(pos, adoption.base, adoption.sequences, adoption.more, adoption.inHand, at, undefined, note);
    this.provisional = provisional;
    this.makeMove(this.top(), s, at);
    return true;
  }

  /**
   * `sequences` (the first played, the rest its alternatives) from ply `base` of the record, whose
   * position is `pos`: the record is taken back to `base`, the missed-moves incident tells every
   * consumer, and the jump stays provisional until a move seen after it is pressed. `inHand`: the
   * sequences leave that square's piece in a hand. `note` ends the incident's message.
   */
  private adoptJump(pos: Chess, base: number, sequences: readonly NormalMove[][], more: boolean, inHand: number | undefined, at: number, chained?: number, note?: string): void {
    // Searched again from the same ply at a piece put down: kept, should that piece not rest there.
    const placed = this.lastPlaced?.at === at ? this.lastPlaced : undefined;
    const held = this.provisional;
    // So is a jump searched from the end of the one held (appended to it, the record out of step):
    // the piece may be passing through, as a queen sliding b5-c4-d3 to take a pawn the jump read
    // as lifted to be taken was seen on c4 and read as seven plies (seed 4005).
    const replaced =
      placed && held && chained === undefined && (held.base === base || held.end === base) && this.lastAdoption?.base === held.base ? { adoption: this.lastAdoption, provisional: held } : undefined;
    if (base < this.plyCount()) this.takeback(base, at);
    const { uncertain } = this.reportMissedMoves(
      pos,
      sequences,
      more,
      at,
      base,
      'this board',
      (line) => `The board jumped ${line}${inHand !== undefined ? `; the piece of ${makeSquare(inHand)} was in a hand` : ''}${note ? `; ${note}` : ''}`,
    );
    const ambiguous = uncertain !== undefined;
    const moves = sequences[0]!;
    this.playInferred(moves, at, uncertain);
    this.outOfStep = false;
    // Inferred, not seen: until a move seen on the board is completed by a press, a board the
    // jump cannot lead to sends the search back to where the jump began. A short jump with one
    // explanation is trusted enough that a single wrong move after it is the player's; a long or
    // ambiguous one is not (an illegal move can look like two legal ones around the opponent's).
    // (A jump read through a piece in a hand is a guess about that hand: never trusted.)
    this.provisional = {
      base: chained ?? base,
      end: this.plyCount(),
      trusted: !ambiguous && moves.length <= TRUSTED_JUMP_PLIES && inHand === undefined,
      ...(inHand !== undefined ? { inHand } : {}),
      ...(replaced && placed ? { searchedAt: { ...placed, replaced } } : {}),
    };
    this.lastAdoption = { base, sequences, more, ...(inHand !== undefined ? { inHand } : {}) };
    this.confirmedJump = undefined;
  }

  /**
   * The `missed-moves` incident of `sequences` (the first played, the rest its alternatives) from
   * ply `base`, whose position is `pos`: `message` gets "N plies: SANs (ambiguous: …)" and the
   * incident ends with a full stop. The span's uncertainty when several fit.
   */
  private reportMissedMoves(
    pos: Chess,
    sequences: readonly NormalMove[][],
    more: boolean,
    at: number,
    base: number,
    board: string,
    message: (line: string) => string,
  ): { sans: string[]; uncertain: Uncertainty | undefined } {
    const candidates = sequences.map((moves) => sansOf(pos, moves));
    const sans = candidates[0]!;
    // `more`: others exist, or may (a search cut short) though only one was found.
    const ambiguous = candidates.length > 1 || more;
    const alternatives = more ? `${candidates.length}+` : `${candidates.length}`;
    const [doubt, note] =
      candidates.length > 1
        ? [`ambiguous: ${alternatives} sequences fit`, `${alternatives} move sequences lead to ${board}`]
        : ['perhaps not the only sequence: the search stopped early', `the search stopped before it could rule out other move sequences to ${board}`];
    this.incident({
      kind: 'missed-moves',
      sans,
      ambiguous,
      alternatives: candidates.length,
      candidates,
      at,
      ply: base,
      article: '',
      consequences: ambiguous ? [{ kind: 'arbiter-decides', note: `${note}; check the score sheets` }] : [],
      message: `${message(`${sans.length} plies: ${sans.join(' ')}${ambiguous ? ` (${doubt})` : ''}`)}.`,
    });
    return { sans, uncertain: ambiguous ? { firstPly: base + 1, plies: sans.length, candidates } : undefined };
  }

  /**
   * The record breaks at its own board without the piece of `square` (taken to be in a hand since
   * the jump from `since`, and not on the board), and `moves` are played from there.
   */
  private breakWithoutHeld(square: number, moves: readonly NormalMove[], at: number, since: number): boolean {
    const top = this.top();
    const placement = top.codes.slice();
    const piece = codeToPiece(placement[square]! as PieceCode);
    placement[square] = PIECE.EMPTY;
    const by = other(this.posOf(top).turn);
    const note = `the ${piece ? `${piece.color} ${piece.role}` : 'piece'} of ${makeSquare(square)}, taken to be in a hand since the jump after ply ${since}, is not on the board: the moves that took it away were not seen`;
    if (!this.openBreak(by, at, 'unexplained', false, false, placement, note)) return false;
    this.playInferred(moves, at);
    return true;
  }

  /** Moves inferred, not seen made (never held to Article 4.7), played until one no longer fits or the game has ended. */
  private playInferred(moves: readonly NormalMove[], at: number, uncertain?: Uncertainty): void {
    for (const m of moves) {
      const cur = this.top();
      const s = this.successors(cur).find((x) => samePlayedMove(this.posOf(cur), x.move, m));
      if (!s) return;
      this.makeMove(cur, s, at, false, uncertain);
      if (this.result && !this.acceptsMoves()) return;
    }
  }

  private tryStart(at: number): boolean {
    const n = this.plyCount();
    if (this.started && n > 0 && !this.result) return false;
    const arbiterStart = this.opts.start?.fen;
    if (arbiterStart !== undefined) {
      if (this.started) return false;
      const setup = parseFen(arbiterStart);
      const pos = setup.isOk ? Chess.fromSetup(setup.value) : undefined;
      if (!pos?.isOk) return false;
      const codes = positionCodes(pos.value);
      for (const reversed of [false, true]) {
        if (this.matchesOriented(codes, reversed)) {
          this.startGame('arbiter-position', pos.value, undefined, reversed, at);
          return true;
        }
      }
      return false;
    }
    if (this.board.occupied !== 32) return false;
    for (const reversed of [false, true]) {
      const flip = reversed !== this.board.reversed;
      const start = recogniseStart((s) => this.board.seen[flip ? 63 - s : s]!);
      if (!start) continue;
      const kind = start.kind === 'standard' && !this.opts.chess960 ? 'standard' : 'chess960';
      if (this.started && n === 0 && this.history[0]!.fen === start.fen && this.board.reversed === reversed) return false;
      this.chess960 = kind === 'chess960';
      this.startGame(kind, start.pos, start.chess960Number, reversed, at);
      return true;
    }
    return false;
  }

  private matchesOriented(codes: Uint8Array, reversed: boolean): boolean {
    const flip = reversed !== this.board.reversed;
    for (let s = 0; s < 64; s++) if (this.board.seen[flip ? 63 - s : s] !== codes[s]) return false;
    return true;
  }

  private startGame(kind: GameKind, pos: Chess, chess960Number: number | undefined, reversed: boolean, at: number): void {
    this.board.reorient(reversed);
    this.started = true;
    this.kind = kind;
    this.chess960Number = kind === 'chess960' ? chess960Number : undefined;
    if (kind === 'arbiter-position') this.chess960 = this.opts.chess960 ?? false;
    this.history = [];
    this.byHash.clear();
    this.repetitions.clear();
    this.incidents = [];
    this.illegalCounts = { white: 0, black: 0 };
    this.result = undefined;
    this.alias = undefined;
    this.lastSearchKey = undefined;
    this.outOfStep = false;
    this.provisional = undefined;
    this.confirmedJump = undefined;
    this.pushPly(pos, undefined, undefined, at);
    this.startRights = pos.castles.castlingRights;
    const fen = this.top().fen;
    this.out.push({
      type: 'game-started',
      at,
      kind,
      ...(this.chess960Number !== undefined ? { chess960Number: this.chess960Number } : {}),
      fen,
      reversed,
    });
  }

  // ---- the game record ----

  private top(): Ply {
    return this.history[this.history.length - 1]!;
  }

  private plyCount(): number {
    return Math.max(0, this.history.length - 1);
  }

  private posOf(p: Ply): Chess {
    if (p.pos) return p.pos;
    const setup = parseFen(p.fen);
    // The FEN was written by this engine from a legal position: it parses back.
    p.pos = Chess.fromSetup(setup.unwrap()).unwrap();
    return p.pos;
  }

  private successors(p: Ply): Successor[] {
    return (p.successors ??= successorsOf(this.posOf(p), p.codes));
  }

  /**
   * Going back several plies at once is only believed when the board changed about as much as that
   * many moves change: a single piece put back one square can make the board look like a position
   * from three plies ago (the moves in between cancelled out), and that is an illegal move or a
   * slip, not a takeback. Takebacks done ply by ply show each position on the way.
   */
  private plausibleTakeback(p: number): boolean {
    const n = this.plyCount();
    if (p >= n - 1) return true;
    const a = this.history[p]!.codes;
    const b = this.top().codes;
    let d = 0;
    for (let s = 0; s < 64; s++) if (a[s] !== b[s]) d++;
    return d >= 2 * (n - p);
  }

  private pushPly(pos: Chess, record: RecordedMove | undefined, move: NormalMove | undefined, at: number): Ply {
    this.lastPlaced = undefined;
    this.adrift = false;
    const codes = positionCodes(pos);
    const fen = fenOf(pos, codes);
    const key = fen.slice(0, fen.lastIndexOf(' ', fen.lastIndexOf(' ') - 1));
    const ply: Ply = { pos, codes, hash: placementHash(codes), key, fen, record, move, sinceSeq: this.seq, sinceAt: at, movedSince: this.seq };
    const index = this.history.length;
    this.history.push(ply);
    const old = this.history[index - 2];
    if (old) {
      old.pos = undefined;
      old.successors = undefined;
    }
    const list = this.byHash.get(ply.hash);
    if (list) list.push(index);
    else this.byHash.set(ply.hash, [index]);
    this.repetitions.set(key, (this.repetitions.get(key) ?? 0) + 1);
    this.board.expect(this.top().codes);
    return ply;
  }

  private popPly(): void {
    const ply = this.history.pop()!;
    const index = this.history.length;
    const list = this.byHash.get(ply.hash)!;
    list.splice(list.lastIndexOf(index), 1);
    if (list.length === 0) this.byHash.delete(ply.hash);
    const r = this.repetitions.get(ply.key)! - 1;
    if (r === 0) this.repetitions.delete(ply.key);
    else this.repetitions.set(ply.key, r);
  }

  /** Plays `s` from `from` (the current top) and records it. */
  private play(from: Ply, s: Successor, at: number): Ply {
    const pos = this.posOf(from).clone();
    const san = makeSanAndPlay(pos, s.move);
    const by = this.posOf(from).turn;
    const ply = this.history.length;
    const record: RecordedMove = { ply, by, san, uci: this.uci(from, s), fenAfter: '', at, confirmed: false };
    const next = this.pushPly(pos, record, s.move, at);
    record.fenAfter = next.fen;
    return next;
  }

  /**
   * UCI as chessops writes it (castling as the king onto its rook, which Chess960 needs), except
   * standard-chess castling, which GUIs expect as e1g1. A king put down on g1 before its rook moves
   * is matched as that two-square step; chessops plays it as castling, and so must the notation.
   */
  private uci(from: Ply, s: Successor): string {
    const pos = this.posOf(from);
    const side = castlingSide(pos, s.move);
    if (side === undefined) return makeUci(s.move);
    // A normal move stays one: only its destination can change (the king onto its rook).
    const move = normalizeMove(pos, s.move) as NormalMove;
    if (this.chess960) return makeUci(move);
    const rank = move.from & 56;
    return makeUci({ from: move.from, to: rank + (side === 'h' ? 6 : 2) });
  }

  /** `seenInOrder`: false for moves inferred from a jump, whose lift order nobody saw. */
  private makeMove(from: Ply, s: Successor, at: number, seenInOrder = true, uncertain?: Uncertainty): void {
    const n = this.plyCount();
    const prev = from.record;
    if (prev && !prev.confirmed) this.confirm(n, 'opponent-moved', at);
    this.outOfStep = false;
    this.pendingIllegal = undefined;
    const next = this.play(from, s, at);
    next.movedSince = Math.max(from.sinceSeq, this.settledSeq);
    if (!seenInOrder) next.inferred = true;
    const r = next.record!;
    if (uncertain) r.uncertain = uncertain;
    this.out.push({
      type: 'move-made',
      at,
      ply: r.ply,
      by: r.by,
      san: r.san,
      uci: r.uci,
      fenAfter: r.fenAfter,
      // The clock as last read is this move's time only for a move seen made now. A move inferred
      // (a jump's, a break's fill, the arbiter's) was made while nobody read the clock, and so was
      // a move seen made while a clock read every second has gone unread (its cable out, its
      // battery flat): it has a time only from a press reading that confirms it, never the
      // reading of another moment.
      ...(this.lastClock && seenInOrder && this.unreadFor(at) <= CLOCK_UNREAD_MS ? { clock: { ...this.lastClock } } : {}),
      ...(uncertain ? { uncertain } : {}),
    });
    if (seenInOrder) this.checkCastlingOrder(s, next, at);
    this.checkEnd(next, at);
  }

  private amend(parent: Ply, s: Successor, at: number): void {
    const old = this.top();
    const previous = old.record!;
    this.withdrawResultAfter(this.plyCount() - 1, at);
    this.popPly();
    const next = this.play(parent, s, at);
    next.movedSince = old.movedSince;
    if (old.inferred || old.amendsInferred) next.amendsInferred = true;
    const r = next.record!;
    this.out.push({
      type: 'move-amended',
      at,
      ply: r.ply,
      by: r.by,
      previousSan: previous.san,
      san: r.san,
      uci: r.uci,
      fenAfter: r.fenAfter,
    });
    const oldMove = old.move!;
    // Art 4.7: the piece stood released on its first square (longer than a slide's flicker)
    // before the player moved it on. A move inferred from a jump was never seen released, and one
    // recorded with a break was read from boards nothing explains (a piece going home in a
    // takeback reads as a move there).
    if (
      !old.inferred &&
      !old.amendsInferred &&
      !this.madeRightAfterDoubtedJump(previous.ply) &&
      old.sinceSeq > this.loggedSeq &&
      old.sinceSeq !== this.brokeSeq &&
      !s.castling &&
      oldMove.from === s.move.from &&
      oldMove.to !== s.move.to
    ) {
      const rested = this.board.vacatedAt[oldMove.to]! - old.sinceAt;
      // The piece left that square and was put back on it, and meanwhile a piece was put down
      // where the move left none: the board went elsewhere and came back (moves taken back and
      // made again, in an order the record did not follow: a queen back to b1, a pawn to d7), not
      // a change of mind on the piece released there. Pieces only lifted and put back (adjusted)
      // leave the release standing.
      const putBack = this.board.placedSeq[oldMove.to]! > old.sinceSeq && this.board.placedAfter(old.sinceSeq, old.codes, [oldMove.from, oldMove.to, s.move.to]);
      if (this.board.vacatedSeq[oldMove.to]! > old.sinceSeq && rested >= RELEASE_MS && !putBack) {
        this.incident({
          kind: 'moved-after-release',
          by: r.by,
          releasedOn: makeSquare(oldMove.to),
          san: r.san,
          at,
          ply: r.ply,
          article: '4.7',
          consequences: [
            {
              kind: 'arbiter-decides',
              note: `the move counted as made on ${makeSquare(oldMove.to)} (${previous.san}); ${r.san} was played instead`,
            },
          ],
          message: `${r.by} released the piece on ${makeSquare(oldMove.to)} (${previous.san}) and then played ${r.san}.`,
        });
      }
    }
    this.checkCastlingOrder(s, next, at);
    this.checkEnd(next, at);
  }

  /**
   * The first move after a doubted jump goes on to another square (a slide, a piece moved on):
   * the jump was read with that move's first square as its end, and the board at the new one is
   * a board of its own. A sequence from the jump's start shorter than the jump and the move
   * amended is the reading, as it would have been had the hand gone there at once (seed 10090, no
   * clock: White's bishop sliding e2-d3-b5-a6 to take Black's, lifted on a6 at the return; read on
   * b5 as Black's bishop gone c8-a6-d3 and taken there, and Bb5-a6 amended onto that, Bxa6 lost).
   */
  private shorterFromJumpStart(ply: number, at: number): boolean {
    const jump = this.provisional;
    if (jump === undefined || !this.madeRightAfterDoubtedJump(ply)) return false;
    // The piece put down is the mover's: the reading ends with a move of theirs, as the record
    // does. A clock that counted the jump's plies pressed (the move under way is not) backs the record.
    const recorded = ply - jump.base;
    if (recorded <= 2 || (this.clockCount !== undefined && this.clockCount - jump.base >= recorded - 1)) return false;
    return this.jumpFrom(jump.base, at, this.history[ply]!.record!.by, { maxDepth: recorded - 2, minDepth: 1 });
  }

  /**
   * Art 4.7 judges a release against the position the move was made from. Right after a jump read
   * with doubt (long, ambiguous, through a hand) that no press has confirmed, that position is a
   * reading, not a sight: the piece may be going back in moves taken back (a queen home b6-g6-c6,
   * read as Qg6 and moved on, seed 9180). Such a move is not held to 4.7; nor is an inferred move
   * amended (amendsInferred: a bishop read c1-d2, seen on e3, then played e3-d2, seed 9090).
   */
  private madeRightAfterDoubtedJump(ply: number): boolean {
    const jump = this.provisional;
    return jump !== undefined && !jump.trusted && ply === jump.end + 1 && this.history[jump.end]?.inferred === true;
  }

  /** Art 4.4.2: castling starts with the king. The rook lifted first (within this move) is flagged. */
  private checkCastlingOrder(s: Successor, next: Ply, at: number): void {
    if (!s.castling) return;
    const king = s.move.from;
    const rook = s.move.to;
    const since = next.movedSince;
    const rookLifted = this.board.vacatedSeq[rook]! > since;
    const kingLifted = this.board.vacatedSeq[king]! > since;
    // Flag only a king lifted after its rook: a Chess960 king already on its castled square may stay
    // put (Guidelines II), and pieces gone in one event (a dump) have no order.
    if (!rookLifted || !kingLifted || this.board.vacatedSeq[king]! <= this.board.vacatedSeq[rook]!) return;
    const r = next.record!;
    this.incident({
      kind: 'rook-first-castling',
      by: r.by,
      san: r.san,
      at,
      ply: r.ply,
      article: '4.4.2',
      consequences: [{ kind: 'played-as-castling', san: r.san }],
      message: `${r.by} castled (${r.san}) touching the rook first; recorded and played as castling.`,
    });
  }

  /** `withReading`: the clock's reading is the one at the press (not a later one after an outage). */
  private confirm(ply: number, by: 'clock' | 'opponent-moved', at: number, withReading = true): void {
    const r = this.history[ply]?.record;
    if (!r || r.confirmed) return;
    r.confirmed = true;
    if (by === 'clock' && withReading && this.lastClock && !this.lastClockPartial) r.clockAfter = { ...this.lastClock };
    // A move seen after the jump and completed (by a press, or without a clock by the opponent's
    // next move) confirms the jump: it was made from the position the jump left.
    if ((by === 'clock' || !this.clockSeen) && this.provisional && ply > this.provisional.end) {
      const { base, end, trusted } = this.provisional;
      this.confirmedJump = { jump: { base, end, trusted }, by: ply };
      this.provisional = undefined;
    }
    // The press that made the break completes the move recorded after it, read from the same
    // boards (its square of departure perhaps a guess): only a later press shows play went on
    // from the break's board.
    if (by === 'clock' && this.breakGrace !== undefined && ply > this.breakGrace && !r.gap && this.brokeSeq !== this.seq) this.breakGrace = undefined;
    this.out.push({ type: 'move-confirmed', at, ply, by, mover: r.by, ...(r.clockAfter ? { clock: { ...r.clockAfter } } : {}) });
  }

  private takeback(toPly: number, at: number): void {
    const removed: string[] = [];
    // A press was for plies of the record as it stood; those taken back are replaced by the moves made next.
    for (const c of ['white', 'black'] as const) if ((this.pressedAtPly[c] ?? -1) > toPly) this.pressedAtPly[c] = toPly;
    if (this.provisional && toPly < this.provisional.base) this.provisional = undefined;
    // The move that confirmed the last jump is taken back: the confirmation goes with it (the jump
    // may have taken an illegal try, corrected since, for a move), and the jump is provisional again.
    const confirmed = this.confirmedJump;
    if (confirmed && toPly < confirmed.by) {
      this.confirmedJump = undefined;
      if (toPly >= confirmed.jump.end && !this.provisional) this.provisional = { ...confirmed.jump };
    }
    this.withdrawResultAfter(toPly, at);
    this.adrift = false;
    while (this.history.length - 1 > toPly) {
      removed.unshift(this.top().record!.san);
      this.popPly();
    }
    // What was lifted while taking back belongs to no move of the position now reached.
    const top = this.top();
    top.sinceSeq = this.seq;
    top.sinceAt = at;
    this.board.expect(this.top().codes);
    this.lastSearchKey = undefined;
    this.out.push({ type: 'takeback', at, toPly, fen: this.top().fen, removed });
  }

  private withdrawResultAfter(ply: number, at: number): void {
    if (!this.result || this.result.ply <= ply || !this.isAutomatic(this.result.termination)) return;
    this.out.push({ type: 'result-withdrawn', at, ply: this.result.ply });
    this.result = undefined;
  }

  /**
   * Moves are followed until the arbiter or the result pieces close the game. After an automatic
   * draw (9.6, dead position) players sometimes play on; the record keeps what they do.
   */
  private acceptsMoves(): boolean {
    return !this.result || this.isAutomatic(this.result.termination);
  }

  private isAutomatic(t: Termination): boolean {
    return t !== 'arbiter' && t !== 'result-pieces' && t !== 'result-kings';
  }

  /** Art 5.1.1, 5.2.1, 5.2.2, 9.6 end the game at once; 9.2 and 9.3 make a draw claimable. */
  private checkEnd(p: Ply, at: number): void {
    const pos = this.posOf(p);
    const ply = this.plyCount();
    const seen = this.repetitions.get(p.key) ?? 0;
    if (!this.result) {
      // makeSan already asked chessops whether the move mates.
      if (p.record?.san.endsWith('#')) return this.end(pos.turn === 'white' ? '0-1' : '1-0', 'checkmate', at);
      if (pos.isStalemate()) return this.end('1/2-1/2', 'stalemate', at);
      if (pos.isInsufficientMaterial()) return this.end('1/2-1/2', 'insufficient-material', at);
      if (seen >= 5) return this.end('1/2-1/2', 'fivefold-repetition', at);
      if (pos.halfmoves >= 150) return this.end('1/2-1/2', 'seventy-five-moves', at);
    }
    if (seen >= 3) this.out.push({ type: 'claimable', at, ply, reason: 'threefold-repetition', article: '9.2' });
    if (pos.halfmoves === 100) this.out.push({ type: 'claimable', at, ply, reason: 'fifty-moves', article: '9.3' });
  }

  private end(result: GameResult, termination: Termination, at: number): void {
    const ply = this.plyCount();
    this.kingsResume = undefined;
    this.result = { result, termination, ply };
    this.out.push({ type: 'game-ended', at, ply, result, termination });
  }

  private incident(i: Incident): void {
    this.incidents.push(i);
    this.out.push({ type: 'incident', incident: i });
  }
}
