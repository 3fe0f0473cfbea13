import type { Color } from 'chessops';
import type { Tabletop } from './tabletop.ts';
import type { ClockFaceState } from './wire.ts';

export type ClockSideName = 'left' | 'right';

/** The DGT3000's five buttons and the ack3 code each sends (dgtbrd.h, unsolicited ack 0x88). */
export const CLOCK_BUTTON = { back: 0x31, plus: 0x32, run: 0x33, minus: 0x34, ok: 0x35 } as const;
export type ClockButton = keyof typeof CLOCK_BUTTON;

/** What the clock's display shows besides the times, for tests and the emulate command's log. */
export type ClockDisplay =
  | { kind: 'times' }
  | { kind: 'segments'; segments: number[]; icons: number; beep: boolean }
  | { kind: 'text'; text: string; beep: number };

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

  get attached(): boolean {
    return this.present;
  }

  sideOf(color: Color): ClockSideName {
    return color === 'white' ? this.whiteOn : otherSide(this.whiteOn);
  }

  face(at: number): ClockFaceState {
    const absentSide = { ms: 0, flag: false, perMove: false };
    if (!this.present) return { left: absentSide, right: absentSide, running: null, absent: true };
    if (this.host) return this.hostFace(at);
    const r = this.table.clockAt(at);
    if (!r) return { left: absentSide, right: absentSide, running: null, absent: true };
    const white = { ms: r.whiteMs, flag: r.whiteFlag, perMove: this.perMove };
    const black = { ms: r.blackMs, flag: r.blackFlag, perMove: this.perMove };
    const running = r.running === null ? null : this.sideOf(r.running);
    return this.whiteOn === 'left'
      ? { left: white, right: black, running }
      : { left: black, right: white, running };
  }

  /** SETNRUN content: left h m s, right h m s (binary), flags. */
  setAndRun(content: number[], at: number): boolean {
    if (!this.present || content.length < 7) return false;
    const ms = (h: number, m: number, s: number): number => (((h & 0x0f) * 60 + m) * 60 + s) * 1000;
    const flags = content[6]!;
    const running: ClockSideName | null = flags & 0x01 ? 'left' : flags & 0x02 ? 'right' : null;
    this.host = {
      leftMs: ms(content[0]!, content[1]!, content[2]!),
      rightMs: ms(content[3]!, content[4]!, content[5]!),
      running,
      paused: (flags & 0x04) !== 0,
      toggleOnLever: (flags & 0x08) !== 0,
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
