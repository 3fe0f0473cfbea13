import { makeSquare } from 'chessops/util';
import { PIECE, fieldToSquare } from '../../protocols/dgt/squares.ts';
import type { SquareDifference } from './game-events.ts';

/** `length` pseudo-random 32-bit keys from `seed` (xorshift32): Zobrist tables, the same on every run. */
export function randomKeys(length: number, seed: number): Int32Array {
  const keys = new Int32Array(length);
  let x = seed | 0;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    keys[i] = x;
  }
  return keys;
}

/** 32-bit Zobrist keys per (square, code): a board's placement hash, updated per field change. */
const ZOBRIST = (() => {
  const z = randomKeys(64 * 16, 0x9e3779b9);
  // An empty square adds nothing: a board's hash is that of its pieces.
  for (let i = 0; i < z.length; i += 16) z[i] = 0;
  return z;
})();

export function placementHash(codes: ArrayLike<number>): number {
  let h = 0;
  for (let s = 0; s < 64; s++) h ^= ZOBRIST[s * 16 + codes[s]!]!;
  return h;
}

/** Squares where two placements differ (stops past five: no move changes more). */
export function squaresApart(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let s = 0; s < 64 && out.length <= 4; s++) if (a[s] !== b[s]) out.push(s);
  return out;
}

/** A square's last change as the board reported it: the code it held before, and when (sq -1: none). */
export interface FieldChange {
  sq: number;
  was: number;
  at: number;
}

/**
 * The board as its sensors report it, kept both as the board numbers it (`raw`, by DGT field) and
 * oriented into chess squares (`seen`, chessops Square; turned round when the board was set up
 * reversed), with what the engine asks of it on every event in O(1): its placement hash, how many
 * squares are occupied, and which squares differ from the position the game expects.
 */
export class ObservedBoard {
  readonly raw = new Uint8Array(64);
  readonly seen = new Uint8Array(64);
  hash = 0;
  occupied = 0;
  readonly mismatch = new Uint8Array(64);
  mismatches = 0;
  /** Event sequence number and time at which each square was last seen to empty. */
  readonly vacatedSeq = new Int32Array(64);
  readonly vacatedAt = new Float64Array(64);
  /** Event sequence number at which a piece was last put down on each square. */
  readonly placedSeq = new Int32Array(64);
  /** The last square that changed (updated in place: no allocation per event). */
  readonly lastChange: FieldChange = { sq: -1, was: 0, at: 0 };
  reversed = false;
  /** Since the board last showed the expected position, a piece stood where it does not belong. */
  displaced = false;
  private expected: Uint8Array | undefined;

  orient(field: number): number {
    const sq = fieldToSquare(field);
    return this.reversed ? 63 - sq : sq;
  }

  set(sq: number, code: number, seq: number, at: number): void {
    const old = this.seen[sq]!;
    if (old === code) return;
    this.seen[sq] = code;
    this.hash ^= ZOBRIST[sq * 16 + old]! ^ ZOBRIST[sq * 16 + code]!;
    this.lastChange.sq = sq;
    this.lastChange.was = old;
    this.lastChange.at = at;
    if (old === PIECE.EMPTY) this.occupied++;
    if (code !== PIECE.EMPTY) this.placedSeq[sq] = seq;
    if (code === PIECE.EMPTY) {
      this.occupied--;
      this.vacatedSeq[sq] = seq;
      this.vacatedAt[sq] = at;
    }
    const exp = this.expected;
    if (!exp) return;
    const differs = code !== exp[sq] ? 1 : 0;
    if (differs && code !== PIECE.EMPTY) this.displaced = true;
    this.mismatches += differs - this.mismatch[sq]!;
    this.mismatch[sq] = differs;
  }

  /** A piece was put down after event `seq` on a square `codes` has empty, other than those of `except`. */
  placedAfter(seq: number, codes: ArrayLike<number>, except: readonly number[]): boolean {
    for (let sq = 0; sq < 64; sq++) if (this.placedSeq[sq]! > seq && codes[sq] === PIECE.EMPTY && !except.includes(sq)) return true;
    return false;
  }

  /** Turn the board round (or back): `seen` is rebuilt from `raw`. */
  reorient(reversed: boolean): void {
    if (reversed === this.reversed) return;
    this.reversed = reversed;
    this.seen.fill(0);
    this.hash = 0;
    this.occupied = 0;
    for (let f = 0; f < 64; f++) {
      const sq = this.orient(f);
      const code = this.raw[f]!;
      this.seen[sq] = code;
      this.hash ^= ZOBRIST[sq * 16 + code]!;
      if (code !== PIECE.EMPTY) this.occupied++;
    }
    this.expect(this.expected);
  }

  /** The position the game now expects (board codes by chessops Square). */
  expect(codes: Uint8Array | undefined): void {
    this.expected = codes;
    this.displaced = false;
    this.mismatches = 0;
    for (let s = 0; s < 64; s++) {
      const d = codes && this.seen[s] !== codes[s] ? 1 : 0;
      this.mismatch[s] = d;
      this.mismatches += d;
    }
  }

  differences(): SquareDifference[] {
    const out: SquareDifference[] = [];
    const exp = this.expected;
    if (!exp) return out;
    for (let s = 0; s < 64; s++) if (this.mismatch[s]) out.push({ square: makeSquare(s), expected: exp[s]!, seen: this.seen[s]! });
    return out;
  }

  /** Squares where the board differs from `codes` (stops past five: no move changes more). */
  diffFrom(codes: Uint8Array): number[] {
    return squaresApart(this.seen, codes);
  }

  equals(codes: Uint8Array): boolean {
    for (let s = 0; s < 64; s++) if (this.seen[s] !== codes[s]) return false;
    return true;
  }
}
