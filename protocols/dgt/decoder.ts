import { HEADER_SIZE, sizeRange } from './frame.ts';
import { decodeMessage } from './messages.ts';
import type { BoardMessage } from './messages.ts';

export interface DecodedFrame {
  message: BoardMessage;
  /** Exactly the frame's bytes (a private copy: safe to keep in the store). */
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

const SMALL_COPY = 16;

function copyBytes(buf: Uint8Array, from: number, to: number): Uint8Array {
  const n = to - from;
  const out = new Uint8Array(n);
  if (n <= SMALL_COPY) for (let k = 0; k < n; k++) out[k] = buf[from + k]!;
  else out.set(buf.subarray(from, to));
  return out;
}

/**
 * Streaming decoder for board → host bytes. Accepts any chunking; walks each chunk by index and
 * copies only complete frames, keeping at most one unfinished frame between pushes. Loss of sync
 * is handled the way the framing allows (dgtbrd.h): only id bytes have the MSB set, so
 * - bytes with the MSB clear outside a frame are garbage and skipped up to the next id byte;
 * - an id byte inside a frame's header or data means that frame was cut: it is dropped and
 *   decoding restarts at the new id byte;
 * - a stated length outside the id's sane range (see frame.ts) drops the id byte.
 * Nothing throws; everything dropped is counted in `stats`.
 */
export class DgtDecoder {
  readonly stats: DecoderStats = { frames: 0, discardedBytes: 0, resyncs: 0, badLengths: 0, truncated: 0 };

  /** The unfinished frame (from its id byte), carried to the next push. */
  private pending = new Uint8Array(0);
  private pendingLength = 0;
  /** How many bytes of the pending frame are already known to have the MSB clear. */
  private checked = 0;
  private discarding = false;

  /** Bytes held back waiting for the rest of a frame. */
  get pendingBytes(): number {
    return this.pendingLength;
  }

  push(chunk: Uint8Array): DecodedFrame[] {
    const out: DecodedFrame[] = [];
    if (chunk.length === 0) return out;
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
    const rest = this.walk(buf, len, out);
    this.keep(buf, rest, len);
    return out;
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

  private discard(n: number): void {
    this.stats.discardedBytes += n;
    if (!this.discarding) {
      this.discarding = true;
      this.stats.resyncs++;
    }
  }

  /** Decodes frames from buf[0..len); returns the index where an unfinished frame starts (or len). */
  private walk(buf: Uint8Array, len: number, out: DecodedFrame[]): number {
    const stats = this.stats;
    let i = 0;
    let checked = this.checked;
    outer: while (i < len) {
      const id = buf[i]!;
      if (id < 0x80) {
        let j = i + 1;
        while (j < len && buf[j]! < 0x80) j++;
        this.discard(j - i);
        i = j;
        checked = 0;
        continue;
      }
      if (i + 1 < len && buf[i + 1]! >= 0x80) {
        stats.truncated++;
        this.discard(1);
        i += 1;
        checked = 0;
        continue;
      }
      if (i + 2 < len && buf[i + 2]! >= 0x80) {
        stats.truncated++;
        this.discard(2);
        i += 2;
        checked = 0;
        continue;
      }
      if (i + HEADER_SIZE > len) break;
      const size = (buf[i + 1]! << 7) | buf[i + 2]!;
      const range = sizeRange(id);
      if (size < range.min || size > range.max) {
        stats.badLengths++;
        this.discard(1);
        i += 1;
        checked = 0;
        continue;
      }
      const end = i + size;
      const limit = end < len ? end : len;
      for (let k = i + (checked > HEADER_SIZE ? checked : HEADER_SIZE); k < limit; k++) {
        if (buf[k]! >= 0x80) {
          stats.truncated++;
          this.discard(k - i);
          i = k;
          checked = 0;
          continue outer;
        }
      }
      if (end > len) {
        this.checked = len - i;
        return i;
      }
      out.push({ message: decodeMessage(id, buf, i + HEADER_SIZE, end), raw: copyBytes(buf, i, end) });
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
