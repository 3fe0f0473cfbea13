import type { NormalMove } from 'chessops';
import type { Chess } from 'chessops/chess';
import { placementHash } from './observed-board.ts';
import { positionCodes } from './successors.ts';

/**
 * The placements a board showed while the record was in doubt (away, back and out of step, or an
 * inferred jump unconfirmed), by hash, the latest `limit` of them, cleared when the board goes
 * away. They say what the record's search cannot: which order of a jump the board passed through,
 * and from which board a move was seen made.
 */
export class SeenBoards {
  private readonly boards = new Map<number, Uint8Array>();
  private order: number[] = [];

  constructor(private readonly limit: number) {}

  clear(): void {
    this.boards.clear();
    this.order = [];
  }

  /** Remembers `codes` (copied) under `hash`, once. */
  note(hash: number, codes: Uint8Array): void {
    if (this.boards.has(hash)) return;
    this.boards.set(hash, codes.slice());
    this.order.push(hash);
    if (this.order.length > this.limit) this.boards.delete(this.order.shift()!);
  }

  /** The boards seen, latest first. */
  *latest(): Generator<Uint8Array> {
    for (let i = this.order.length - 1; i >= 0; i--) {
      const codes = this.boards.get(this.order[i]!);
      if (codes) yield codes;
    }
  }

  /**
   * The sequences that explain a jump, those passing through a board seen first (the later that
   * board, the better: the moves seen made go last), the search's order otherwise. Several orders
   * often leave the same board; the board seen on the way tells which.
   */
  bySeen(pos: Chess, sequences: NormalMove[][]): NormalMove[][] {
    if (sequences.length < 2 || this.boards.size === 0) return sequences;
    const depth = (moves: NormalMove[]): number => {
      const probe = pos.clone();
      let seen = 0;
      for (let k = 0; k < moves.length - 1; k++) {
        probe.play(moves[k]!);
        if (this.boards.has(placementHash(positionCodes(probe)))) seen = k + 1;
      }
      return seen;
    };
    const scored = sequences.map((moves, i) => ({ moves, i, seen: depth(moves) }));
    scored.sort((a, b) => b.seen - a.seen || a.i - b.i);
    return scored.map((x) => x.moves);
  }
}
