import { describe, expect, it } from 'vitest';
import { DgtDecoder, encodeMessage, frame, sizeRange, MSG, MAX_FRAME_SIZE, UNKNOWN_SIZE } from '../../../protocols/dgt/index.ts';
import type { DecodedFrame } from '../../../protocols/dgt/index.ts';
import { hex, toHex } from './hex.ts';
import { randomEeprom, Rng } from './stream-gen.ts';

const FU = '8e 00 05 0c 03'; // field-update field 12 (e7), white knight
const FU2 = '8e 00 05 24 01';

function run(...chunks: string[]): { frames: DecodedFrame[]; decoder: DgtDecoder } {
  const decoder = new DgtDecoder();
  const frames = chunks.flatMap((c) => decoder.push(hex(c)));
  return { frames, decoder };
}

describe('frame table', () => {
  it('fixed sizes of the reference; variable ones bounded', () => {
    expect(sizeRange(MSG.BOARD_DUMP)).toEqual({ min: 67, max: 67 });
    expect(sizeRange(MSG.BWTIME)).toEqual({ min: 10, max: 10 });
    expect(sizeRange(MSG.FIELD_UPDATE)).toEqual({ min: 5, max: 5 });
    expect(sizeRange(MSG.BUSADRES)).toEqual({ min: 5, max: 5 });
    expect(sizeRange(MSG.SERIALNR)).toEqual({ min: 8, max: 8 });
    expect(sizeRange(MSG.VERSION)).toEqual({ min: 5, max: 5 });
    expect(sizeRange(MSG.LONG_SERIALNR)).toEqual({ min: 13, max: 13 });
    expect(sizeRange(MSG.BATTERY_STATUS)).toEqual({ min: 7, max: 12 });
    expect(sizeRange(MSG.TRADEMARK).max).toBe(259);
    expect(sizeRange(MSG.EE_MOVES)).toEqual({ min: 4, max: 0x1f04 });
    expect(sizeRange(0x96)).toEqual(UNKNOWN_SIZE);
    expect(MAX_FRAME_SIZE).toBe(0x3fff);
  });

  it('length is 14 bits in two 7-bit bytes and includes the 3 header bytes', () => {
    expect(toHex(frame(0x92, new Array(300).fill(0x41)).subarray(0, 3))).toBe('92 02 2f'); // 303 = 2·128 + 47
    expect(toHex(frame(0x8e, [1, 2]))).toBe('8e 00 05 01 02');
  });
});

describe('DgtDecoder: framing and resynchronisation', () => {
  it('raw is exactly the frame bytes, and a private copy', () => {
    const input = hex(`${FU} ${FU2}`);
    const d = new DgtDecoder();
    const frames = d.push(input);
    input.fill(0xee);
    expect(frames.map((f) => toHex(f.raw))).toEqual([FU, FU2]);
    expect(frames[0]!.message).toEqual({ type: 'field-update', field: 12, piece: 3 });
  });

  it('skips garbage (MSB clear) before a frame: counted as one resync', () => {
    const { frames, decoder } = run(`01 02 7f ${FU}`);
    expect(frames).toHaveLength(1);
    expect(decoder.stats).toEqual({ frames: 1, discardedBytes: 3, resyncs: 1, badLengths: 0, truncated: 0 });
  });

  it('garbage split across chunks is one resync', () => {
    const { decoder } = run('01 02', '03', `04 ${FU}`);
    expect(decoder.stats).toMatchObject({ discardedBytes: 4, resyncs: 1, frames: 1 });
  });

  it('a new id byte inside the data means the previous message was cut', () => {
    const { frames, decoder } = run(`8d 00 0a 21 23 ${FU}`);
    expect(frames.map((f) => f.message.type)).toEqual(['field-update']);
    expect(decoder.stats).toEqual({ frames: 1, discardedBytes: 5, resyncs: 1, badLengths: 0, truncated: 1 });
  });

  it('a cut is noticed across chunk boundaries too', () => {
    const { frames, decoder } = run('86 00 43 00 00 00', '01 02', `${FU}`);
    expect(frames).toHaveLength(1);
    expect(decoder.stats).toMatchObject({ truncated: 1, discardedBytes: 8 });
  });

  it('an id byte in the length bytes cuts the header', () => {
    expect(run(`8e ${FU}`).decoder.stats).toMatchObject({ truncated: 1, discardedBytes: 1, frames: 1 });
    expect(run(`8e 00 ${FU}`).decoder.stats).toMatchObject({ truncated: 1, discardedBytes: 2, frames: 1 });
    expect(run('8e', '00', FU).decoder.stats).toMatchObject({ truncated: 1, discardedBytes: 2, frames: 1 });
  });

  it('an impossible length for the id drops the id byte, then its would-be data as garbage', () => {
    const { frames, decoder } = run(`8e 00 09 0c 03 ${FU2}`);
    expect(frames.map((f) => toHex(f.raw))).toEqual([FU2]);
    expect(decoder.stats).toEqual({ frames: 1, discardedBytes: 5, resyncs: 1, badLengths: 1, truncated: 0 });
    // Too short for BWTIME, too long for an unknown id.
    expect(run('8d 00 05 01 02').decoder.stats.badLengths).toBe(1);
    expect(run('96 7f 7f').decoder.stats.badLengths).toBe(1);
    expect(run('8f 00 03').decoder.stats.badLengths).toBe(1);
  });

  it('a garbage id byte with a plausible length waits, then is cut by the next real message', () => {
    const { frames, decoder } = run('8d 00 0a 01', FU);
    expect(frames).toHaveLength(1);
    expect(decoder.stats.truncated).toBe(1);
    expect(decoder.pendingBytes).toBe(0);
  });

  it('an unfinished frame is held as pending, then completed', () => {
    const d = new DgtDecoder();
    expect(d.push(hex('8e 00 05 0c'))).toEqual([]);
    expect(d.pendingBytes).toBe(4);
    expect(d.push(hex(`03 ${FU2.slice(0, 5)}`)).map((f) => toHex(f.raw))).toEqual([FU]);
    expect(d.pendingBytes).toBe(2);
  });

  it('every one-byte chunking of a mixed stream gives the same frames', () => {
    const msgs = [
      encodeMessage({ type: 'board-dump', board: new Array(64).fill(0) }),
      hex(FU),
      encodeMessage({ type: 'ee-moves', entries: randomEeprom(new Rng(4), 2500) }),
      encodeMessage({ type: 'clock-zero' }),
    ];
    const bytes = Uint8Array.from(msgs.flatMap((m) => [...m]));
    expect(bytes.length).toBeGreaterThan(5000);
    const d = new DgtDecoder();
    const frames = Array.from(bytes).flatMap((b) => d.push(Uint8Array.of(b)));
    expect(frames.map((f) => toHex(f.raw))).toEqual(msgs.map(toHex));
    expect(d.stats).toEqual({ frames: 4, discardedBytes: 0, resyncs: 0, badLengths: 0, truncated: 0 });
  });

  it('empty chunks are harmless', () => {
    const d = new DgtDecoder();
    expect(d.push(new Uint8Array(0))).toEqual([]);
    d.push(hex('8e 00'));
    expect(d.push(new Uint8Array(0))).toEqual([]);
    expect(d.push(hex('05 0c 03'))).toHaveLength(1);
  });

  it('accepts Node Buffers and does not alias them', () => {
    const buf = Buffer.from(hex(`${FU} 8e 00 05`));
    const d = new DgtDecoder();
    const [f] = d.push(buf);
    buf.fill(0);
    expect(toHex(f!.raw)).toBe(FU);
    expect(d.push(Buffer.from([0x24, 0x01]))[0]!.message).toEqual({ type: 'field-update', field: 36, piece: 1 });
  });

  it('pushEach hands on the same frames as push, across chunk boundaries', () => {
    const bytes = hex(`01 ${FU} 8d 00 0a 21 23 ${FU2} ${FU}`);
    const a = new DgtDecoder();
    const viaPush = [a.push(bytes.subarray(0, 4)), a.push(bytes.subarray(4))].flat();
    const b = new DgtDecoder();
    const viaEach: DecodedFrame[] = [];
    b.pushEach(bytes.subarray(0, 4), (f) => viaEach.push(f));
    b.pushEach(bytes.subarray(4), (f) => viaEach.push(f));
    expect(viaEach).toEqual(viaPush);
    expect(b.stats).toEqual(a.stats);
  });

  it('a throwing pushEach consumer gets its error back once, and the decoder stays consistent', () => {
    const d = new DgtDecoder();
    const seen: string[] = [];
    expect(() =>
      d.pushEach(hex(`${FU} ${FU2} 8e 00`), (f) => {
        seen.push(toHex(f.raw));
        throw new Error('consumer failed');
      }),
    ).toThrow('consumer failed');
    expect(seen).toEqual([FU, FU2]);
    expect(d.pendingBytes).toBe(2);
    expect(d.push(hex('05 0c 03')).map((f) => toHex(f.raw))).toEqual([FU]);
    expect(d.stats).toMatchObject({ frames: 3, discardedBytes: 0 });
  });

  it('onDiscard receives every dropped run with its reason; together with the frames that is every byte', () => {
    const dropped: [string, string][] = [];
    const d = new DgtDecoder({ onDiscard: (bytes, reason) => dropped.push([reason, toHex(bytes)]) });
    const input = hex(`01 02 8d 00 0a 21 8e 00 09 ${FU} 8e 8e 00 05 24 01`);
    const frames = d.push(input);
    expect(dropped).toEqual([
      ['garbage', '01 02'],
      ['truncated', '8d 00 0a 21'],
      ['bad-length', '8e'],
      ['garbage', '00 09'],
      ['truncated', '8e'],
    ]);
    expect(frames.map((f) => toHex(f.raw))).toEqual([FU, FU2]);
    expect(d.stats).toEqual({ frames: 2, discardedBytes: 10, resyncs: 2, badLengths: 1, truncated: 2 });
    expect(dropped.reduce((n, [, h]) => n + h.split(' ').length, 0) + frames.reduce((n, f) => n + f.raw.length, 0)).toBe(input.length);
  });
});
