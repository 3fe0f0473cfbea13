/**
 * Shared buffering for the streaming packet decoders (bus commands, bus replies, the host stream):
 * keeps unconsumed bytes between pushes and consumes by index, so a packet split over several
 * reads is decoded once it is whole.
 */
export abstract class PacketStream<R> {
  private buf = new Uint8Array(0);
  private len = 0;

  push(chunk: Uint8Array): R[] {
    const out: R[] = [];
    const need = this.len + chunk.length;
    if (need > this.buf.length) {
      const grown = new Uint8Array(Math.max(need, this.buf.length * 2, 64));
      grown.set(this.buf.subarray(0, this.len));
      this.buf = grown;
    }
    this.buf.set(chunk, this.len);
    this.len = need;
    const buf = this.buf;
    let i = 0;
    while (i < this.len) {
      const used = this.next(buf, i, this.len, out);
      if (used === 0) break;
      i += used;
    }
    if (i > 0) {
      buf.copyWithin(0, i, this.len);
      this.len -= i;
    }
    return out;
  }

  /** Bytes kept for a packet that is not complete yet. */
  get pendingBytes(): number {
    return this.len;
  }

  /** Consumes bytes at buf[i..len): returns how many (0 = wait for more). */
  protected abstract next(buf: Uint8Array, i: number, len: number, out: R[]): number;

  /** Length of the run of non-MSB bytes from i (garbage outside a packet). */
  static garbageRun(buf: ArrayLike<number>, i: number, len: number): number {
    let j = i;
    while (j < len && buf[j]! < 0x80) j++;
    return j - i;
  }

  /** Index of the first MSB-set byte in buf[from..to), or -1. */
  static idByteIn(buf: ArrayLike<number>, from: number, to: number): number {
    for (let k = from; k < to; k++) if (buf[k]! >= 0x80) return k;
    return -1;
  }
}
