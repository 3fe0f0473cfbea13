import type { RawEventLog } from './raw-events.ts';
import type { RawEventInput, StoredRawEvent } from './types.ts';

export interface RawEventWriterOptions {
  /**
   * Receives each batch right after its transaction committed, in commit order. This is where the
   * runtime feeds the engine and broadcasts: nothing derived from an event can reach a spectator
   * before the event itself is durable.
   */
  onCommitted(batch: StoredRawEvent[]): void;
  /**
   * A commit failed (disk full, I/O error) — said once per spell of failures, not at every retry —
   * or `onCommitted` threw. On a failed commit the batch stays queued, in order, and is retried
   * after `retryMs` until it goes through.
   */
  onError?(error: unknown, phase: 'commit' | 'listener', pending: number): void;
  /** Commits go through again after a spell of failures; `committed`: the events that had waited. */
  onRecovered?(committed: number): void;
  /** Delay before retrying a failed commit (default 250 ms). */
  retryMs?: number;
  /**
   * Events held while commits fail (default 500,000: hours of a big hall's clock readings). Beyond
   * it the newest are not kept, counted in `dropped` (the boards' EEPROM logs still hold the moves).
   */
  maxPending?: number;
}

/**
 * Collects the frames the board drivers decode during one turn of the event loop and commits them
 * as one transaction on the next `setImmediate`: one fsync per tick instead of one per frame,
 * which is what keeps synchronous=FULL affordable (docs/store.md).
 */
/** Whether the store is taking what the boards send: for /health and the log. */
export interface WriterState {
  /** Epoch ms of the last successful commit, or null before the first. */
  lastCommitAt: number | null;
  /** The last commit's failure, cleared by the next success. */
  lastError: string | null;
  /** Events waiting for their commit. */
  pending: number;
  /** Events not kept because the queue was full while commits failed. */
  dropped: number;
}

export class RawEventWriter {
  private queue: RawEventInput[] = [];
  private lastCommitAt: number | null = null;
  private lastError: string | null = null;
  private dropped = 0;
  private scheduled: NodeJS.Immediate | NodeJS.Timeout | null = null;
  private closed = false;
  private committedBatches = 0;

  constructor(
    private readonly log: RawEventLog,
    private readonly options: RawEventWriterOptions,
  ) {}

  /** Queues one frame for this tick's transaction. */
  push(event: RawEventInput): void {
    if (this.closed) throw new Error('RawEventWriter.push after close()');
    if (this.queue.length >= (this.options.maxPending ?? 500_000)) {
      this.dropped++;
      return;
    }
    this.queue.push(event);
    if (this.scheduled === null) this.scheduled = setImmediate(() => this.tick());
  }

  /** Frames queued and not yet committed. */
  get pending(): number {
    return this.queue.length;
  }

  /** Transactions committed so far: a row pushed before the count moved on is on disk, and frozen. */
  get commits(): number {
    return this.committedBatches;
  }

  state(): WriterState {
    return { lastCommitAt: this.lastCommitAt, lastError: this.lastError, pending: this.queue.length, dropped: this.dropped };
  }

  /**
   * Commits everything queued now, delivers it to `onCommitted`, and returns it. Throws if the
   * commit fails (the frames stay queued). Used at shutdown and by callers that need a barrier.
   */
  flush(): StoredRawEvent[] {
    this.cancelSchedule();
    if (this.queue.length === 0) return [];
    const batch = this.queue;
    let stored: StoredRawEvent[];
    try {
      stored = this.log.appendRawEvents(batch);
    } catch (e) {
      this.lastError = String((e as Error)?.message ?? e);
      throw e;
    }
    this.lastCommitAt = Date.now();
    this.committedBatches++;
    if (this.lastError !== null) {
      this.lastError = null;
      this.options.onRecovered?.(batch.length);
    }
    this.queue = [];
    try {
      this.options.onCommitted(stored);
    } catch (e) {
      this.options.onError?.(e, 'listener', this.queue.length);
    }
    return stored;
  }

  /** Commits what is queued and refuses further frames. */
  close(): StoredRawEvent[] {
    const last = this.flush();
    this.closed = true;
    return last;
  }

  private tick(): void {
    this.scheduled = null;
    const failingAlready = this.lastError !== null;
    try {
      this.flush();
    } catch (e) {
      if (!failingAlready) this.options.onError?.(e, 'commit', this.queue.length);
      if (!this.closed && this.scheduled === null) {
        this.scheduled = setTimeout(() => this.tick(), this.options.retryMs ?? 250);
      }
    }
  }

  private cancelSchedule(): void {
    if (this.scheduled === null) return;
    clearImmediate(this.scheduled as NodeJS.Immediate);
    clearTimeout(this.scheduled as NodeJS.Timeout);
    this.scheduled = null;
  }
}
