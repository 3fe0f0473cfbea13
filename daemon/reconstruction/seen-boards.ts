import type { NormalMove } from 'chessops';
import type { Chess } from 'chessops/chess';
import { PIECE } from '../../protocols/dgt/squares.ts';
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

  /** `codes` was among the boards seen. */
  hasSeen(codes: ArrayLike<number>): boolean {
    const seen = this.boards.get(placementHash(codes));
    if (!seen) return false;
    for (let sq = 0; sq < 64; sq++) if (seen[sq] !== codes[sq]) return false;
    return true;
  }

  /**
   * `codes` was seen with a piece of `next` (the move played from it) in a hand: the mover lifted
   * for its move, or the piece it takes lifted first (a listing taken as the move began).
   */
  private seenLifted(codes: Uint8Array, next: NormalMove): boolean {
    return this.seenWithout(codes, next.from) || this.seenWithout(codes, takenSquare(codes, next));
  }

  /** `codes` with `square` emptied was seen (never when the square is empty already: that is `codes` itself). */
  private seenWithout(codes: Uint8Array, square: number): boolean {
    if (codes[square] === PIECE.EMPTY) return false;
    const lifted = codes.slice();
    lifted[square] = PIECE.EMPTY;
    return this.hasSeen(lifted);
  }

  /** The boards seen, latest first. */
  *latest(): Generator<Uint8Array> {
    for (let i = this.order.length - 1; i >= 0; i--) {
      const codes = this.boards.get(this.order[i]!);
      if (codes) yield codes;
    }
  }

  /** A board seen showed `code` on a square `now` shows empty: that piece was seen where it left from. */
  seenLeaving(code: number, now: ArrayLike<number>): boolean {
    for (const codes of this.boards.values()) {
      for (let sq = 0; sq < 64; sq++) if (codes[sq] === code && now[sq] === PIECE.EMPTY) return true;
    }
    return false;
  }

  /**
   * The squares a board seen showed empty where both `start` and `target` have the same piece:
   * that piece was lifted and is back, so it went out and came back (or is a piece in a hand
   * put down where it stood).
   */
  emptied(start: ArrayLike<number>, target: ArrayLike<number>): Set<number> {
    const squares = new Set<number>();
    for (const codes of this.boards.values()) {
      for (let sq = 0; sq < 64; sq++) if (codes[sq] === PIECE.EMPTY && target[sq] !== PIECE.EMPTY && target[sq] === start[sq]) squares.add(sq);
    }
    return squares;
  }

  /**
   * The sequences that explain a jump, those passing through a board seen first (the later that
   * board, the better: the moves seen made go last), the search's order otherwise. Several orders
   * often leave the same board; the board seen on the way tells which. A board seen with a piece
   * in a hand is passed through where it is a position without the piece the next move moves or
   * takes (seed 16215: a listing taken with a bishop lifted for Ba6 tells Bxa6 … Ba6 from
   * Be2 … Bxa6, which needs the taken piece off too). Among those alike, the sequences that move
   * a piece seen lifted (`lifted`, from emptied) come first: that piece went out and came back (a
   * rook seen lifted from a4 and put back made the tempo, not the king), where another piece's
   * detour would explain the same board.
   */
  bySeen(pos: Chess, sequences: NormalMove[][], lifted: ReadonlySet<number>): NormalMove[][] {
    if (sequences.length < 2 || this.boards.size === 0) return sequences;
    const depth = (moves: NormalMove[]): number => {
      const probe = pos.clone();
      let seen = 0;
      for (let k = 0; k < moves.length - 1; k++) {
        probe.play(moves[k]!);
        const codes = positionCodes(probe);
        if (this.boards.has(placementHash(codes)) || this.seenLifted(codes, moves[k + 1]!)) seen = k + 1;
      }
      return seen;
    };
    const moved = (moves: NormalMove[]): number => moves.filter((m) => lifted.has(m.from)).length;
    const scored = sequences.map((moves, i) => ({ moves, i, seen: depth(moves), moved: lifted.size > 0 ? moved(moves) : 0 }));
    scored.sort((a, b) => b.seen - a.seen || b.moved - a.moved || a.i - b.i);
    return scored.map((x) => x.moves);
  }
}

/** The square whose piece `move` takes on `codes` (its landing, or beside it for a pawn taking en passant). */
function takenSquare(codes: ArrayLike<number>, move: NormalMove): number {
  const pawn = codes[move.from] === PIECE.WPAWN || codes[move.from] === PIECE.BPAWN;
  const enPassant = pawn && codes[move.to] === PIECE.EMPTY && (move.from & 7) !== (move.to & 7);
  return enPassant ? (move.from & 56) + (move.to & 7) : move.to;
}
