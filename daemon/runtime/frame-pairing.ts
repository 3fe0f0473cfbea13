import type { BoardEvent } from '../../protocols/board-events.ts';
import type { RawEventInput } from '../store/types.ts';

/** Which board event each kind of board message decodes to (the others carry none). */
const CARRIED: Partial<Record<string, BoardEvent['type']>> = { 'board-dump': 'dump', 'field-update': 'field', 'clock-times': 'clock' };

/** A frame as a table's link reports it: a session's decoded board message, or a bus reply. */
export interface TableFrame {
  at: number;
  raw: Uint8Array;
  /** The decoded message's type when the frame carries one message (a session's frames). */
  messageType?: string;
}

/**
 * Turns one table's frames and board events into the raw event rows the store commits. The
 * evidence rule: every frame is stored with its exact bytes, and the board event decoded from a
 * frame rides in that frame's row, so the store can show which bytes said what. An event no frame
 * carries (a lost link, the second event of a dump that brings the board live, moves caught up
 * from the EEPROM log) gets a row of its own with no bytes.
 *
 * It only queues rows (`push`, the RawEventWriter's): engines and feeds see an event after its
 * row is committed, never from here (store before broadcast). An event rides in its frame's row
 * only while that row is still queued (the writer has committed nothing since).
 */
export class FramePairing {
  private last: RawEventInput | null = null;
  /** The writer's commit count when `last` was pushed. */
  private lastCommits = 0;
  private lastCarries: BoardEvent['type'] | 'any' | null = null;

  constructor(
    private readonly table: number,
    private readonly serial: () => string | null,
    private readonly push: (row: RawEventInput) => void,
    private readonly wallNow: () => number = Date.now,
    /** How many transactions the writer has committed (RawEventWriter.commits). */
    private readonly commits: () => number = () => 0,
  ) {}

  frame(f: TableFrame): void {
    this.last = { tableNumber: this.table, boardSerial: this.serial(), monoMs: f.at, wallMs: this.wallNow(), event: null, raw: f.raw };
    this.lastCommits = this.commits();
    // A bus reply's change list can carry several kinds of event; a session frame carries one.
    this.lastCarries = f.messageType === undefined ? 'any' : (CARRIED[f.messageType] ?? null);
    this.push(this.last);
  }

  event(ev: BoardEvent): void {
    const last = this.last;
    // Filled in only while the frame's row is still queued: no commit since it was pushed. An
    // event the session held back (the handshake dump held through an EEPROM catch-up that gave
    // up, readings held meanwhile) comes after its frame's row was committed; filled into it, it
    // would never be stored. A bus reply's events come a few microtasks after it, still queued.
    if (last && this.commits() === this.lastCommits && last.event === null && last.monoMs === ev.at && (this.lastCarries === 'any' || this.lastCarries === ev.type)) {
      last.event = ev;
      return;
    }
    this.push({ tableNumber: this.table, boardSerial: this.serial(), monoMs: ev.at, wallMs: this.wallNow(), event: ev, raw: new Uint8Array(0) });
  }
}
