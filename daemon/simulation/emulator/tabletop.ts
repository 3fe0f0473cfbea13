import type { Color } from 'chessops';
import type { BoardEvent } from '../../../protocols/board-events.ts';
import { PIECE, type DgtField, type PieceCode } from '../../../protocols/dgt/squares.ts';
import type { PhysicalAction } from './physical.ts';

/** Fischer time control: `baseMs` each, `incrementMs` added to the presser on every press. */
export interface TimeControl {
  baseMs: number;
  incrementMs: number;
}

export interface TabletopOptions {
  /** 64 piece codes indexed by DgtField (0 = a8); default: the standard start position. */
  board?: PieceCode[];
  /** null or absent: no clock at the table (presses are not observed). */
  clock?: TimeControl | null;
}

export type ClockReading = Extract<BoardEvent, { type: 'clock' }>;

/** The standard start position as the board numbers it (field 0 = a8). */
export function standardStartBoard(): PieceCode[] {
  const back: PieceCode[] = [PIECE.WROOK, PIECE.WKNIGHT, PIECE.WBISHOP, PIECE.WQUEEN, PIECE.WKING, PIECE.WBISHOP, PIECE.WKNIGHT, PIECE.WROOK];
  const board: PieceCode[] = new Array<PieceCode>(64).fill(PIECE.EMPTY);
  for (let f = 0; f < 8; f++) {
    board[f] = (back[f]! + 6) as PieceCode; // black back rank, a8..h8
    board[8 + f] = PIECE.BPAWN;
    board[48 + f] = PIECE.WPAWN;
    board[56 + f] = back[f]!;
  }
  return board;
}

/** A knocked-over piece: off its square, possibly seen lying on another (empty) one. */
interface LyingPiece {
  piece: PieceCode;
  from: DgtField;
  seenOn: DgtField | null;
}

interface ClockState {
  tc: TimeControl;
  whiteMs: number;
  blackMs: number;
  running: Color | null;
  /** Time at which the running side's remaining time was last brought up to date. */
  since: number;
  whiteFlag: boolean;
  blackFlag: boolean;
}

const other = (c: Color): Color => (c === 'white' ? 'black' : 'white');

/**
 * The physical world of one table: the pieces on the board, a chess clock and the board's cable.
 * Pure and deterministic: the same actions always give the same observations. Times are the
 * actions' own `at`; an action earlier than the previous one is treated as simultaneous with it
 * (bad scripts are tolerated, never thrown on).
 */
export class Tabletop {
  private readonly squares: PieceCode[];
  private readonly lying: LyingPiece[] = [];
  private readonly clockState: ClockState | null;
  private now = 0;
  /** The board's link to the host, and its power: the host observes the board only with both. */
  private linked = true;
  private powered = true;
  /** The clock's cable into the board: without it the board reads no clock (the clock runs on). */
  private cable = true;

  constructor(opts: TabletopOptions = {}) {
    const start = opts.board && opts.board.length === 64 ? opts.board : standardStartBoard();
    this.squares = start.slice();
    const tc = opts.clock ?? null;
    this.clockState = tc ? { tc, whiteMs: tc.baseMs, blackMs: tc.baseMs, running: null, since: 0, whiteFlag: false, blackFlag: false } : null;
  }

  get connected(): boolean {
    return this.linked && this.powered;
  }

  /** The clock's cable is in the board (the clock runs on without it, unread). */
  get clockCabled(): boolean {
    return this.cable;
  }

  /** The host reads the clock: the board connected and the clock's cable in. */
  get clockRead(): boolean {
    return this.connected && this.cable;
  }

  /** The board as its sensors see it now (a piece lying on a square is seen there). */
  board(): PieceCode[] {
    return this.squares.slice();
  }

  /** Time of the last applied action. */
  get time(): number {
    return this.now;
  }

  /** Whose clock runs (null: not started, or no clock). */
  get running(): Color | null {
    return this.clockState?.running ?? null;
  }

  apply(action: PhysicalAction): BoardEvent[] {
    const at = Math.max(this.now, action.at);
    this.now = at;
    const seen: BoardEvent[] = [];
    const setField = (field: DgtField, piece: PieceCode): void => {
      if (!Number.isInteger(field) || field < 0 || field > 63) return;
      if (this.squares[field] === piece) return;
      this.squares[field] = piece;
      if (this.connected) seen.push({ type: 'field', at, field, piece });
    };
    switch (action.kind) {
      case 'lift': {
        const i = this.lying.findIndex((l) => l.seenOn === action.field);
        if (i >= 0) this.lying.splice(i, 1);
        setField(action.field, PIECE.EMPTY);
        break;
      }
      case 'place': {
        // Standing a knocked piece back up on its square takes it off the square it lay on. Placed
        // anywhere else, only a piece lying out of the sensors' sight is taken to be that one (a
        // piece seen lying elsewhere is picked up with a 'lift' of that square first).
        let i = this.lying.findIndex((l) => l.piece === action.piece && l.from === action.field);
        if (i < 0) i = this.lying.findIndex((l) => l.piece === action.piece && l.seenOn === null);
        if (i >= 0) {
          const [l] = this.lying.splice(i, 1);
          if (l!.seenOn !== null && l!.seenOn !== action.field) setField(l!.seenOn, PIECE.EMPTY);
        }
        setField(action.field, action.piece);
        break;
      }
      case 'knock': {
        const piece = this.squares[action.field];
        if (piece === undefined || piece === PIECE.EMPTY) break;
        const onto = action.onto;
        const landsSeen = onto !== undefined && onto !== action.field && this.squares[onto] === PIECE.EMPTY;
        setField(action.field, PIECE.EMPTY);
        if (landsSeen) setField(onto, piece);
        this.lying.push({ piece, from: action.field, seenOn: landsSeen ? onto : null });
        break;
      }
      case 'press': {
        const reading = this.press(action.by, at);
        if (reading && this.clockRead) seen.push(reading);
        break;
      }
      case 'clock-adjust': {
        const reading = this.adjust(action.by, action.ms, at);
        if (reading && this.clockRead) seen.push(reading);
        break;
      }
      case 'clock-cable-out':
      case 'clock-cable-in': {
        const was = this.clockRead;
        this.cable = action.kind === 'clock-cable-in';
        const reading = !was && this.clockRead ? this.clockAt(at) : null;
        if (reading) seen.push(reading);
        break;
      }
      case 'unplug':
      case 'link-down':
      case 'power-off':
      case 'plug':
      case 'link-up':
      case 'power-on': {
        // What an ideal host sees: the board is lost when the link or the power goes, and found
        // again (re-read whole) once both are back.
        const was = this.connected;
        if (action.kind === 'unplug' || action.kind === 'link-down') this.linked = false;
        if (action.kind === 'unplug' || action.kind === 'power-off') this.powered = false;
        if (action.kind === 'plug' || action.kind === 'link-up') this.linked = true;
        if (action.kind === 'plug' || action.kind === 'power-on') this.powered = true;
        if (was && !this.connected) seen.push({ type: 'connection', at, connected: false });
        if (!was && this.connected) {
          seen.push({ type: 'connection', at, connected: true });
          seen.push({ type: 'dump', at, board: this.squares.slice() });
          const reading = this.cable ? this.clockAt(at) : null;
          if (reading) seen.push(reading);
        }
        break;
      }
    }
    return seen;
  }

  /**
   * The clock as it reads at `at` (not before the last action): the running side counts down to
   * zero, where its flag falls and the clock blocks (dgt-protocol.md, BWTIME byte3 bit 4).
   */
  clockAt(at: number): ClockReading | null {
    const c = this.clockState;
    if (!c) return null;
    const t = Math.max(at, c.since);
    let { whiteMs, blackMs, whiteFlag, blackFlag } = c;
    if (c.running === 'white') {
      whiteMs = Math.max(0, whiteMs - (t - c.since));
      if (whiteMs === 0) whiteFlag = true;
    } else if (c.running === 'black') {
      blackMs = Math.max(0, blackMs - (t - c.since));
      if (blackMs === 0) blackFlag = true;
    }
    return { type: 'clock', at: t, whiteMs, blackMs, running: c.running, whiteFlag, blackFlag };
  }

  /** `ms` added to `by`'s time by hand (never below zero); the running side runs on, a fallen flag stays fallen. */
  private adjust(by: Color, ms: number, at: number): ClockReading | null {
    const c = this.clockState;
    if (!c || !Number.isFinite(ms)) return null;
    this.settle(c, at);
    if (by === 'white') c.whiteMs = Math.max(0, c.whiteMs + ms);
    else c.blackMs = Math.max(0, c.blackMs + ms);
    return this.clockAt(at);
  }

  /** The clock's state brought to `at`: the running side's time counted down, its flag as it stands. */
  private settle(c: ClockState, at: number): void {
    const now = this.clockAt(at)!;
    c.whiteMs = now.whiteMs;
    c.blackMs = now.blackMs;
    c.whiteFlag = now.whiteFlag;
    c.blackFlag = now.blackFlag;
    c.since = at;
  }

  /**
   * A press on `by`'s side of the lever. The first press starts the opponent's clock; later ones
   * stop the presser's clock, add the increment and start the opponent's (FIDE 6.2). Pressing a
   * lever that is already down changes nothing and is not reported, like a real clock.
   */
  private press(by: Color, at: number): ClockReading | null {
    const c = this.clockState;
    if (!c) return null;
    if (c.running === other(by)) return null;
    this.settle(c, at);
    if (c.running === by) {
      const flagged = by === 'white' ? c.whiteFlag : c.blackFlag;
      if (!flagged) {
        if (by === 'white') c.whiteMs += c.tc.incrementMs;
        else c.blackMs += c.tc.incrementMs;
      }
    }
    c.running = other(by);
    return this.clockAt(at);
  }
}

/**
 * The whole observed stream of a script: every action applied in order, plus a clock reading at
 * least every second while a clock runs and the host reads it (as SEND_UPDATE_NICE would report,
 * dgt-protocol.md), until the last action.
 */
export function observe(actions: PhysicalAction[], opts?: TabletopOptions): BoardEvent[] {
  const table = new Tabletop(opts);
  const out: BoardEvent[] = [];
  let lastReading = 0;
  for (const action of actions) {
    const at = Math.max(table.time, action.at);
    if (table.running !== null && table.clockRead) {
      while (lastReading + 1000 <= at) {
        lastReading += 1000;
        out.push(table.clockAt(lastReading)!);
      }
    }
    const seen = table.apply(action);
    for (const ev of seen) {
      out.push(ev);
      if (ev.type === 'clock') lastReading = ev.at;
    }
    if (table.running === null || !table.clockRead) lastReading = at;
  }
  return out;
}
