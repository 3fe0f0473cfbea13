import type { Role } from '../../protocols/feed/messages.ts';

/**
 * One delta frame as it went on the wire, kept for resuming clients. Encoded to UTF-8 once: the
 * same bytes go to every subscriber (ws would otherwise convert the string per client).
 */
export interface SentDelta {
  seq: number;
  frame: Buffer;
}

/**
 * The numbered delta stream of one scope for one audience (public and arbiter streams are
 * separate, so incidents never leave gaps in a public client's numbering). Keeps the last
 * `capacity` frames in a ring so a reconnecting client can be sent exactly what it missed.
 */
export class ScopeStream<Sub> {
  seq = 0;
  readonly subscribers = new Set<Sub>();
  private readonly ring: (SentDelta | undefined)[];
  private next = 0;
  private size = 0;

  constructor(
    readonly scope: string,
    readonly audience: Role,
    capacity: number,
  ) {
    this.ring = new Array<SentDelta | undefined>(Math.max(1, capacity));
  }

  /** Numbers the next delta; `build` makes its frame from the sequence number. */
  append(build: (seq: number) => string): SentDelta {
    this.seq += 1;
    const d = { seq: this.seq, frame: Buffer.from(build(this.seq), 'utf8') };
    this.ring[this.next] = d;
    this.next = (this.next + 1) % this.ring.length;
    this.size = Math.min(this.size + 1, this.ring.length);
    return d;
  }

  /**
   * The deltas after `seq`, oldest first; undefined when some of them are no longer kept (or `seq`
   * is from the future), in which case the client needs a fresh snapshot.
   */
  since(seq: number): SentDelta[] | undefined {
    if (seq > this.seq || seq < 0) return undefined;
    const missing = this.seq - seq;
    if (missing === 0) return [];
    if (missing > this.size) return undefined;
    const out: SentDelta[] = [];
    for (let i = missing; i >= 1; i--) {
      const idx = (this.next - i + this.ring.length * 2) % this.ring.length;
      out.push(this.ring[idx]!);
    }
    return out;
  }
}
