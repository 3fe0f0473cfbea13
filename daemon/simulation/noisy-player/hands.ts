import type { Color, Piece, Square } from 'chessops';
import { PIECE, pieceToCode, squareToField, type DgtField, type PieceCode } from '../../../protocols/dgt/squares.ts';
import type { PhysicalAction } from '../emulator/physical.ts';
import { Tabletop, type TabletopOptions } from '../emulator/tabletop.ts';
import type { Prng } from '../games/prng.ts';

/**
 * Writes a physical script in game terms (chessops squares and pieces) and keeps a Tabletop of its
 * own in step, so every generator can ask what physically stands where. Times advance only forward.
 * `reversed`: the board is turned round (Black's pieces on the board's ranks 1–2), so chess square s
 * sits on the board's square 63 − s.
 */
export class Hands {
  readonly actions: PhysicalAction[] = [];
  private readonly table: Tabletop;
  t = 0;

  constructor(
    readonly rng: Prng,
    readonly reversed: boolean,
    opts: TabletopOptions,
  ) {
    this.table = new Tabletop(opts);
  }

  field(sq: Square): DgtField {
    return squareToField(this.reversed ? 63 - sq : sq);
  }

  /** What the board's sensors see on a chess square now. */
  codeAt(sq: Square): PieceCode {
    return this.table.board()[this.field(sq)]!;
  }

  isEmpty(sq: Square): boolean {
    return this.codeAt(sq) === PIECE.EMPTY;
  }

  wait(ms: number): this {
    this.t += Math.max(0, Math.round(ms));
    return this;
  }

  private push(a: PhysicalAction): void {
    this.actions.push(a);
    this.table.apply(a);
  }

  lift(sq: Square, gapMs = 0): this {
    this.wait(gapMs);
    this.push({ kind: 'lift', at: this.t, field: this.field(sq) });
    return this;
  }

  place(sq: Square, piece: Piece | PieceCode, gapMs = 0): this {
    this.wait(gapMs);
    const code = typeof piece === 'number' ? piece : pieceToCode(piece);
    this.push({ kind: 'place', at: this.t, field: this.field(sq), piece: code });
    return this;
  }

  knock(sq: Square, onto: Square | undefined, gapMs = 0): this {
    this.wait(gapMs);
    this.push(onto === undefined ? { kind: 'knock', at: this.t, field: this.field(sq) } : { kind: 'knock', at: this.t, field: this.field(sq), onto: this.field(onto) });
    return this;
  }

  press(by: Color, gapMs = 0): this {
    this.wait(gapMs);
    this.push({ kind: 'press', at: this.t, by });
    return this;
  }

  /** Someone sets the clock by hand: `ms` added to `by`'s time (PhysicalAction 'clock-adjust'). */
  clockAdjust(by: Color, ms: number, gapMs = 0): this {
    this.wait(gapMs);
    this.push({ kind: 'clock-adjust', at: this.t, by, ms });
    return this;
  }

  unplug(gapMs = 0): this {
    this.wait(gapMs);
    this.push({ kind: 'unplug', at: this.t });
    return this;
  }

  /** The board goes away or comes back (see PhysicalAction: a USB pull, a dropped link, a power blip). */
  outage(kind: 'unplug' | 'plug' | 'link-down' | 'link-up' | 'power-off' | 'power-on', gapMs = 0): this {
    this.wait(gapMs);
    this.push({ kind, at: this.t });
    return this;
  }

  plug(gapMs = 0): this {
    this.wait(gapMs);
    this.push({ kind: 'plug', at: this.t });
    return this;
  }

  board(): PieceCode[] {
    return this.table.board();
  }

  // Human timing (ms). Scan-order effects live within ~200 ms; a hand move takes 0.3–2 s; thinking
  // takes seconds.
  /** Blitz hands: thinking in a fraction of a second to two seconds. */
  fast = false;

  think(): number {
    if (this.fast) return this.rng.int(150, 2_000);
    return this.rng.chance(0.1) ? this.rng.int(8_000, 25_000) : this.rng.int(700, 6_000);
  }
  handGap(): number {
    return this.rng.int(150, 700);
  }
  scanGap(): number {
    // Sometimes both changes land in the same scan and are reported at the same instant.
    return this.rng.chance(0.1) ? 0 : this.rng.int(10, 180);
  }
  flicker(): number {
    return this.rng.int(30, 200);
  }
}
