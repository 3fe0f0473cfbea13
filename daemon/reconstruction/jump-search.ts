import type { Color, NormalMove } from 'chessops';
import type { Chess } from 'chessops/chess';
import { PIECE } from '../../protocols/dgt/squares.ts';
import { positionCodes, successorsOf } from './successors.ts';

/**
 * The search behind a board that jumped: after an outage, a burst, or a dump taken while a piece was
 * in the hand, the board shows a placement several plies on from the game. This finds the shortest
 * legal sequences from the game's position that leave exactly that placement.
 *
 * A plain search of six plies would visit a billion positions; three facts of the board keep it to
 * a few thousand:
 * - Arrivals. A move puts exactly one of the mover's pieces on a square (castling two), and the
 *   opponent's moves never put one of them anywhere. A square where the target shows a white piece
 *   the board does not have yet needs a white move of its own, so with `w` white moves left at most
 *   `w` (plus one while White may still castle) such squares can be open. Likewise for Black.
 * - Changed squares. Beyond three plies a move must start on a square that differs from the target
 *   or that an earlier move of the sequence reached: a piece that leaves a square already right must
 *   be replaced by an identical one, which a shortest sequence almost never does (two rooks doubling
 *   on a file is the exception, and it is left to the arbiter rather than paid for on every search).
 *   Nor may a piece go back to the square it started the sequence from: that detour is how a
 *   search "explains" a piece that is only in a player's hand (it wanders off and is captured).
 * - The clock. When the side to move after the jump is known (the press that completed it), only
 *   depths of the matching parity are tried.
 */

export interface JumpSearchOptions {
  /** Shortest sequence tried (plies; default 2: one move is the matcher's business). */
  minDepth?: number;
  /** Longest sequence tried (plies). */
  maxDepth: number;
  /** Nodes (successors looked at) before giving up: a pathological board stays cheap. */
  budget: number;
  /** Whose turn it is once the sequence is played, when a press tells. */
  turnAfter?: Color;
  /** How many sequences to keep (the first is the one published; the rest are the alternatives). */
  keep?: number;
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
}

function needOf(codes: ArrayLike<number>, target: ArrayLike<number>): Need {
  const n: Need = { diff: 0, white: 0, black: 0 };
  for (let s = 0; s < 64; s++) {
    const t = target[s]!;
    if (codes[s] === t) continue;
    n.diff++;
    if (isWhite(t)) n.white++;
    else if (isBlack(t)) n.black++;
  }
  return n;
}

export function searchJump(pos: Chess, target: ArrayLike<number>, opts: JumpSearchOptions): JumpSearch {
  const keep = opts.keep ?? 8;
  const start = positionCodes(pos);
  const changed = new Set<number>();
  for (let s = 0; s < 64; s++) if (start[s] !== target[s]) changed.add(s);
  let nodes = 0;
  let exhausted = false;
  for (let depth = opts.minDepth ?? 2; depth <= opts.maxDepth; depth++) {
    if (opts.turnAfter !== undefined && (depth % 2 === 0 ? pos.turn : pos.turn === 'white' ? 'black' : 'white') !== opts.turnAfter) continue;
    const found: NormalMove[][] = [];
    let more = false;
    const pruneByChanged = depth > COMPLETE_DEPTH;
    const reached = new Set<number>();
    /** Where the piece now on a square stood when the sequence began (pieces moved so far). */
    const origin = new Map<number, number>();
    const dfs = (p: Chess, codes: Uint8Array, need: Need, left: number, path: NormalMove[]): void => {
      for (const s of successorsOf(p, codes)) {
        if (more || nodes > opts.budget) return;
        nodes++;
        if (pruneByChanged) {
          const rook = s.castling ? s.move.to : -1;
          const from = s.move.from;
          if (!changed.has(from) && !reached.has(from) && !(rook >= 0 && (changed.has(rook) || reached.has(rook)))) continue;
          if (!s.castling && origin.get(from) === s.move.to) continue;
        }
        let diff = need.diff;
        let white = need.white;
        let black = need.black;
        for (let i = 0; i < s.squares.length; i++) {
          const sq = s.squares[i]!;
          const t = target[sq]!;
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
          }
          continue;
        }
        // What is left to do must fit in the plies left (see the module comment).
        const rest = left - 1;
        const mover = p.turn;
        const next = mover === 'white' ? 'black' : 'white';
        const nextMoves = Math.ceil(rest / 2);
        const moverMoves = rest - nextMoves;
        const whiteMoves = next === 'white' ? nextMoves : moverMoves;
        const blackMoves = rest - whiteMoves;
        if (diff > 4 * rest) continue;
        const child = p.clone();
        child.play(s.move);
        const canCastle = (c: Color): number => (child.castles.rook[c].a !== undefined || child.castles.rook[c].h !== undefined ? 1 : 0);
        if (white > whiteMoves + (whiteMoves > 0 ? canCastle('white') : 0)) continue;
        if (black > blackMoves + (blackMoves > 0 ? canCastle('black') : 0)) continue;
        const childCodes = codes.slice();
        for (let i = 0; i < s.squares.length; i++) childCodes[s.squares[i]!] = s.codes[i]!;
        const added: number[] = [];
        const from = s.move.from;
        const to = s.move.to;
        const hadOrigin = origin.get(to);
        const movedOrigin = origin.get(from);
        if (pruneByChanged) {
          for (const sq of s.squares)
            if (!reached.has(sq)) {
              reached.add(sq);
              added.push(sq);
            }
          if (!s.castling) {
            origin.set(to, movedOrigin ?? from);
            origin.delete(from);
          }
        }
        path.push(s.move);
        dfs(child, childCodes, { diff, white, black }, rest, path);
        path.pop();
        for (const sq of added) reached.delete(sq);
        if (pruneByChanged && !s.castling) {
          if (hadOrigin === undefined) origin.delete(to);
          else origin.set(to, hadOrigin);
          if (movedOrigin !== undefined) origin.set(from, movedOrigin);
        }
      }
    };
    dfs(pos, start, needOf(start, target), depth, []);
    if (nodes > opts.budget) exhausted = true;
    if (found.length > 0) return { sequences: found, more, nodes, exhausted };
    if (exhausted) break;
  }
  return { sequences: [], more: false, nodes, exhausted };
}
