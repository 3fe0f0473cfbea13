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
    return this.seenHash(codes) !== undefined;
  }

  /** The hash `codes` was seen under, when it was among the boards seen. */
  private seenHash(codes: ArrayLike<number>): number | undefined {
    const hash = placementHash(codes);
    const seen = this.boards.get(hash);
    if (!seen) return undefined;
    for (let sq = 0; sq < 64; sq++) if (seen[sq] !== codes[sq]) return undefined;
    return hash;
  }

  /**
   * The boards seen that `codes` stands on, `next` the move played from it, each with its weight
   * (`credit`, by the board's hash): 2 for `codes` itself, `codes` with the mover lifted for its
   * move, or `codes` with the piece it takes lifted first (a listing taken as the move began); 1
   * for both up at once, and only where one of them was seen up alone: the capture seen under way,
   * one piece lifted and then the other (seed 18238's en passant). Alone, two pieces up is the
   * reading that leaves the most in a hand, and it fits captures nobody made (seed 217: a queen
   * lifted for her next move read as taken on g4 by the knight, the knight up too; seed 16215: the
   * bishop seen lifted for Ba6 with a6 empty is Bxa6 … Ba6, not Be2 … Bxa6 with a6's piece up too).
   * True when any was seen.
   */
  private seenAround(codes: Uint8Array, next: NormalMove, credit: Map<number, number>): boolean {
    const taken = takenSquare(codes, next);
    const capture = codes[taken] !== PIECE.EMPTY;
    const whole = this.seenHash(codes);
    const moverUp = this.seenWithout(codes, [next.from]);
    const takenUp = capture ? this.seenWithout(codes, [taken]) : undefined;
    const bothUp = capture && (moverUp ?? takenUp) !== undefined ? this.seenWithout(codes, [next.from, taken]) : undefined;
    let any = false;
    for (const hash of [whole, moverUp, takenUp]) {
      if (hash === undefined) continue;
      credit.set(hash, 2);
      any = true;
    }
    if (bothUp !== undefined) {
      credit.set(bothUp, Math.max(credit.get(bothUp) ?? 0, 1));
      any = true;
    }
    return any;
  }

  /** The hash of `codes` with `squares` emptied, when that board was seen (`squares` must hold pieces on `codes`). */
  private seenWithout(codes: Uint8Array, squares: readonly number[]): number | undefined {
    if (squares.some((sq) => codes[sq] === PIECE.EMPTY)) return undefined;
    const lifted = codes.slice();
    for (const sq of squares) lifted[sq] = PIECE.EMPTY;
    return this.seenHash(lifted);
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
   * Be2 … Bxa6, which needs the taken piece off too). At one depth, the sequences passing through
   * more of the boards seen go first, each board counted once (seenAround: seed 18238, a listing
   * with the d5 pawn up to take en passant and the next with the taken pawn up too both stand on
   * dxe6's order, where e5 dxe5 … e6 stands on the second only; seed 20126, a listing with the d4
   * pawn up is c4 fxe4 h4's board before d3 with the mover up and after it with the pawn up to be
   * taken, one board still). Among those alike, the sequences that move
   * a piece seen lifted (`lifted`, from emptied) come first: that piece went out and came back (a
   * rook seen lifted from a4 and put back made the tempo, not the king), where another piece's
   * detour would explain the same board.
   */
  bySeen(pos: Chess, sequences: NormalMove[][], lifted: ReadonlySet<number>): NormalMove[][] {
    if (sequences.length < 2 || this.boards.size === 0) return sequences;
    const passage = (moves: NormalMove[]): { seen: number; boards: number } => {
      const probe = pos.clone();
      const credit = new Map<number, number>();
      let seen = 0;
      for (let k = 0; k < moves.length - 1; k++) {
        probe.play(moves[k]!);
        if (this.seenAround(positionCodes(probe), moves[k + 1]!, credit)) seen = k + 1;
      }
      let boards = 0;
      for (const weight of credit.values()) boards += weight;
      return { seen, boards };
    };
    const moved = (moves: NormalMove[]): number => moves.filter((m) => lifted.has(m.from)).length;
    const scored = sequences.map((moves, i) => ({ moves, i, ...passage(moves), moved: lifted.size > 0 ? moved(moves) : 0 }));
    scored.sort((a, b) => b.seen - a.seen || b.boards - a.boards || b.moved - a.moved || a.i - b.i);
    return scored.map((x) => x.moves);
  }
}

/** The square whose piece `move` takes on `codes` (its landing, or beside it for a pawn taking en passant). */
function takenSquare(codes: ArrayLike<number>, move: NormalMove): number {
  const pawn = codes[move.from] === PIECE.WPAWN || codes[move.from] === PIECE.BPAWN;
  const enPassant = pawn && codes[move.to] === PIECE.EMPTY && (move.from & 7) !== (move.to & 7);
  return enPassant ? (move.from & 56) + (move.to & 7) : move.to;
}
