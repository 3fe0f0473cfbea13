import type { Color } from 'chessops';
import { buttonCode, msToHms } from '../../../protocols/dgt/clock.ts';
import type { ClockCommand, ClockSide as WireClockSide, ClockTimesMessage } from '../../../protocols/dgt/clock.ts';
import type { Tabletop } from './tabletop.ts';

export type ClockSideName = 'left' | 'right';

/** One side of the clock face: remaining time, flag, time-per-move indicator. */
export interface ClockSide {
  ms: number;
  /** Flag fallen, clock blocked at zero (BWTIME hours byte bit 4). */
  flag: boolean;
  /** Time-per-move (increment) indicator (bit 5). */
  perMove: boolean;
}

export interface ClockFaceState {
  left: ClockSide;
  right: ClockSide;
  /** Whose time runs; null: not started or paused. */
  running: ClockSideName | null;
  /** True when no clock is attached: the reading is invalid (status bit 5). */
  absent?: boolean;
}

const ZERO_SIDE: WireClockSide = {
  hours: 0,
  minutes: 0,
  seconds: 0,
  ms: 0,
  flagFallenBlocked: false,
  timePerMove: false,
  flagFallenShown: false,
};

function wireSide(s: ClockSide): WireClockSide {
  // The face shows remaining time rounded up (0:00:00 only once it is gone), at most 9:59:59.
  const { hours, minutes, seconds } = msToHms(s.ms);
  const ms = ((hours * 60 + minutes) * 60 + seconds) * 1000;
  return { hours, minutes, seconds, ms, flagFallenBlocked: s.flag, timePerMove: s.perMove, flagFallenShown: false };
}

/** What BWTIME reports for a face: the lever is high on the side whose time runs (the other player pressed it down). */
export function clockTimesMessage(face: ClockFaceState): ClockTimesMessage {
  const r = face.running;
  const status = {
    running: r !== null,
    rightLeverHigh: r === 'right',
    batteryLow: false,
    rightToMove: r === 'right',
    leftToMove: r === 'left',
    noClock: face.absent === true,
  };
  // No clock: the times are invalid and sent as zeros (an absent face never runs).
  if (face.absent) return { type: 'clock-times', right: ZERO_SIDE, left: ZERO_SIDE, status };
  return { type: 'clock-times', right: wireSide(face.right), left: wireSide(face.left), status };
}

/** The DGT3000's five buttons and the ack3 code each sends (dgtbrd.h, unsolicited ack 0x88). */
export const CLOCK_BUTTON = {
  back: buttonCode('back'),
  plus: buttonCode('plus'),
  run: buttonCode('run'),
  minus: buttonCode('minus'),
  ok: buttonCode('ok'),
} as const;
export type ClockButton = keyof typeof CLOCK_BUTTON;

/** What the clock's display shows besides the times, for tests and the emulate command's log. */
export type ClockDisplay = { kind: 'times' } | { kind: 'segments'; segments: number[]; icons: number; beep: boolean } | { kind: 'text'; text: string; beep: number };

/** Times set by the host with SETNRUN (clock mode 23): the host owns the clock from then on. */
interface HostSetTimes {
  leftMs: number;
  rightMs: number;
  running: ClockSideName | null;
  paused: boolean;
  toggleOnLever: boolean;
  since: number;
}

const otherSide = (s: ClockSideName): ClockSideName => (s === 'left' ? 'right' : 'left');

/**
 * The clock as the board reports it: the table's Fischer clock (Tabletop) seen from the front, with
 * colours placed on the left/right sides, until the host takes it over with SETNRUN.
 */
export class Dgt3000 {
  display: ClockDisplay = { kind: 'times' };
  /** Total beep time requested, in ms (BEEP: n × 64 ms). */
  beepMs = 0;
  private host: HostSetTimes | null = null;

  constructor(
    private readonly table: Tabletop,
    private readonly present: boolean,
    private readonly whiteOn: ClockSideName,
    private readonly perMove: boolean,
    readonly version: { major: number; minor: number } = { major: 2, minor: 2 },
  ) {}

  /** A clock is there and its cable is in the board (one unplugged runs on, unread). */
  get attached(): boolean {
    return this.present && this.table.clockCabled;
  }

  sideOf(color: Color): ClockSideName {
    return color === 'white' ? this.whiteOn : otherSide(this.whiteOn);
  }

  face(at: number): ClockFaceState {
    const absentSide = { ms: 0, flag: false, perMove: false };
    if (!this.attached) return { left: absentSide, right: absentSide, running: null, absent: true };
    if (this.host) return this.hostFace(at);
    const r = this.table.clockAt(at);
    if (!r) return { left: absentSide, right: absentSide, running: null, absent: true };
    const white = { ms: r.whiteMs, flag: r.whiteFlag, perMove: this.perMove };
    const black = { ms: r.blackMs, flag: r.blackFlag, perMove: this.perMove };
    const running = r.running === null ? null : this.sideOf(r.running);
    return this.whiteOn === 'left' ? { left: white, right: black, running } : { left: black, right: white, running };
  }

  /** SETNRUN (clock mode 23): the host sets both times and who runs; false when no clock is attached. */
  setAndRun(cmd: Extract<ClockCommand, { type: 'setnrun' }>, at: number): boolean {
    if (!this.present) return false;
    const ms = (t: { hours: number; minutes: number; seconds: number }): number => (((t.hours & 0x0f) * 60 + t.minutes) * 60 + t.seconds) * 1000;
    const running: ClockSideName | null = cmd.leftRuns ? 'left' : cmd.rightRuns ? 'right' : null;
    this.host = {
      leftMs: ms(cmd.left),
      rightMs: ms(cmd.right),
      running,
      paused: cmd.pause,
      toggleOnLever: cmd.toggleOnLever,
      since: at,
    };
    return true;
  }

  /** A lever press by `by` when the host owns the clock; false when it changed nothing. */
  hostPress(by: Color, at: number): boolean {
    const h = this.host;
    if (!h || !h.toggleOnLever || h.paused) return false;
    const mine = this.sideOf(by);
    if (h.running === otherSide(mine)) return false;
    this.settle(at);
    h.running = otherSide(mine);
    return true;
  }

  get hostOwned(): boolean {
    return this.host !== null;
  }

  private settle(at: number): void {
    const h = this.host!;
    const t = Math.max(at, h.since);
    if (!h.paused && h.running === 'left') h.leftMs = Math.max(0, h.leftMs - (t - h.since));
    if (!h.paused && h.running === 'right') h.rightMs = Math.max(0, h.rightMs - (t - h.since));
    h.since = t;
  }

  private hostFace(at: number): ClockFaceState {
    const h = this.host!;
    const t = Math.max(at, h.since);
    const run = h.paused ? null : h.running;
    const left = run === 'left' ? Math.max(0, h.leftMs - (t - h.since)) : h.leftMs;
    const right = run === 'right' ? Math.max(0, h.rightMs - (t - h.since)) : h.rightMs;
    return {
      left: { ms: left, flag: left === 0 && run === 'left', perMove: false },
      right: { ms: right, flag: right === 0 && run === 'right', perMove: false },
      running: run,
    };
  }
}
