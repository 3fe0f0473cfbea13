import type { Color, NormalMove } from 'chessops';
import type { Chess } from 'chessops/chess';
import { PIECE } from '../../protocols/dgt/squares.ts';
import { randomKeys } from './observed-board.ts';
import { positionCodes, successorsOf } from './successors.ts';

/**
 * The search behind a board that jumped: after an outage, a burst, or a dump taken while a piece was
 * in the hand, the board shows a placement several plies on from the game. This finds the shortest
 * legal sequences from the game's position that leave exactly that placement.
 *
 * A plain search of six plies would visit a billion positions; four facts of the board keep it to
 * a few thousand:
 * - Arrivals. A move puts exactly one of the mover's pieces on a square (castling two), and the
 *   opponent's moves never put one of them anywhere. A square where the target shows a white piece
 *   the board does not have yet needs a white move of its own, so with `w` white moves left at most
 *   `w` (plus one while White may still castle) such squares can be open. Likewise for Black.
 * - Changed squares. Beyond three plies a move must start on a square that differs from the target
 *   or that an earlier move of the sequence reached: a piece that leaves a square already right must
 *   be replaced by an identical one, which a shortest sequence almost never does (two rooks doubling
 *   on a file is the exception, and it is left to the arbiter rather than paid for on every search).
 *   Pawns are the other exception, and a common one: a pawn takes and the pawn behind it steps up
 *   (hxg5, h3-h4), so a pawn with one of its own behind it on a changed square may leave.
 *   Nor may a piece go back to the square it started the sequence from: that detour is how a
 *   search "explains" a piece that is only in a player's hand (it wanders off and is captured).
 * - Squares left to change. A move changes two squares (castling four, once per side; en passant
 *   three, at most every other ply), so a position still differing from the target on more squares
 *   than the plies left can change is dropped.
 * - The clock. When the side to move after the jump is known (the press that completed it), only
 *   depths of the matching parity are tried.
 * - Pieces that cannot help are not asked. The rules above drop most successors, so only the moves
 *   of pieces that could pass them are built and weighed: beyond three plies those on a changed or
 *   reached square (and the king, for castling); and where the squares left to change or the
 *   arrivals a side owes leave no slack, those whose move could bring the board nearer. The others
 *   are only counted, so that a budget stops a search where it did when every move was built: the
 *   same sequences in less time (a nine-ply jump of 1.6 million nodes, a queen's detour through
 *   three captures, in about half the time).
 *
 * And one fact of the search itself: moves of an outage are mostly independent of each other, so
 * the same position is reached by many orders of the same moves (four moves a side, 576 orders).
 * A position found to lead nowhere, with the same plies left and the same squares reached and
 * pieces moved (what the pruning depends on), is not searched again: the sequences found are the
 * same, only fewer nodes are spent, and an eight-ply jump fits in the budget.
 */

export interface JumpSearchOptions {
  /** Shortest sequence tried (plies; default 2: one move is the matcher's business). */
  minDepth?: number;
  /** Longest sequence tried (plies). */
  maxDepth: number;
  /** Nodes (successors looked at) before giving up: a pathological board stays cheap. */
  budget: number;
  /** Nodes left to every search of one board event (several searches share it): spent as used. */
  meter?: NodeMeter;
  /** Whose turn it is once the sequence is played, when a press tells. */
  turnAfter?: Color;
  /** How many sequences to keep (the first is the one published; the rest are the alternatives). */
  keep?: number;
  /**
   * Also accept a sequence whose position differs from the board on one square only, where the
   * board is empty: a piece in a player's hand when the board was read (see `liftable`).
   */
  pieceInHand?: boolean;
  /**
   * Pieces (not pawns) that may leave a square the board shows unchanged and come back to it:
   * a tempo the changed-square and no-return rules leave out (a knight out and back, a bishop
   * round a triangle). Asked for when the clock says the shortest sequences leave the wrong side
   * to move. Default 0.
   */
  excursions?: number;
  /**
   * The squares an excursion may leave from, when the board was seen with them empty (a piece
   * lifted from a square it is back on): only that piece went out and back. Default: any square.
   */
  excursionFrom?: ReadonlySet<number>;
  /**
   * Go on from where a search of the same position, target and options ran out of nodes
   * (`JumpSearch.resume`): the sequences it found are kept and what it had searched is not
   * searched again, so a search too large for one board event can be spread over several.
   */
  resume?: SearchResume;
}

/**
 * Where a search stopped when its nodes ran out: the depth, the successor (by its index among a
 * node's successors) at each ply of the path it was on, and what it had found and ruled out.
 * Only the search that made it may go on from it (same position, target and options).
 */
export interface SearchResume {
  readonly depth: number;
  readonly path: readonly number[];
  readonly found: readonly NormalMove[][];
  readonly nearly: readonly NearlyFound[];
  readonly nearlyMore: boolean;
  /** The subtrees found to lead nowhere: owned by the search, which goes on adding to it. */
  readonly dead: Set<number>;
}

/** A sequence that leaves the board one piece short (`pieceInHand`): the square, and whether the next player could be moving or taking its piece. */
interface NearlyFound {
  square: number;
  liftable: boolean;
  moves: NormalMove[];
}

/** What the searches of one board event may still spend, in nodes: the event loop waits on them. */
export interface NodeMeter {
  left: number;
}

export interface JumpSearch {
  /** The shortest sequences found, all of one length; empty when none within depth and budget. */
  sequences: NormalMove[][];
  /** More sequences of that length exist than were kept. */
  more: boolean;
  /** Successors looked at. */
  nodes: number;
  /** The budget ran out before the search was complete. */
  exhausted: boolean;
  /** With `pieceInHand`: the square whose piece the sequences leave in a hand (absent: exact sequences). */
  inHand?: number;
  /** When the budget ran out: where to go on from (`JumpSearchOptions.resume`). */
  resume?: SearchResume;
}

/**
 * Random keys for the dead-end memo: two independent lanes, so that a state's key has 53 bits. A
 * false "leads nowhere" (two states sharing a key) would lose a sequence, so collisions must be
 * rare: with a million states kept, about one search in ten thousand would meet one pair.
 * Indexed by lane, kind (0 a square's piece code, 1 a square reached, 2 a piece's origin, 3 the
 * rest of the position and the plies left), slot and value.
 */
const KEYS = randomKeys(2 * 4 * 64 * 64, 0x2545f491);
const PIECE_AT = 0;
const REACHED = 1;
const ORIGIN = 2;
const REST = 3;
const key = (lane: number, kind: number, slot: number, value: number): number => KEYS[(lane * 4 + kind) * 4096 + slot * 64 + value]!;

/** A 53-bit key, kept as two 32-bit lanes updated by XOR. */
class StateKey {
  a = 0;
  b = 0;
  toggle(kind: number, slot: number, value: number): void {
    this.a ^= key(0, kind, slot, value);
    this.b ^= key(1, kind, slot, value);
  }
}

/** The key of what a subtree's outcome depends on: position, plies left, squares reached, pieces' origins, the excursion under way and those left. */
function subtreeKey(path: StateKey, pos: Chess, left: number, excursion: number, excursionsLeft: number): number {
  let a = path.a;
  let b = path.b;
  const mix = (slot: number, value: number): void => {
    a ^= key(0, REST, slot, value);
    b ^= key(1, REST, slot, value);
  };
  mix(left, 0);
  mix(0, pos.turn === 'white' ? 1 : 2);
  mix(excursion + 1, 5);
  mix(excursionsLeft, 6);
  if (pos.epSquare !== undefined) mix(pos.epSquare, 3);
  for (const rook of pos.castles.castlingRights) mix(rook, 4);
  return (a >>> 0) * 0x200000 + (b & 0x1fffff);
}

/** Depth up to which every legal sequence is tried (no changed-square rule). */
const COMPLETE_DEPTH = 3;

const isWhite = (code: number): boolean => code >= PIECE.WPAWN && code <= PIECE.WQUEEN;
const isBlack = (code: number): boolean => code >= PIECE.BPAWN && code <= PIECE.BQUEEN;

interface Need {
  /** Squares that differ from the target. */
  diff: number;
  /** Squares where the target shows a white (black) piece the board does not have there. */
  white: number;
  black: number;
  /** Pawns of each side on the board (en passant takes one: possible only while the target has fewer). */
  whitePawns: number;
  blackPawns: number;
}

function needOf(codes: ArrayLike<number>, target: ArrayLike<number>): Need {
  const n: Need = { diff: 0, white: 0, black: 0, whitePawns: 0, blackPawns: 0 };
  for (let s = 0; s < 64; s++) {
    const t = target[s]!;
    if (codes[s] === PIECE.WPAWN) n.whitePawns++;
    else if (codes[s] === PIECE.BPAWN) n.blackPawns++;
    if (codes[s] === t) continue;
    n.diff++;
    if (isWhite(t)) n.white++;
    else if (isBlack(t)) n.black++;
  }
  return n;
}

/**
 * The piece a board read short of one piece is missing after `move` is played from `p`: the one
 * square where the position differs from the board must be empty on the board. A hand is the
 * likeliest reason (`liftable`: a piece the next player could be moving, one of theirs with a
 * legal move, or taking, the opponent's on a square one of their legal moves captures on); a
 * piece being adjusted or a sensor's flicker is another. Any other difference is no explanation.
 */
function missingPiece(p: Chess, move: NormalMove, target: ArrayLike<number>): { square: number; liftable: boolean } | undefined {
  const after = p.clone();
  after.play(move);
  const codes = positionCodes(after);
  let square: number | undefined;
  for (let sq = 0; sq < 64; sq++) {
    if (codes[sq] === target[sq]) continue;
    if (square !== undefined || target[sq] !== PIECE.EMPTY) return undefined;
    square = sq;
  }
  if (square === undefined) return undefined;
  const code = codes[square]!;
  const own = after.turn === 'white' ? isWhite(code) : isBlack(code);
  if (own) return { square, liftable: after.dests(square).nonEmpty() };
  let liftable = false;
  for (const [, to] of after.allDests()) if (to.has(square)) liftable = true;
  return { square, liftable };
}

/**
 * Unchanged squares holding a pawn that a pawn of the same side standing behind it on a changed
 * square could step or capture into: the pawn in front may leave (a capture, hxg5 then h3-h4, the
 * doubled pawn's most common way forward) and be replaced by an identical one, which the
 * changed-square rule would otherwise leave out.
 */
function refillableByPawn(start: Uint8Array, changed: ReadonlySet<number>): Set<number> {
  const squares = new Set<number>();
  for (const behind of changed) {
    const code = start[behind]!;
    if (code !== PIECE.WPAWN && code !== PIECE.BPAWN) continue;
    const forward = code === PIECE.WPAWN ? 8 : -8;
    const file = behind & 7;
    const homeRank = code === PIECE.WPAWN ? 1 : 6;
    const ahead = [behind + forward];
    if (behind >> 3 === homeRank) ahead.push(behind + 2 * forward);
    if (file > 0) ahead.push(behind + forward - 1);
    if (file < 7) ahead.push(behind + forward + 1);
    for (const sq of ahead) if (sq >= 0 && sq < 64 && start[sq] === code && !changed.has(sq)) squares.add(sq);
  }
  return squares;
}

const castleRight = (pos: Chess, c: Color): boolean => pos.castles.rook[c].a !== undefined || pos.castles.rook[c].h !== undefined;

/** What the bounds on a node's successors share: the plies after its move, each side's share of them (the other side moves first), and the castling rights before it. */
interface PliesLeft {
  rest: number;
  whiteMoves: number;
  blackMoves: number;
  rightsWhite: boolean;
  rightsBlack: boolean;
}

function pliesLeft(p: Chess, left: number): PliesLeft {
  const rest = left - 1;
  const whiteMoves = p.turn === 'white' ? rest - Math.ceil(rest / 2) : Math.ceil(rest / 2);
  return { rest, whiteMoves, blackMoves: rest - whiteMoves, rightsWhite: castleRight(p, 'white'), rightsBlack: castleRight(p, 'black') };
}

/**
 * A move changes two squares; castling four (once per side that still has moves and can castle),
 * en passant three (each takes a pawn the target no longer has, right after the opponent's double
 * step, so at most every other ply); no move more than four.
 */
const squaresChangeable = (rest: number, castlings: number, enPassants: number): number => 2 * rest + Math.min(2 * rest, 2 * castlings + enPassants);

/** En passant captures the `rest` plies can still hold, with these pawns on the board and `targetPawns` on the target. */
function enPassantsLeft(rest: number, whiteMoves: number, blackMoves: number, whitePawns: number, blackPawns: number, targetPawns: { white: number; black: number }): number {
  return Math.min(Math.ceil(rest / 2), Math.min(whiteMoves, Math.max(0, blackPawns - targetPawns.black)) + Math.min(blackMoves, Math.max(0, whitePawns - targetPawns.white)));
}

/**
 * Whether a position still differing on `diff` squares, with `white` (`black`) squares waiting
 * for a piece of that side, can become the target in the plies left (see the module comment).
 */
function fits(diff: number, white: number, black: number, { rest, whiteMoves, blackMoves }: PliesLeft, enPassants: number, castleWhite: boolean, castleBlack: boolean): boolean {
  const cw = whiteMoves > 0 && castleWhite ? 1 : 0;
  const cb = blackMoves > 0 && castleBlack ? 1 : 0;
  return diff <= squaresChangeable(rest, cw + cb, enPassants) && white <= whiteMoves + cw && black <= blackMoves + cb;
}

export function searchJump(pos: Chess, target: ArrayLike<number>, opts: JumpSearchOptions): JumpSearch {
  const meter = opts.meter;
  if (!meter) return searchWithin(pos, target, opts);
  const found = searchWithin(pos, target, { ...opts, budget: Math.min(opts.budget, meter.left) });
  meter.left = Math.max(0, meter.left - found.nodes);
  return found;
}

function searchWithin(pos: Chess, target: ArrayLike<number>, opts: JumpSearchOptions): JumpSearch {
  const keep = opts.keep ?? 8;
  const start = positionCodes(pos);
  const changed = new Set<number>();
  for (let s = 0; s < 64; s++) if (start[s] !== target[s]) changed.add(s);
  const refilled = refillableByPawn(start, changed);
  const targetPawns = { white: 0, black: 0 };
  const targetKing: Record<Color, number> = { white: -1, black: -1 };
  for (let s = 0; s < 64; s++) {
    if (target[s] === PIECE.WPAWN) targetPawns.white++;
    else if (target[s] === PIECE.BPAWN) targetPawns.black++;
    else if (target[s] === PIECE.WKING) targetKing.white = s;
    else if (target[s] === PIECE.BKING) targetKing.black = s;
  }
  let nodes = 0;
  let exhausted = false;
  const slack = opts.pieceInHand ? 1 : 0;
  // A board one piece short of the position itself is a piece in a hand, not a jump.
  if (opts.pieceInHand && needOf(start, target).diff <= 1) return { sequences: [], more: false, nodes, exhausted };
  const resume = opts.resume;
  for (let depth = resume?.depth ?? opts.minDepth ?? 2; depth <= opts.maxDepth; depth++) {
    if (opts.turnAfter !== undefined && (depth % 2 === 0 ? pos.turn : pos.turn === 'white' ? 'black' : 'white') !== opts.turnAfter) continue;
    const resumed = resume?.depth === depth ? resume : undefined;
    const found: NormalMove[][] = resumed ? [...resumed.found] : [];
    let more = false;
    const nearly: NearlyFound[] = resumed ? [...resumed.nearly] : [];
    let nearlyMore = resumed?.nearlyMore ?? false;
    // The successor taken at each ply of the path, and the path to go on from: followed down
    // once (each ply from the successor it was on), then left (every later node from its first).
    const taken: number[] = [];
    let onResumePath = resumed !== undefined && resumed.path.length > 0;
    let stoppedAt: number[] | undefined;
    // A search gone on with looks at one successor at least, however many moves not built it
    // counts first: each part of a search spread over several gets further than the last.
    let movedOn = resumed === undefined;
    const pruneByChanged = depth > COMPLETE_DEPTH;
    const reached = new Set<number>();
    /** Where the piece now on a square stood when the sequence began (pieces moved so far). */
    const origin = new Map<number, number>();
    // The key of the path's state (pieces, squares reached, origins), and the subtrees found dead.
    const state = new StateKey();
    for (let sq = 0; sq < 64; sq++) state.toggle(PIECE_AT, sq, start[sq]!);
    const dead = resumed?.dead ?? new Set<number>();
    /** The square the piece on an excursion must come back to (-1: none out), and excursions left. */
    let excursion = -1;
    let excursionsLeft = opts.excursions ?? 0;
    const setOrigin = (sq: number, from: number | undefined): void => {
      const was = origin.get(sq);
      if (was === from) return;
      if (was !== undefined) state.toggle(ORIGIN, sq, was);
      if (from === undefined) origin.delete(sq);
      else {
        origin.set(sq, from);
        state.toggle(ORIGIN, sq, from);
      }
    };
    // Beyond the complete depth a move starts where the changed-square rule lets it (or is a
    // castling, from the king's square, or an excursion's start): the other pieces' moves would be
    // dropped unweighed, so they are not built (only counted).
    const changeMayStart = (codes: Uint8Array, sq: number): boolean => {
      if (changed.has(sq) || reached.has(sq) || refilled.has(sq)) return true;
      const code = codes[sq]!;
      if (code === PIECE.WKING || code === PIECE.BKING) return true;
      if (excursionsLeft === 0 || excursion >= 0 || code === PIECE.WPAWN || code === PIECE.BPAWN) return false;
      return !opts.excursionFrom || opts.excursionFrom.has(sq);
    };
    /**
     * Which pieces may move at a node: those with a move that could leave a child within the
     * bounds below (checked again, exactly, on each successor). A move of a piece other than the
     * king changes the squares left to change by at least its source's part less one (the
     * destination can come right; en passant's taken pawn too), and fills a square that needs
     * one of the mover's pieces only if a piece like it is needed somewhere. The bounds are
     * taken with the rights before the move, which a move can only lose.
     */
    const mayMove = (p: Chess, codes: Uint8Array, need: Need, { rest, whiteMoves, blackMoves, rightsWhite, rightsBlack }: PliesLeft): ((sq: number) => boolean) | undefined => {
      const rightWhite = whiteMoves > 0 && rightsWhite ? 1 : 0;
      const rightBlack = blackMoves > 0 && rightsBlack ? 1 : 0;
      const enPassants = enPassantsLeft(rest, whiteMoves, blackMoves, need.whitePawns, need.blackPawns, targetPawns);
      const allowance = squaresChangeable(rest, rightWhite + rightBlack, enPassants) + slack - need.diff;
      const arrivals = p.turn === 'white' ? need.white - whiteMoves - rightWhite : need.black - blackMoves - rightBlack;
      const mustArrive = arrivals > 0;
      if (allowance >= 1 && !mustArrive) return pruneByChanged ? (sq) => changeMayStart(codes, sq) : undefined;
      let wanted: Set<number> | undefined;
      if (mustArrive) {
        wanted = new Set();
        for (let sq = 0; sq < 64; sq++) if (codes[sq] !== target[sq]) wanted.add(target[sq]!);
      }
      const enPassant = p.epSquare !== undefined;
      return (sq) => {
        if (pruneByChanged && !changeMayStart(codes, sq)) return false;
        const code = codes[sq]!;
        if (code === PIECE.WKING || code === PIECE.BKING) return true;
        const pawn = code === PIECE.WPAWN || code === PIECE.BPAWN;
        if (wanted && !pawn && !wanted.has(code)) return false;
        const fromPart = (target[sq] !== PIECE.EMPTY ? 1 : 0) - (code !== target[sq] ? 1 : 0);
        return fromPart - (pawn && enPassant ? 2 : 1) <= allowance;
      };
    };
    const dfs = (p: Chess, codes: Uint8Array, need: Need, left: number, path: NormalMove[]): void => {
      const plies = pliesLeft(p, left);
      const { rest, whiteMoves, blackMoves, rightsWhite, rightsBlack } = plies;
      const skipped: number[] = [];
      const successors = successorsOf(p, codes, mayMove(p, codes, need, plies), skipped);
      const level = path.length;
      const resumeFrom = onResumePath && resumed ? resumed.path[level]! : 0;
      if (onResumePath && resumed && level === resumed.path.length - 1) onResumePath = false;
      for (let i = resumeFrom; i < successors.length; i++) {
        const s = successors[i]!;
        if (more) return;
        // Going back down the path a search stopped on: these nodes were counted then, and each
        // part of a search spread over several goes on where the last stopped.
        if (!(onResumePath && i === resumeFrom)) {
          // The moves not built before this one count as they did when each was built and dropped:
          // the budget stops the search where it always did, and finds the same sequences.
          if (nodes <= opts.budget) nodes = Math.min(nodes + skipped[i]!, opts.budget + 1);
          if (nodes > opts.budget && movedOn) {
            stoppedAt ??= [...taken.slice(0, level), i];
            return;
          }
          nodes++;
          movedOn = true;
        }
        let leaves = false;
        let returns = false;
        if (pruneByChanged) {
          const rook = s.castling ? s.move.to : -1;
          const from = s.move.from;
          if (!changed.has(from) && !reached.has(from) && !refilled.has(from) && !(rook >= 0 && (changed.has(rook) || reached.has(rook)))) {
            if (excursionsLeft === 0 || excursion >= 0 || s.castling || codes[from] === PIECE.WPAWN || codes[from] === PIECE.BPAWN) continue;
            if (opts.excursionFrom && !opts.excursionFrom.has(from)) continue;
            leaves = true;
          }
          if (!s.castling && origin.get(from) === s.move.to) {
            if (s.move.to !== excursion) continue;
            returns = true;
          }
        }
        let diff = need.diff;
        let white = need.white;
        let black = need.black;
        let whitePawns = need.whitePawns;
        let blackPawns = need.blackPawns;
        for (let i = 0; i < s.squares.length; i++) {
          const sq = s.squares[i]!;
          const t = target[sq]!;
          whitePawns += Number(s.codes[i] === PIECE.WPAWN) - Number(codes[sq] === PIECE.WPAWN);
          blackPawns += Number(s.codes[i] === PIECE.BPAWN) - Number(codes[sq] === PIECE.BPAWN);
          const was = codes[sq] !== t;
          const now = s.codes[i] !== t;
          if (was === now) continue;
          const d = now ? 1 : -1;
          diff += d;
          if (isWhite(t)) white += d;
          else if (isBlack(t)) black += d;
        }
        if (left === 1) {
          if (diff === 0) {
            if (found.length < keep) found.push([...path, s.move]);
            else more = true;
          } else if (diff === 1 && opts.pieceInHand && found.length === 0) {
            const missing = missingPiece(p, s.move, target);
            if (missing) {
              if (nearly.length < keep) nearly.push({ ...missing, moves: [...path, s.move] });
              else nearlyMore = true;
            }
          }
          continue;
        }
        // What is left to do must fit in the plies left (see the module comment).
        const enPassants = enPassantsLeft(rest, whiteMoves, blackMoves, whitePawns, blackPawns, targetPawns);
        // First with the rights before the move (a move only loses rights): most successors that
        // fail do so here, before the cost of playing them.
        if (!fits(diff - slack, white, black, plies, enPassants, rightsWhite, rightsBlack)) continue;
        const child = p.clone();
        child.play(s.move);
        // Castling moves two pieces: possible for a side with the right whose king the target shows
        // elsewhere (a king that castles and walks home is left out).
        const castleWhite = castleRight(child, 'white') && child.board.kingOf('white') !== targetKing.white;
        const castleBlack = castleRight(child, 'black') && child.board.kingOf('black') !== targetKing.black;
        if (!fits(diff - slack, white, black, plies, enPassants, castleWhite, castleBlack)) continue;
        const childCodes = codes.slice();
        for (let i = 0; i < s.squares.length; i++) {
          const sq = s.squares[i]!;
          state.toggle(PIECE_AT, sq, childCodes[sq]!);
          childCodes[sq] = s.codes[i]!;
          state.toggle(PIECE_AT, sq, childCodes[sq]!);
        }
        const added: number[] = [];
        const from = s.move.from;
        const to = s.move.to;
        const hadOrigin = origin.get(to);
        const movedOrigin = origin.get(from);
        if (pruneByChanged) {
          for (const sq of s.squares)
            if (!reached.has(sq)) {
              reached.add(sq);
              state.toggle(REACHED, sq, 0);
              added.push(sq);
            }
          if (!s.castling) {
            // A promoted piece is a new one: back on the square its pawn began on, it has not gone
            // out and back (seed 7052: gxf2 fxg1=Q … Qg3+, the queen where the pawn stood).
            setOrigin(to, s.move.promotion ? undefined : (movedOrigin ?? from));
            setOrigin(from, undefined);
          }
        }
        const wasExcursion = excursion;
        if (leaves) {
          excursion = from;
          excursionsLeft--;
        } else if (returns) excursion = -1;
        const subtree = subtreeKey(state, child, rest, excursion, excursionsLeft);
        if (!dead.has(subtree)) {
          const results = found.length + nearly.length;
          // A subtree gone on with from where a search stopped found some of its sequences then.
          const partial = onResumePath;
          path.push(s.move);
          taken[level] = i;
          dfs(child, childCodes, { diff, white, black, whitePawns, blackPawns }, rest, path);
          path.pop();
          // Complete and fruitless: the same state met by another order leads nowhere either.
          if (found.length + nearly.length === results && !partial && !more && !nearlyMore && nodes <= opts.budget) dead.add(subtree);
        }
        excursion = wasExcursion;
        if (leaves) excursionsLeft++;
        for (const sq of added) {
          reached.delete(sq);
          state.toggle(REACHED, sq, 0);
        }
        if (pruneByChanged && !s.castling) {
          setOrigin(to, hadOrigin);
          setOrigin(from, movedOrigin);
        }
        for (let i = 0; i < s.squares.length; i++) {
          const sq = s.squares[i]!;
          state.toggle(PIECE_AT, sq, childCodes[sq]!);
          state.toggle(PIECE_AT, sq, codes[sq]!);
        }
      }
      if (!more && nodes <= opts.budget) nodes = Math.min(nodes + skipped[successors.length]!, opts.budget + 1);
    };
    dfs(pos, start, needOf(start, target), depth, []);
    if (nodes > opts.budget) exhausted = true;
    // Where to go on from. Stopped only by the count of the moves not built after the last
    // successor, with nothing found: this depth is done, and a search gone on with starts at the next.
    let stopped: { resume?: SearchResume } = {};
    if (exhausted && stoppedAt) stopped = { resume: { depth, path: stoppedAt, found: [...found], nearly: [...nearly], nearlyMore, dead } };
    else if (exhausted && found.length + nearly.length === 0 && depth < opts.maxDepth) stopped = { resume: { depth: depth + 1, path: [], found: [], nearly: [], nearlyMore: false, dead: new Set() } };
    if (found.length > 0) return { sequences: found, more, nodes, exhausted, ...stopped };
    if (nearly.length > 0) {
      // A piece the next player could be moving or taking is the likelier hand (stable sort).
      const sorted = [...nearly].sort((a, b) => Number(b.liftable) - Number(a.liftable));
      return { sequences: sorted.map((n) => n.moves), more: nearlyMore, nodes, exhausted, inHand: sorted[0]!.square, ...stopped };
    }
    if (exhausted) return { sequences: [], more: false, nodes, exhausted, ...stopped };
  }
  return { sequences: [], more: false, nodes, exhausted };
}
