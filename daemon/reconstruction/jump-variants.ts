import { opposite, SquareSet, type Color, type NormalMove, type Piece } from 'chessops';
import { attacks } from 'chessops/attacks';
import type { Chess } from 'chessops/chess';
import { codeToPiece, PIECE, pieceToCode, type PieceCode } from '../../protocols/dgt/squares.ts';
import { searchJump, type JumpSearch, type JumpSearchOptions, type NodeMeter } from './jump-search.ts';

/**
 * The jump search asked in the ways the board's evidence calls for: with one piece out and back
 * (the piece the board was seen lifted first), and which of several boards a jump reaches soonest.
 * `lifted`: squares a board seen since the return showed empty whose piece is back on them
 * (SeenBoards.emptied).
 */

/**
 * The search with one piece allowed out and back: first only a piece the board was seen lifted
 * from a square it is back on (the board saw which piece made the detour, where any piece's
 * detour would explain the same board), then any.
 */
export function withExcursion(pos: Chess, target: ArrayLike<number>, options: JumpSearchOptions, lifted: ReadonlySet<number>): JumpSearch {
  if (lifted.size > 0) {
    const found = searchJump(pos, target, { ...options, excursions: 1, excursionFrom: lifted });
    if (found.sequences.length > 0) return found;
  }
  return searchJump(pos, target, { ...options, excursions: 1 });
}

/**
 * The search with one piece out and back to `through`, a board read on the way to `target` (the
 * board read at a return), each sequence then carried on to `target` plainly: the moves since
 * that board come after the detour, not among it, so the detours the search keeps are not spent
 * on the same moves in other places (a knight out and back among two other moves, which the
 * sequences with a later capture in three places crowd out of the kept). Empty when `through`
 * is `target` or no detour reaches it.
 */
export function withExcursionThrough(pos: Chess, through: ArrayLike<number>, target: ArrayLike<number>, options: JumpSearchOptions, lifted: ReadonlySet<number>): JumpSearch {
  const none: JumpSearch = { sequences: [], more: false, nodes: 0, exhausted: false };
  if (sameBoard(through, target) || options.maxDepth < 2) return none;
  const { turnAfter: _turn, ...unturned } = options;
  const toThrough = withExcursion(pos, through, { ...unturned, minDepth: 1, maxDepth: options.maxDepth - 1 }, lifted);
  const keep = options.keep ?? 1;
  const sequences: NormalMove[][] = [];
  let { more, nodes, exhausted } = toThrough;
  for (const moves of toThrough.sequences) {
    const after = pos.clone();
    for (const m of moves) after.play(m);
    const rest = searchJump(after, target, { ...options, minDepth: 1, maxDepth: options.maxDepth - moves.length, budget: Math.max(1, options.budget - nodes) });
    nodes += rest.nodes;
    exhausted ||= rest.exhausted;
    more ||= rest.more;
    for (const tail of rest.sequences) sequences.push([...moves, ...tail]);
  }
  sequences.sort((a, b) => a.length - b.length);
  return { sequences: sequences.slice(0, keep), more: more || sequences.length > keep, nodes, exhausted };
}

/**
 * The sequences of the asked length that reach `through` (a board read with a piece in a hand)
 * on their way, each carried on to `target`, read with a piece in a hand again. A search with a
 * hand straight to `target` keeps the first it finds among every hand and every order, and a
 * board short of two pieces (one taken since, one held) fills its keep with moves that never show
 * the board read before; through that board first, the search is held to it. Empty when nothing
 * reaches `through`, or nothing goes on from there.
 */
export function withHandThrough(pos: Chess, through: ArrayLike<number>, target: ArrayLike<number>, options: JumpSearchOptions): JumpSearch {
  const { turnAfter: _turn, ...unturned } = options;
  const minDepth = options.minDepth ?? 2;
  const keep = options.keep ?? 1;
  const sequences: NormalMove[][] = [];
  let more = false;
  let nodes = 0;
  let exhausted = false;
  // All kept hold the same piece in the hand (the first found): one `inHand` speaks for them.
  let inHand: number | undefined | null = null;
  // `through` at every length the search reaches it, not the shortest only: the players may have
  // taken longer to reach that board than the fewest moves that do (seed 240: five plies reach it,
  // six were played, and the seventh goes on from there).
  for (let depth = 1; depth < options.maxDepth && nodes < options.budget; depth++) {
    const toThrough = searchJump(pos, through, { ...unturned, minDepth: depth, maxDepth: depth, budget: options.budget - nodes, pieceInHand: true });
    nodes += toThrough.nodes;
    exhausted ||= toThrough.exhausted;
    more ||= toThrough.more;
    for (const moves of toThrough.sequences) {
      const after = pos.clone();
      for (const m of moves) after.play(m);
      const depths = { minDepth: Math.max(1, minDepth - depth), maxDepth: options.maxDepth - depth };
      const rest = searchJump(after, target, { ...options, ...depths, pieceInHand: true, budget: Math.max(1, options.budget - nodes) });
      nodes += rest.nodes;
      exhausted ||= rest.exhausted;
      more ||= rest.more;
      if (rest.sequences.length === 0) continue;
      if (inHand === null) inHand = rest.inHand;
      if (rest.inHand === inHand) for (const tail of rest.sequences) sequences.push([...moves, ...tail]);
    }
  }
  sequences.sort((a, b) => a.length - b.length);
  const shortest = sequences.filter((s) => s.length === sequences[0]?.length);
  return { sequences: shortest.slice(0, keep), more: more || shortest.length > keep, nodes, exhausted, ...(inHand !== null && inHand !== undefined ? { inHand } : {}) };
}

function sameBoard(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  for (let sq = 0; sq < 64; sq++) if (a[sq] !== b[sq]) return false;
  return true;
}

/**
 * `found` when one of its sequences moves a piece the board was seen lifted; else the sequences of
 * the same length where that piece went out and back (instead of another piece's tempo, a king's
 * step and back) come first, and those found after them.
 */
export function seenDetourFirst(pos: Chess, target: ArrayLike<number>, options: JumpSearchOptions, found: JumpSearch, lifted: ReadonlySet<number>): JumpSearch {
  const plies = found.sequences[0]?.length;
  if (plies === undefined || plies < 3 || lifted.size === 0) return found;
  if (found.sequences.some((moves) => moves.some((m) => lifted.has(m.from)))) return found;
  const detours = searchJump(pos, target, { ...options, minDepth: plies, maxDepth: plies, excursions: 1, excursionFrom: lifted });
  if (detours.sequences.length === 0) return found;
  const keep = options.keep ?? 1;
  // The search with a piece out and back finds the plain sequences too: each is offered once.
  const sequences = distinct([...detours.sequences, ...found.sequences]);
  return { ...found, sequences: sequences.slice(0, keep), more: found.more || detours.more || sequences.length > keep };
}

/** `sequences` without repeats, in their order. */
function distinct(sequences: readonly NormalMove[][]): NormalMove[][] {
  const seen = new Set<string>();
  return sequences.filter((moves) => {
    const key = moves.map((m) => `${m.from}-${m.to}-${m.promotion ?? ''}`).join(' ');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * `boards`, the one the shortest sequence from `pos` reaches (with `turn` to move after it) first;
 * those no sequence of at most `maxPlies` reaches are left out.
 */
export function bySequenceLength(pos: Chess, boards: readonly Uint8Array[], turn: Color, maxPlies: number, budget: number, meter?: NodeMeter): Uint8Array[] {
  const options = { minDepth: 1, maxDepth: Math.max(1, maxPlies), budget, keep: 1, turnAfter: turn, ...(meter ? { meter } : {}) };
  return boards
    .map((codes) => ({ codes, plies: searchJump(pos.clone(), codes, options).sequences[0]?.length }))
    .filter((b): b is { codes: Uint8Array; plies: number } => b.plies !== undefined)
    .sort((a, b) => a.plies - b.plies)
    .map((b) => b.codes);
}

/**
 * The board a jump was read at, with a piece in a hand (`seen`; the reading took the piece of
 * `held` to be in the hand), and the board now (`target`), one move on: a piece put down on a
 * square `seen` showed empty (it was the piece in the hand), or a piece moved onto such a square
 * (the hand held the piece it took there). The sequences to `seen` with that hand, each with that
 * move, explain both boards in the order they were seen, whichever piece the reading took to be in
 * the hand. Each board the hand may have been lifted from is searched exactly (the piece put down
 * on a square it reaches `to` from; the piece taken, of each kind, on `to`, or a pawn beside for
 * en passant): a board known whole prunes far more than one short of a piece anywhere.
 * `plies`: the length the jump was read at.
 * - A piece put down is the reading's length, or a ply either way (the hand was the other side's).
 *   Longer would explain away a try: a piece put where no move of that length takes it (an illegal
 *   move about to be corrected, a piece misplaced) "came" there by two invented plies.
 * - A piece taken from the hand's square may have come there while the board was away, a trip
 *   (and its reply) the reading, holding another piece, did not need: up to two plies more.
 * A jump read exactly (`held` undefined) may have been read short of a piece all the same (an
 * exact sequence a ply longer is preferred to a hand): a piece put down that no move brings is
 * that hand's. Not a piece moved onto an empty square: from a board read whole that is a move, and
 * one the record does not allow is the player's, not a piece nobody saw to take.
 * `playedOn`: the piece put down was no try (play went on from that board, a move and the reply
 * seen made): a piece put down may then be two plies more, as a piece taken is.
 * The shortest found are kept. Undefined when `target` is not such a board, when the piece put
 * down is the reading's own put back, or when the press that completed it (`options.turnAfter`)
 * was not the moving piece's side.
 */
export function throughHand(
  pos: Chess,
  seen: ArrayLike<number>,
  held: number | undefined,
  target: ArrayLike<number>,
  plies: number,
  options: JumpSearchOptions,
  playedOn = false,
): JumpSearch | undefined {
  const hand = handMoveBetween(seen, target);
  if (!hand || (hand.from === undefined && hand.to === held) || (hand.from !== undefined && held === undefined)) return undefined;
  const mover = colorOf(hand.code);
  if (options.turnAfter !== undefined && options.turnAfter === mover) return undefined;
  return fromHandBoards(pos, seen, hand, { ...options, minDepth: Math.max(1, plies - 1), maxDepth: plies + (hand.from === undefined && !playedOn ? 1 : 2), turnAfter: mover }, held);
}

/**
 * The other reading of a jump read exactly and the move that followed it, a piece moved to a
 * square `seen` showed empty (`target`): the board was read while a piece standing there was in a
 * hand, lifted first to be taken, and the move took it (a queen on e3 lifted, then Qxe3, where the
 * exact reading had that queen taken earlier and Qe3 played). The sequences of `plies` plies (the
 * jump's length) to such a board, each with that capture: as long as the record's reading, so a
 * rival to it. Undefined when `target` is not `seen` with one piece moved to an empty square.
 */
export function takenFromHand(pos: Chess, seen: ArrayLike<number>, target: ArrayLike<number>, plies: number, options: JumpSearchOptions): JumpSearch | undefined {
  const hand = handMoveBetween(seen, target);
  if (!hand || hand.from === undefined || seen[hand.to] !== PIECE.EMPTY) return undefined;
  return fromHandBoards(pos, seen, hand, { ...options, minDepth: plies, maxDepth: plies, turnAfter: colorOf(hand.code) });
}

/** The sequences to each board the hand of `hand` may have been lifted from (handBoards), each with the hand's move, the shortest kept. */
function fromHandBoards(pos: Chess, seen: ArrayLike<number>, hand: HandMove, depths: JumpSearchOptions, held?: number): JumpSearch {
  const mover = colorOf(hand.code);
  const keep = depths.keep ?? 8;
  let nodes = 0;
  let exhausted = false;
  const fits: { moves: NormalMove[][]; more: boolean }[] = [];
  for (const { codes, from } of handBoards(pos, seen, hand, mover, held)) {
    // The budget is for all the boards together, and no board takes more than half of it: a board
    // nothing leads to can take a whole budget to tell.
    const budget = Math.min(depths.budget - nodes, Math.ceil(depths.budget / 2));
    if (budget <= 0) break;
    const search = searchJump(pos, codes, { ...depths, budget });
    nodes += search.nodes;
    exhausted ||= search.exhausted;
    const last = { from, to: hand.to };
    const moves = search.sequences.filter((m) => legalAfter(pos, m, last)).map((m) => [...m, last]);
    if (moves.length > 0) fits.push({ moves, more: search.more });
  }
  // The shortest only (a longer reading of another hand is no rival to a shorter one), taken in
  // turn from each board, so that every hand that fits is among those kept.
  const shortest = Math.min(...fits.map((f) => f.moves[0]!.length));
  const found = fits.filter((f) => f.moves[0]!.length === shortest);
  const all: NormalMove[][] = [];
  for (let i = 0; found.some((f) => i < f.moves.length); i++) for (const f of found) if (i < f.moves.length) all.push(f.moves[i]!);
  return { sequences: all.slice(0, keep), more: all.length > keep || found.some((f) => f.more), nodes, exhausted };
}

/**
 * The boards the hand of `hand` may have been lifted from: `seen` with the piece put down on a
 * square it could move to `hand.to` from, or with a piece of the mover's opponent on `hand.to`
 * (en passant: a pawn beside `hand.from`) for the mover on `hand.from` to take.
 */
function* handBoards(start: Chess, seen: ArrayLike<number>, hand: HandMove, mover: Color, held?: number): Generator<{ codes: Uint8Array; from: number }> {
  const occupied = occupiedSquares(seen);
  const board = (square: number, code: number): Uint8Array => {
    const codes = Uint8Array.from(seen);
    codes[square] = code;
    return codes;
  };
  const piece = codeToPiece(hand.code as PieceCode)!;
  if (hand.from === undefined) {
    // The square the reading's hand emptied first: the hand held a piece from there, if not the
    // one the reading said (seed 8111: a rook put down on a2, which it reaches from six squares;
    // searched in square order, the first two took the budget and a4, the hand's, was never reached).
    // Then the squares where such a piece stood when the jump began: one that never moved while
    // the board was away and was lifted as it came back (seed 10015: a bishop put down on a6,
    // lifted from c8, where it stood; f1 and e2, first in square order, took the budget).
    const squares = held === undefined ? [] : [held];
    const stood = start.board.pieces(piece.color, piece.role);
    for (const from of stood) if (from !== held) squares.push(from);
    for (let from = 0; from < 64; from++) if (from !== held && !stood.has(from)) squares.push(from);
    for (const from of squares) {
      if (from === hand.to || seen[from] !== PIECE.EMPTY || !reaches(piece, from, hand.to, occupied.with(from), seen[hand.to] !== PIECE.EMPTY)) continue;
      yield { codes: board(from, hand.code), from };
    }
    return;
  }
  const opponent = opposite(mover);
  const lastRank = hand.to >> 3 === 0 || hand.to >> 3 === 7;
  for (const role of ['pawn', 'knight', 'bishop', 'rook', 'queen'] as const) {
    if (role === 'pawn' && lastRank) continue;
    yield { codes: board(hand.to, pieceToCode({ color: opponent, role })), from: hand.from };
  }
  const beside = (hand.to & 7) + (hand.from & 56);
  if (piece.role === 'pawn' && (hand.to & 7) !== (hand.from & 7) && seen[beside] === PIECE.EMPTY) {
    yield { codes: board(beside, pieceToCode({ color: opponent, role: 'pawn' })), from: hand.from };
  }
}

/**
 * `piece` on `from` could move to `to` with the board's pieces on `occupied`, taking what stands
 * there (`takes`); a pawn to an empty square by its steps forward, or en passant (put down before
 * the pawn it takes is lifted).
 */
function reaches(piece: Piece, from: number, to: number, occupied: SquareSet, takes: boolean): boolean {
  if (attacks(piece, from, occupied).has(to)) return true;
  if (piece.role !== 'pawn' || takes) return false;
  const step = piece.color === 'white' ? 8 : -8;
  const home = piece.color === 'white' ? 1 : 6;
  return to === from + step || (from >> 3 === home && to === from + 2 * step && !occupied.has(from + step));
}

function occupiedSquares(codes: ArrayLike<number>): SquareSet {
  let set = SquareSet.empty();
  for (let sq = 0; sq < 64; sq++) if (codes[sq] !== PIECE.EMPTY) set = set.with(sq);
  return set;
}

/** `last` is a legal move once `moves` are played from `pos`. */
export function legalAfter(pos: Chess, moves: readonly NormalMove[], last: NormalMove): boolean {
  const after = pos.clone();
  for (const m of moves) after.play(m);
  return after.dests(last.from).has(last.to);
}

/** The move seen made from a board read with a piece in a hand: `code` to `to`, from `from` when the board showed it leave. */
interface HandMove {
  to: number;
  code: number;
  from?: number;
}

const colorOf = (code: number): Color => codeToPiece(code as PieceCode)!.color;

/**
 * The move from `seen` to `target`: one piece put down on an empty square or on one of the other
 * side's (taking it, lifted as it landed), or one piece moved to an empty square.
 */
function handMoveBetween(seen: ArrayLike<number>, target: ArrayLike<number>): HandMove | undefined {
  let to = -1;
  let from = -1;
  for (let sq = 0; sq < 64; sq++) {
    const was = seen[sq]!;
    const now = target[sq]!;
    if (was === now) continue;
    if (now !== PIECE.EMPTY && to < 0 && (was === PIECE.EMPTY || colorOf(was) !== colorOf(now))) to = sq;
    else if (now === PIECE.EMPTY && from < 0) from = sq;
    else return undefined;
  }
  if (to < 0) return undefined;
  const code = target[to]!;
  if (from < 0) return { to, code };
  // A piece moved taking one the board showed is a capture, nothing of a hand's.
  return seen[from] === code && seen[to] === PIECE.EMPTY ? { to, code, from } : undefined;
}
