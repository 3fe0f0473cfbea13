import type { BatteryReading } from '../../protocols/feed/hall.ts';
import type { BoardMessage } from '../board/wire.ts';
import type { SessionState } from '../board/session.ts';
import type { TableLinkEvent } from '../runtime/bus-tables.ts';

/** What /health says of a table's board connection. */
export type TableHealthState = SessionState | 'searching' | 'out-of-step';

/**
 * What one table's link has shown lately, for /health and the log: when it last said anything,
 * whether its periodic dump disagreed with the board the host holds (out of step: the live view
 * may be wrong until the board is read again), and how many bytes of line noise its decoder threw away.
 */
export class TableWatch {
  lastEventAt: number | null = null;
  /** Squares a periodic dump showed differently from the tracked board; null while in step. */
  outOfStep: number | null = null;
  /** Line noise already reported in the log. */
  reportedBytes = 0;
  /** From the last clock reading (its "no clock" bit); null before any. */
  clockConnected: boolean | null = null;
  /** The last battery status the board sent (only Bluetooth boards have one). */
  battery: BatteryReading | null = null;
  private retryingSince: number | null = null;
  /** Bytes discarded on earlier connections, and on this one (each connection has a new decoder). */
  private earlierBytes = 0;
  private currentBytes = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Notes one event; returns 'first-retry' the first time the link starts retrying (warn once, then quiet). */
  see(e: TableLinkEvent): 'first-retry' | null {
    switch (e.type) {
      case 'frame':
        this.lastEventAt = this.now();
        if ('message' in e) {
          if (e.message.type === 'battery') this.battery = { percent: e.message.percent, charging: e.message.charging, at: this.now() };
          else this.seeClock(e.message);
        } else if (e.bus.ok && e.bus.reply.type === 'bwtime') this.seeClock(e.bus.reply.clock);
        return null;
      case 'board':
        this.lastEventAt = this.now();
        if (e.type === 'board' && e.event.type === 'dump') this.outOfStep = null;
        return null;
      case 'drift':
        this.outOfStep = e.fields.length;
        return null;
      case 'decoder-stats':
        this.currentBytes = e.stats.discardedBytes;
        return null;
      case 'state':
        if (e.state === 'connecting') {
          this.earlierBytes += this.currentBytes;
          this.currentBytes = 0;
        }
        if (e.state === 'live') {
          this.retryingSince = null;
          this.outOfStep = null;
          return null;
        }
        if (e.state === 'retrying') {
          if (this.retryingSince !== null) return null;
          this.retryingSince = this.now();
          return 'first-retry';
        }
        return null;
      default:
        return null;
    }
  }

  /** A clock reading says whether a clock is on the board; its acknowledgements say nothing of that. */
  private seeClock(m: BoardMessage): void {
    if (m.type === 'clock-times') this.clockConnected = !m.status.noClock;
  }

  /** Bytes of line noise the decoders threw away on this table, over all its connections. */
  get discardedBytes(): number {
    return this.earlierBytes + this.currentBytes;
  }

  /** The state /health shows: the link's own, unless it is live but out of step with the board. */
  state(link: SessionState | 'searching'): TableHealthState {
    return link === 'live' && this.outOfStep !== null ? 'out-of-step' : link;
  }

  sinceLastEventMs(): number | null {
    return this.lastEventAt === null ? null : this.now() - this.lastEventAt;
  }
}
