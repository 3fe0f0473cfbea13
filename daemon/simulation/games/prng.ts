/**
 * A small seeded PRNG (mulberry32) so every generated game and noise script is reproducible from
 * its seed alone. Never Math.random: a failing case must replay bit-for-bit from (seed, game, model).
 */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = (seed >>> 0) ^ 0x9e3779b9;
    // Warm up so neighbouring seeds diverge at once.
    for (let i = 0; i < 4; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Picks an index with probability proportional to its weight (all weights ≥ 0, some > 0). */
  weighted(weights: readonly number[]): number {
    const total = weights.reduce((a, b) => a + b, 0);
    let r = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]!;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }

  /** A derived generator, so adding draws in one place does not shift another's sequence. */
  fork(salt: number): Prng {
    return new Prng(Math.imul(this.int(0, 0x7fffffff) ^ salt, 0x85ebca6b));
  }
}
