import { opposite, type Color, type NormalMove } from 'chessops';
import { Chess } from 'chessops/chess';
import { parseFen } from 'chessops/fen';
import { makeSan } from 'chessops/san';
import { makeSquare } from 'chessops/util';
import { SquareSet } from 'chessops/squareSet';
import { PIECE, codeToPiece, pieceToCode, type PieceCode } from '../../protocols/dgt/squares.ts';
import { placementOf } from './fen.ts';
import { squaresApart } from './observed-board.ts';
import { matchMove, type Successor } from './successors.ts';

/**
 * Boards kept while out of step: the first (where the record lost the board, as a rule the board
 * read whole at a return) and the latest. A piece adjusted back and forth makes a board per
 * change, and the first must outlast them: play that went on from it is recorded from it.
 */
const STEP_BOARDS = 12;

/** The record's last position, which the boards kept while out of step are judged against. */
export interface RecordEnd {
  codes: Uint8Array;
  fen: string;
  turn: Color;
  /** Plies recorded: positions worked out for the boards are good until it changes. */
  plies: number;
  /** A jump doubted for its side to move (without a clock): the record's own board may start a break. */
  doubted: boolean;
  /** The square whose piece the last jump took to be in a hand, while that jump stands. */
  inHand?: number;
}

/**
 * The position a break starts from: `placement` with `turn` to move; undefined when that is no
 * legal position. A castling right of the record's stands only while its king and its rook are
 * still on their squares: chessops reads a right by the side of the king its rook is on, so
 * `KQkq` kept over a king gone to d1 (or a rook gone to b1) would let that king castle from d1
 * (or with the b1 rook), and every consumer of the break's FEN would read it so too. A king or
 * rook gone and come back is beyond what the board shows; its right is kept. `ep`: the square
 * behind a pawn taken to have just gone two squares (an en passant capture after the break says so).
 * `rightBack`: the rook square of a castling right the record lost only through an inferred ply,
 * given back (a castling after the break says the king and that rook never moved).
 */
export function breakPosition(end: Pick<RecordEnd, 'fen' | 'turn'>, placement: ArrayLike<number>, turn: Color, ep?: number, rightBack?: number): Chess | undefined {
  const fields = end.fen.split(' ');
  const fullmove = Number(fields[5] ?? '1') + (end.turn === 'white' && turn === 'black' ? 0 : 1);
  const setup = parseFen(`${placementOf(placement)} ${turn === 'white' ? 'w' : 'b'} - ${ep === undefined ? '-' : makeSquare(ep)} 0 ${fullmove}`);
  if (!setup.isOk) return undefined;
  const standing = rightsStanding(end.fen, placement);
  setup.value.castlingRights = rightBack === undefined ? standing : standing.with(rightBack);
  const pos = Chess.fromSetup(setup.value);
  return pos.isOk ? pos.value : undefined;
}

/** The rook squares of `fen`'s castling rights whose rook and king `placement` still has where they stood. */
function rightsStanding(fen: string, placement: ArrayLike<number>): SquareSet {
  const before = parseFen(fen);
  if (!before.isOk) return SquareSet.empty();
  const { board, castlingRights } = before.value;
  const stands = (sq: number): boolean => placement[sq] === pieceToCode(board.get(sq)!);
  let standing = SquareSet.empty();
  for (const rook of castlingRights) {
    const color = board.getColor(rook);
    const king = color && board.kingOf(color);
    if (king !== undefined && stands(rook) && stands(king)) standing = standing.with(rook);
  }
  return standing;
}

/**
 * The board before a move read mid-move (StepBoards.beforeUnseen), the move, and what was taken
 * for it. `several`: the piece's square is one of several the board cannot tell apart (the move
 * is the same from each), so that board is no target to search the moves before it to.
 */
export interface BoardBefore {
  codes: Uint8Array;
  move: StepMove;
  note: string;
  several?: true;
}

/** A move between two boards kept; `ep` when it is an en passant capture the board before allows only as the reply to a double step nobody saw. */
export type StepMove = Successor & { ep?: number };

/**
 * The square an en passant capture by `turn` lands on, when board `to` is board `from` with such a
 * capture made: a pawn of `turn` gone one square diagonally onto an empty square, and the pawn of
 * the other side beside its start gone, with the squares that pawn passed and left on its double
 * step empty. Whether it was legal is for the position to say.
 */
function enPassantLanding(from: ArrayLike<number>, to: ArrayLike<number>, diff: readonly number[], turn: Color): number | undefined {
  if (diff.length !== 3) return undefined;
  const white = turn === 'white';
  const mine = white ? PIECE.WPAWN : PIECE.BPAWN;
  const theirs = white ? PIECE.BPAWN : PIECE.WPAWN;
  const landing = diff.find((sq) => from[sq] === PIECE.EMPTY && to[sq] === mine);
  if (landing === undefined || landing >> 3 !== (white ? 5 : 2)) return undefined;
  const taken = landing + (white ? -8 : 8);
  const start = landing + (white ? 8 : -8);
  const left = diff.find((sq) => sq !== landing && sq !== taken);
  if (left === undefined || !diff.includes(taken) || from[taken] !== theirs || to[taken] !== PIECE.EMPTY) return undefined;
  if (from[left] !== mine || to[left] !== PIECE.EMPTY || left >> 3 !== taken >> 3 || Math.abs((left & 7) - (landing & 7)) !== 1) return undefined;
  return from[start] === PIECE.EMPTY ? landing : undefined;
}

/**
 * While out of step, the boards seen after each change and each dump, oldest first: when the
 * record breaks, it breaks at the board before the move that showed the break (that move is then
 * recorded), not after it. What a break needs of them: the move between two of them, whether one
 * may start a break, and the board before a move whose piece was in a hand.
 */
export class StepBoards {
  private boards: Uint8Array[] = [];
  private positions = new WeakMap<Uint8Array, { white?: Chess | null; black?: Chess | null }>();
  private positionsPlies = -1;

  get list(): readonly Uint8Array[] {
    return this.boards;
  }

  clear(): void {
    this.boards.length = 0;
  }

  /**
   * Play may go on from `codes` (the record's own board, its side to move doubted): it is the
   * first board, before those kept (`keep`) or instead of them.
   */
  startFrom(codes: Uint8Array, keep = false): void {
    this.boards = [codes.slice(), ...(keep ? this.boards.slice(-(STEP_BOARDS - 1)) : [])];
  }

  /** Keeps `seen` (copied) unless it is the last board kept; past the limit, the second oldest goes (the first stays). */
  note(seen: Uint8Array): void {
    const last = this.boards[this.boards.length - 1];
    if (last && squaresApart(last, seen).length === 0) return;
    this.boards.push(seen.slice());
    if (this.boards.length > STEP_BOARDS) this.boards.splice(1, 1);
  }

  /**
   * One legal move of `turn` that turns board `from` into board `to` (positions as a break would
   * take them). A break's board knows nothing of the move before it, so an en passant capture is
   * legal from it only with the double step it answers taken as that move: when the board allows
   * it and nothing else explains the capture (the pawn taken is gone, no other move shows it), the
   * move says the double step was made, and `ep` goes with it (an outage that ended with the
   * double step: h4 answered by gxh3 at once).
   */
  moveBetween(end: RecordEnd, from: Uint8Array, to: ArrayLike<number>, turn: Color): StepMove | undefined {
    const diff = squaresApart(from, to);
    if (diff.length < 2 || diff.length > 4) return undefined;
    const pos = this.position(end, from, turn);
    const plain = pos && matchMove(pos, from, to, diff);
    if (plain) return plain;
    const ep = enPassantLanding(from, to, diff, turn);
    const withEp = ep === undefined ? undefined : this.position(end, from, turn, ep);
    const capture = withEp && matchMove(withEp, from, to, diff);
    return capture && ep !== undefined ? { ...capture, ep } : undefined;
  }

  /** `to` is few enough squares from `from` (two to four) to be one move after it. */
  mayBeMove(from: ArrayLike<number>, to: ArrayLike<number>): boolean {
    const apart = squaresApart(from, to).length;
    return apart >= 2 && apart <= 4;
  }

  /**
   * The move of `replier` that turns board `between` into `to`, played from the position `first`
   * (the opponent's move from board `from`) leaves: an en passant capture or a castling right that
   * only the move before gives or keeps.
   */
  replyAfter(end: RecordEnd, from: Uint8Array, first: StepMove, between: Uint8Array, to: ArrayLike<number>, replier: Color): Successor | undefined {
    const diff = squaresApart(between, to);
    if (diff.length < 2 || diff.length > 4) return undefined;
    const pos = this.position(end, from, opposite(replier), first.ep)?.clone();
    if (!pos) return undefined;
    pos.play(first.move);
    return matchMove(pos, between, to, diff);
  }

  /**
   * A board one or two squares from the record's is a move under way (a capture's taken piece
   * lifted first, a piece in a hand), not a position the game cannot reach: two plies or more
   * change three squares at least. The record's own board is one after a jump doubted for its
   * side to move. So is a board whose only changes are the jump's hand, still empty, and a piece
   * put down where the record has none: the hand was a wrong guess (the piece in it came from
   * elsewhere), and that board is where play went on from. And the board the jump was read at, its
   * hand still empty: when play went on from it (a move and the reply seen made), no hand held that
   * piece, it was gone (a bishop taken on c8 read as lifted from there).
   */
  breakable(end: RecordEnd, codes: Uint8Array): boolean {
    const apart = squaresApart(codes, end.codes);
    if (apart.length >= 3 || (apart.length === 0 && end.doubted)) return true;
    const hand = end.inHand;
    if (hand === undefined || codes[hand] !== PIECE.EMPTY) return false;
    if (apart.length === 1) return apart[0] === hand;
    if (apart.length !== 2 || !apart.includes(hand)) return false;
    const put = apart[0] === hand ? apart[1]! : apart[0]!;
    return end.codes[put] === PIECE.EMPTY && codes[put] !== PIECE.EMPTY;
  }

  /** `moves` are legal one after the other from board `from` with `turn` to move (positions as a break would take them; `ep` as in moveBetween). */
  playsThrough(end: RecordEnd, from: Uint8Array, turn: Color, moves: readonly NormalMove[], ep?: number): boolean {
    const pos = this.position(end, from, turn, ep)?.clone();
    if (!pos) return false;
    for (const m of moves) {
      if (!pos.isLegal(m)) return false;
      pos.play(m);
    }
    return true;
  }

  /**
   * `codes` is the record's board with one piece moved in full, where no legal move takes it: its
   * square empty, the piece on a square that was empty or held a piece of the other side (a knight
   * put on b3 from b1). Without a clock nothing completes such a move, so it is no illegal move the
   * engine can report; when play goes on from it (a move and the reply), it stood, and a break may
   * start there. Undefined for any other board, and for a piece of the side not to move.
   */
  displaced(end: Pick<RecordEnd, 'codes' | 'turn'>, codes: ArrayLike<number>): { from: number; to: number } | undefined {
    const apart = squaresApart(codes, end.codes);
    if (apart.length !== 2) return undefined;
    const [a, b] = apart as [number, number];
    const [from, to] = codes[a] === PIECE.EMPTY ? [a, b] : [b, a];
    const piece = codeToPiece(end.codes[from]! as PieceCode);
    if (codes[from] !== PIECE.EMPTY || !piece || piece.color !== end.turn || codes[to] !== end.codes[from]) return undefined;
    const there = codeToPiece(end.codes[to]! as PieceCode);
    if (there && there.color === piece.color) return undefined;
    return { from, to };
  }

  /**
   * A board read while the mover's piece was in the hand (the board came back mid-move) is no
   * position, and the piece's landing (`to`) is the only change after it: the move that shows
   * the break cannot be told from it alone. Its square of departure is one the board read empty
   * from which the landing is legal:
   * - one where the record, from before the thread was lost, has that piece, when exactly one
   *   such square fits (a piece that moved while the board was away and was then lifted leaves its
   *   square in the record empty too, and that square may also reach the landing: the guess of
   *   where it came from is then wrong, though the move's SAN is nearly always the same, and the
   *   moves that fill the break settle it, see planReplacement);
   * - else, on a board the record cannot reach (three squares or more from it: next to the
   *   record's board, the piece in the hand is the record's, put down wrong and corrected), the
   *   only square that fits, or any of several when the move's SAN is the same from each (a rook
   *   gone to h5 while the board was away and lifted for Rg5, which g3 or g2 would give as well):
   *   the move the players wrote is then known though the square is not, and the note says so.
   *   A piece put down on the last rank may be a promotion, the pawn in the hand: its squares
   *   count among those that fit (cxd8=Q is not Qxd8).
   */
  beforeHand(end: RecordEnd, codes: Uint8Array, to: ArrayLike<number>, mover: Color): BoardBefore | undefined {
    const apart = squaresApart(codes, to);
    if (apart.length !== 1) return undefined;
    const landing = apart[0]!;
    const piece = to[landing]!;
    const landed = codeToPiece(piece as PieceCode);
    if (landed?.color !== mover) return undefined;
    // A piece of that kind the boards kept before showed on a square `codes` shows empty was lifted
    // from there while the board was watched, not held through its reading: it came from one of
    // those squares, legally or not (a pawn lifted from h3 and put on c5 is an illegal move, not
    // a pawn from b4 nobody saw).
    const seenLifted = this.seenLifted(codes, piece);
    const origins: { codes: Uint8Array; move: StepMove; san: string; recorded: boolean }[] = [];
    const tryFrom = (from: number, held: number): void => {
      if (from === landing || codes[from] !== PIECE.EMPTY) return;
      const before = codes.slice();
      before[from] = held;
      const s = this.moveBetween(end, before, to, mover);
      if (!s || s.move.from !== from || !this.breakable(end, before)) return;
      const pos = this.position(end, before, mover, s.ep);
      if (pos) origins.push({ codes: before, move: s, san: makeSan(pos, s.move), recorded: end.codes[from] === held });
    };
    for (let from = 0; from < 64; from++) if (seenLifted.size === 0 || seenLifted.has(from)) tryFrom(from, piece);
    // A piece put down on the last rank may be a pawn's promotion, the pawn the piece in the hand.
    const lastRank = mover === 'white' ? 7 : 0;
    if (seenLifted.size === 0 && landing >> 3 === lastRank && landed.role !== 'pawn' && landed.role !== 'king') {
      const pawn = mover === 'white' ? PIECE.WPAWN : PIECE.BPAWN;
      const from = landing + (mover === 'white' ? -8 : 8);
      for (const side of [-1, 0, 1]) if (((landing & 7) + side) >> 3 === 0) tryFrom(from + side, pawn);
    }
    const what = `the ${landed.color} ${landed.role} put on ${makeSquare(landing)} was in a hand when the board was read`;
    const taken = (o: (typeof origins)[number], why: string, several?: true): BoardBefore => ({ codes: o.codes, move: o.move, note: `${what}; ${why}`, ...(several ? { several } : {}) });
    const square = (o: (typeof origins)[number]): string => makeSquare(o.move.move.from);
    const recorded = origins.filter((o) => o.recorded);
    if (recorded.length === 1)
      return taken(recorded[0]!, `it is taken to come from ${square(recorded[0]!)}, where the record last had it (had it moved meanwhile, the moves that fill the break say so)`);
    if (recorded.length > 1 || origins.length === 0 || squaresApart(codes, end.codes).length < 3) return undefined;
    const first = origins[0]!;
    if (origins.length === 1) return taken(first, `it is taken to come from ${square(first)}, the only square it can have come from (the moves that fill the break say how it got there)`);
    if (origins.some((o) => o.san !== first.san)) return undefined;
    const squares = origins.map(square).join(', ');
    return taken(
      first,
      `it came from one of ${squares}, which the board cannot tell, and ${first.san} is the same move from each: the break's position shows it on ${square(first)} (the moves that fill the break say where it stood)`,
      true,
    );
  }

  /** The squares where a board kept before `codes` showed `piece` and `codes` shows none. */
  private seenLifted(codes: Uint8Array, piece: number): Set<number> {
    const squares = new Set<number>();
    for (const board of this.boards) {
      if (board === codes) break;
      for (let sq = 0; sq < 64; sq++) if (board[sq] === piece && codes[sq] === PIECE.EMPTY) squares.add(sq);
    }
    return squares;
  }

  /**
   * The board before the move that made `to`, when `codes` was read mid-move: with the mover's
   * piece in a hand (beforeHand), or with the piece the capture took already off (capturedFirst).
   */
  beforeUnseen(end: RecordEnd, codes: Uint8Array, to: ArrayLike<number>, mover: Color): BoardBefore | undefined {
    return this.beforeHand(end, codes, to, mover) ?? this.capturedFirst(end, codes, to, mover);
  }

  /**
   * A board read while the piece a capture took was already off (a capture made the usual way: the
   * taken piece lifted first, then the capturing piece moved onto its square) is no position, and
   * the capture is the only move after it. The piece taken is the one the record has on the
   * square the mover landed on (the opponent's): that board with it back is the board before the
   * move, when the capture is legal from it. Only for a board the record cannot reach (three
   * squares or more from it): next to the record's board, a capture is a move seen made. (Had another piece come to that square while the
   * board was away, the move's SAN is nearly always the same, and the moves that fill the break
   * settle it.)
   */
  capturedFirst(end: RecordEnd, codes: Uint8Array, to: ArrayLike<number>, mover: Color): { codes: Uint8Array; move: StepMove; note: string } | undefined {
    if (squaresApart(codes, end.codes).length < 3) return undefined;
    for (const landing of squaresApart(codes, to)) {
      const taken = codeToPiece(end.codes[landing]! as PieceCode);
      if (codes[landing] !== PIECE.EMPTY || to[landing] === PIECE.EMPTY || !taken || taken.color === mover) continue;
      const before = codes.slice();
      before[landing] = end.codes[landing]!;
      const s = this.moveBetween(end, before, to, mover);
      if (!s || s.move.to !== landing || !this.breakable(end, before)) continue;
      const note = `the ${taken.color} ${taken.role} of ${makeSquare(landing)} was off the board when it was read (the capture that followed was under way); it is taken to be the piece the record had there`;
      return { codes: before, move: s, note };
    }
    return undefined;
  }

  /**
   * The boards `codes` may have been before the move that made `to`, when `codes` was read with
   * the mover's piece in a hand and its landing is the only change since (a capture's taken piece
   * replaced by it, or an empty square): that piece on a square `codes` shows empty from which
   * the move is legal. Squares where `origin` (the position the jump began from) has that piece
   * first: a piece that had not moved before it was lifted. At most `limit`.
   */
  handOrigins(end: RecordEnd, codes: Uint8Array, to: ArrayLike<number>, mover: Color, origin: ArrayLike<number>, limit: number): Uint8Array[] {
    const apart = squaresApart(codes, to);
    if (apart.length !== 1) return [];
    const landing = apart[0]!;
    const piece = to[landing]!;
    if (codeToPiece(piece as PieceCode)?.color !== mover) return [];
    const found: { codes: Uint8Array; stayed: boolean }[] = [];
    for (let from = 0; from < 64; from++) {
      if (from === landing || codes[from] !== PIECE.EMPTY) continue;
      const before = codes.slice();
      before[from] = piece;
      const s = this.moveBetween(end, before, to, mover);
      if (s && s.move.from === from) found.push({ codes: before, stayed: origin[from] === piece });
    }
    found.sort((a, b) => Number(b.stayed) - Number(a.stayed));
    return found.slice(0, limit).map((f) => f.codes);
  }

  /**
   * `codes` as a break would take it (breakPosition), worked out once per board and side while the
   * record stands (it is asked on every change); with `ep` (rare: an en passant capture after a
   * break) worked out each time.
   */
  private position(end: RecordEnd, codes: Uint8Array, turn: Color, ep?: number): Chess | undefined {
    if (ep !== undefined) return breakPosition(end, codes, turn, ep);
    if (this.positionsPlies !== end.plies) {
      this.positions = new WeakMap();
      this.positionsPlies = end.plies;
    }
    let known = this.positions.get(codes);
    if (!known) this.positions.set(codes, (known = {}));
    const cached = known[turn];
    if (cached !== undefined) return cached ?? undefined;
    const pos = breakPosition(end, codes, turn);
    known[turn] = pos ?? null;
    return pos;
  }
}
