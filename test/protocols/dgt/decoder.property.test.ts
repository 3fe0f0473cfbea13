import { describe, expect, it } from 'vitest';
import { DgtDecoder } from '../../../protocols/dgt/index.ts';
import type { DecodedFrame } from '../../../protocols/dgt/index.ts';
import { encodeStream, randomChunks, randomMessage, Rng } from './stream-gen.ts';

function decodeChunks(chunks: Uint8Array[]): { frames: DecodedFrame[]; decoder: DgtDecoder } {
  const decoder = new DgtDecoder();
  const frames: DecodedFrame[] = [];
  for (const c of chunks) for (const f of decoder.push(c)) frames.push(f);
  return { frames, decoder };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Every byte is accounted for: emitted in a frame, discarded (counted), or still pending. */
function expectConservation(frames: DecodedFrame[], decoder: DgtDecoder, total: number): void {
  const inFrames = frames.reduce((n, f) => n + f.raw.length, 0);
  expect(inFrames + decoder.stats.discardedBytes + decoder.pendingBytes).toBe(total);
  expect(decoder.stats.frames).toBe(frames.length);
}

const SEEDS = [1, 2, 3, 0xdead, 20261121];
const MESSAGES = 4000;

describe('DgtDecoder on long recorded streams', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: clean stream in random chunks decodes to exactly the encoded messages`, () => {
      const r = new Rng(seed);
      const stream = encodeStream(Array.from({ length: MESSAGES }, () => randomMessage(r)));
      const { frames, decoder } = decodeChunks(randomChunks(r, stream.bytes));
      expect(frames.map((f) => f.message)).toEqual(stream.messages);
      frames.forEach((f, k) => {
        if (!sameBytes(f.raw, stream.bytes.subarray(stream.starts[k]!, stream.starts[k + 1]!))) {
          throw new Error(`raw bytes of frame ${k} differ from the encoded message`);
        }
      });
      expect(decoder.stats).toEqual({ frames: MESSAGES, discardedBytes: 0, resyncs: 0, badLengths: 0, truncated: 0 });
      expect(decoder.pendingBytes).toBe(0);
    });

    it(`seed ${seed}: garbage at random places loses only the messages it touched`, () => {
      const r = new Rng(seed * 7919 + 1);
      const stream = encodeStream(Array.from({ length: MESSAGES }, () => randomMessage(r)));
      // Insertion points in the clean stream, ascending; each gets 1–24 random bytes.
      const insertions = new Map<number, Uint8Array>();
      const count = r.int(50, 200);
      for (let g = 0; g < count; g++) insertions.set(r.int(0, stream.bytes.length), r.bytes(r.int(1, 24)));
      const points = [...insertions.keys()].sort((a, b) => a - b);

      const touched = new Set<number>();
      let k = 0;
      for (const p of points) {
        while (stream.starts[k + 1]! <= p) k++;
        // Inserted strictly inside message k (between its first and last byte) damages it;
        // inserted at its first byte it sits between messages k-1 and k.
        if (p > stream.starts[k]! && p < stream.starts[k + 1]!) touched.add(k);
        if (k >= MESSAGES) break;
      }

      const parts: Uint8Array[] = [];
      let prev = 0;
      let garbageBytes = 0;
      for (const p of points) {
        parts.push(stream.bytes.subarray(prev, p), insertions.get(p)!);
        garbageBytes += insertions.get(p)!.length;
        prev = p;
      }
      parts.push(stream.bytes.subarray(prev));
      const noisy = new Uint8Array(stream.bytes.length + garbageBytes);
      let at = 0;
      for (const part of parts) {
        noisy.set(part, at);
        at += part.length;
      }

      const { frames, decoder } = decodeChunks(randomChunks(r, noisy));
      expectConservation(frames, decoder, noisy.length);
      expect(decoder.stats.discardedBytes).toBeGreaterThan(0);
      expect(decoder.stats.resyncs).toBeGreaterThan(0);

      // Frames and dropped runs, in the order the decoder saw them, rebuild the input exactly.
      const pieces: Uint8Array[] = [];
      const replay = new DgtDecoder({ onDiscard: (bytes) => pieces.push(bytes) });
      for (const c of randomChunks(r, noisy)) replay.pushEach(c, (f) => pieces.push(f.raw));
      const rebuilt = Buffer.concat(pieces);
      expect(rebuilt.length).toBe(noisy.length - replay.pendingBytes);
      expect(rebuilt.equals(noisy.subarray(0, rebuilt.length))).toBe(true);

      // Every untouched message comes out, in order, byte-exact and equal as a message. Extra
      // frames may appear (garbage that happens to form a valid frame, damaged messages).
      let j = 0;
      let matched = 0;
      const missing: number[] = [];
      for (let m = 0; m < MESSAGES; m++) {
        if (touched.has(m)) continue;
        const want = stream.bytes.subarray(stream.starts[m]!, stream.starts[m + 1]!);
        let found = -1;
        for (let q = j; q < frames.length; q++) {
          if (sameBytes(frames[q]!.raw, want)) {
            found = q;
            break;
          }
        }
        if (found < 0) {
          missing.push(m);
          continue;
        }
        expect(frames[found]!.message).toEqual(stream.messages[m]);
        j = found + 1;
        matched++;
      }
      expect(missing).toEqual([]);
      expect(matched).toBe(MESSAGES - touched.size);
      // Garbage can add frames, but not many: each insertion is at most 24 bytes.
      expect(frames.length - matched).toBeLessThanOrEqual(touched.size + Math.ceil(garbageBytes / 3));
    });
  }

  it('pure random bytes in random chunks never throw and are fully accounted for', () => {
    for (const seed of [11, 12, 13, 14]) {
      const r = new Rng(seed);
      const bytes = r.bytes(256 * 1024);
      const { frames, decoder } = decodeChunks(randomChunks(r, bytes));
      expectConservation(frames, decoder, bytes.length);
      expect(decoder.stats.discardedBytes).toBeGreaterThan(0);
    }
  });

  it('random bytes biased to headers (id, 0x00, plausible length) never throw', () => {
    const r = new Rng(99);
    const ids = [0x86, 0x8d, 0x8e, 0x8f, 0x90, 0x91, 0x92, 0x93, 0xa0, 0xa2, 0x96];
    const bytes = new Uint8Array(200_000);
    for (let i = 0; i < bytes.length; i++) {
      const k = r.int(0, 9);
      bytes[i] = k < 2 ? r.pick(ids) : k < 4 ? 0 : k < 6 ? r.pick([5, 8, 10, 13, 67, 7, 12, 3, 4]) : r.int(0, 0x7f);
    }
    const { frames, decoder } = decodeChunks(randomChunks(r, bytes));
    expectConservation(frames, decoder, bytes.length);
    expect(decoder.stats.frames).toBeGreaterThan(0);
    expect(decoder.stats.badLengths + decoder.stats.truncated).toBeGreaterThan(0);
  });
});
