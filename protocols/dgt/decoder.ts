import { sizeRange } from './frame.ts';
import { decodeMessage } from './messages.ts';
import type { BoardMessage } from './messages.ts';

// Imported bindings are read through module-namespace getters once transpiled (tsx, vitest), which
// shows in the per-frame cost; the hot loop uses these locals instead.
const HEADER_SIZE = 3;
const decodeFrameData = decodeMessage;

export interface DecodedFrame {
  message: BoardMessage;
  /**
   * Exactly the frame's bytes: a copy owned by the decoder, never written again, so safe to keep
   * in the store. Small frames share an 8 KiB backing buffer with their neighbours (as Node's
   * Buffer pool does), so use raw.byteOffset / raw.length (or raw.slice()) rather than raw.buffer.
   */
  raw: Uint8Array;
}

export interface DecoderStats {
  /** Complete frames emitted. */
  frames: number;
  /** Bytes thrown away while looking for a frame start (garbage, cut frames, bad headers). */
  discardedBytes: number;
  /** Runs of discarded bytes: each is one loss of sync followed by a search for the next id byte. */
  resyncs: number;
  /** Id bytes whose stated length is impossible for that id. */
  badLengths: number;
  /** Frames cut short by a byte with the MSB set before their stated length was reached. */
  truncated: number;
}

/**
 * Why bytes were dropped: outside any frame; a frame cut short by the next id byte; an id byte
 * whose stated length is impossible for it.
 */
export type DiscardReason = 'garbage' | 'truncated' | 'bad-length';

export interface DgtDecoderOptions {
  /**
   * Receives every dropped byte run (a private copy) with the reason, so a recorder can keep
   * them next to the frames: nothing that came off the wire need be lost.
   */
  onDiscard?: (bytes: Uint8Array, reason: DiscardReason) => void;
}

/**
 * Raw copies come from 8 KiB slabs: one typed-array view per frame instead of one allocation per
 * frame, which is most of the per-frame cost at millions of frames per second.
 */
const SLAB_SIZE = 8192;
const SLAB_MAX_FRAME = 512;

/** Per-id size limits as flat tables (a Map lookup per frame shows in the benchmark). */
const MIN_SIZE = new Int32Array(256);
const MAX_SIZE = new Int32Array(256);
for (let id = 0x80; id < 0x100; id++) {
  const r = sizeRange(id);
  MIN_SIZE[id] = r.min;
  MAX_SIZE[id] = r.max;
}

/**
 * Streaming decoder for board → host bytes. Accepts any chunking; walks each chunk by index and
 * copies only complete frames, keeping at most one unfinished frame between pushes. Loss of sync
 * is handled the way the framing allows (dgtbrd.h): only id bytes have the MSB set, so
 * - bytes with the MSB clear outside a frame are garbage and skipped up to the next id byte;
 * - an id byte inside a frame's header or data means that frame was cut: it is dropped and
 *   decoding restarts at the new id byte;
 * - a stated length outside the id's sane range (see frame.ts) drops the id byte.
 * No input makes it throw; everything dropped is counted in `stats` and, with `onDiscard`, handed
 * over with its reason.
 */
export class DgtDecoder {
  readonly stats: DecoderStats = { frames: 0, discardedBytes: 0, resyncs: 0, badLengths: 0, truncated: 0 };

  /** The unfinished frame (from its id byte), carried to the next push. */
  private pending = new Uint8Array(0);
  private pendingLength = 0;
  /** How many bytes of the pending frame are already known to have the MSB clear. */
  private checked = 0;
  private discarding = false;
  private slab = new Uint8Array(SLAB_SIZE);
  private slabBuffer: ArrayBuffer = this.slab.buffer as ArrayBuffer;
  private slabUsed = SLAB_SIZE;
  private callbackFailure: { error: unknown } | undefined;
  private readonly onDiscard: DgtDecoderOptions['onDiscard'];

  constructor(options: DgtDecoderOptions = {}) {
    this.onDiscard = options.onDiscard;
  }

  /** Bytes held back waiting for the rest of a frame. */
  get pendingBytes(): number {
    return this.pendingLength;
  }

  push(chunk: Uint8Array): DecodedFrame[] {
    const out: DecodedFrame[] = [];
    this.feed(chunk, out, null);
    this.rethrowCallbackFailure();
    return out;
  }

  /**
   * Like push, but hands each frame to `onFrame` as soon as it is decoded. For big bursts (replay
   * of stored bytes) this keeps frames short-lived instead of holding a whole chunk's worth
   * (about 1.4× faster on 64 KiB chunks in the benchmark). If `onFrame` throws, the rest of the
   * chunk is still decoded (and handed on), then the first error is re-thrown.
   */
  pushEach(chunk: Uint8Array, onFrame: (frame: DecodedFrame) => void): void {
    this.feed(chunk, null, onFrame);
    this.rethrowCallbackFailure();
  }

  /**
   * A throwing onFrame/onDiscard is the consumer's bug, not bad input: the whole chunk is still
   * decoded, so the decoder stays consistent for the next push, then the first error is re-raised.
   */
  private rethrowCallbackFailure(): void {
    const failure = this.callbackFailure;
    if (failure !== undefined) {
      this.callbackFailure = undefined;
      throw failure.error;
    }
  }

  private feed(chunk: Uint8Array, out: DecodedFrame[] | null, onFrame: ((frame: DecodedFrame) => void) | null): void {
    if (chunk.length === 0) return;
    let buf: Uint8Array;
    let len: number;
    if (this.pendingLength === 0) {
      buf = chunk;
      len = chunk.length;
      this.checked = 0;
    } else {
      this.append(chunk);
      buf = this.pending;
      len = this.pendingLength;
    }
    const rest = this.walk(buf, len, out, onFrame);
    this.keep(buf, rest, len);
  }

  private append(chunk: Uint8Array): void {
    const need = this.pendingLength + chunk.length;
    if (need > this.pending.length) {
      const grown = new Uint8Array(Math.max(need, this.pending.length * 2, 64));
      grown.set(this.pending.subarray(0, this.pendingLength));
      this.pending = grown;
    }
    this.pending.set(chunk, this.pendingLength);
    this.pendingLength = need;
  }

  private keep(buf: Uint8Array, from: number, len: number): void {
    const n = len - from;
    if (n === 0) {
      this.pendingLength = 0;
      this.checked = 0;
      return;
    }
    if (buf === this.pending) {
      if (from > 0) this.pending.copyWithin(0, from, len);
    } else {
      if (n > this.pending.length) this.pending = new Uint8Array(Math.max(n, 64));
      this.pending.set(buf.subarray(from, len));
    }
    this.pendingLength = n;
  }

  private copyRaw(buf: Uint8Array, from: number, to: number): Uint8Array {
    const n = to - from;
    if (n > SLAB_MAX_FRAME) {
      const out = new Uint8Array(n);
      out.set(buf.subarray(from, to));
      return out;
    }
    if (this.slabUsed + n > SLAB_SIZE) {
      this.slabBuffer = new ArrayBuffer(SLAB_SIZE);
      this.slab = new Uint8Array(this.slabBuffer);
      this.slabUsed = 0;
    }
    const slab = this.slab;
    const at = this.slabUsed;
    for (let k = 0; k < n; k++) slab[at + k] = buf[from + k]!;
    this.slabUsed = at + n;
    return new Uint8Array(this.slabBuffer, at, n);
  }

  private discard(buf: Uint8Array, from: number, n: number, reason: DiscardReason): void {
    if (this.onDiscard !== undefined) {
      try {
        this.onDiscard(buf.slice(from, from + n), reason);
      } catch (error) {
        this.callbackFailure ??= { error };
      }
    }
    this.stats.discardedBytes += n;
    if (!this.discarding) {
      this.discarding = true;
      this.stats.resyncs++;
    }
  }

  /** Decodes frames from buf[0..len); returns the index where an unfinished frame starts (or len). */
  private walk(buf: Uint8Array, len: number, out: DecodedFrame[] | null, onFrame: ((frame: DecodedFrame) => void) | null): number {
    const stats = this.stats;
    let i = 0;
    let checked = this.checked;
    outer: while (i < len) {
      const id = buf[i]!;
      if (id < 0x80) {
        let j = i + 1;
        while (j < len && buf[j]! < 0x80) j++;
        this.discard(buf, i, j - i, 'garbage');
        i = j;
        checked = 0;
        continue;
      }
      if (i + 1 < len && buf[i + 1]! >= 0x80) {
        stats.truncated++;
        this.discard(buf, i, 1, 'truncated');
        i += 1;
        checked = 0;
        continue;
      }
      if (i + 2 < len && buf[i + 2]! >= 0x80) {
        stats.truncated++;
        this.discard(buf, i, 2, 'truncated');
        i += 2;
        checked = 0;
        continue;
      }
      if (i + HEADER_SIZE > len) break;
      const size = (buf[i + 1]! << 7) | buf[i + 2]!;
      if (size < MIN_SIZE[id]! || size > MAX_SIZE[id]!) {
        stats.badLengths++;
        this.discard(buf, i, 1, 'bad-length');
        i += 1;
        checked = 0;
        continue;
      }
      const end = i + size;
      const limit = end < len ? end : len;
      for (let k = i + (checked > HEADER_SIZE ? checked : HEADER_SIZE); k < limit; k++) {
        if (buf[k]! >= 0x80) {
          stats.truncated++;
          this.discard(buf, i, k - i, 'truncated');
          i = k;
          checked = 0;
          continue outer;
        }
      }
      if (end > len) {
        this.checked = len - i;
        return i;
      }
      const decoded: DecodedFrame = { message: decodeFrameData(id, buf, i + HEADER_SIZE, end), raw: this.copyRaw(buf, i, end) };
      if (out !== null) out.push(decoded);
      else {
        try {
          onFrame!(decoded);
        } catch (error) {
          this.callbackFailure ??= { error };
        }
      }
      stats.frames++;
      this.discarding = false;
      checked = 0;
      i = end;
    }
    this.checked = 0;
    return i;
  }
}

/** Decodes a complete byte string in one go (tests, replay of stored raw bytes). */
export function decodeAll(bytes: Uint8Array): { frames: DecodedFrame[]; stats: DecoderStats; pendingBytes: number } {
  const decoder = new DgtDecoder();
  const frames = decoder.push(bytes);
  return { frames, stats: decoder.stats, pendingBytes: decoder.pendingBytes };
}
