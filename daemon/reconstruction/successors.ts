import type { NormalMove, Role } from 'chessops';
import type { Chess } from 'chessops/chess';
import { PIECE, pieceToCode } from '../../protocols/dgt/squares.ts';

/**
 * A legal move seen as what it does to the board's sensors: the squares whose piece code changes
 * and their new codes (castling touches up to four squares; a Chess960 king or rook that ends where
 * it started touches none). Computed without playing the move, so matching a board against every
 * legal successor costs a few comparisons per move.
 */
export interface Successor {
  move: NormalMove;
  squares: number[];
  codes: number[];
  castling: boolean;
}

const PROMOTIONS: readonly Role[] = ['queen', 'rook', 'bishop', 'knight'];

/** The board codes (index: chessops Square) of a position. */
export function positionCodes(pos: Chess): Uint8Array {
  const out = new Uint8Array(64);
  for (const [sq, piece] of pos.board) out[sq] = pieceToCode(piece);
  return out;
}

export function successorsOf(pos: Chess, codes: Uint8Array): Successor[] {
  const out: Successor[] = [];
  const changes = new Map<number, number>();
  const push = (move: NormalMove, castling: boolean): void => {
    const squares: number[] = [];
    const newCodes: number[] = [];
    for (const [sq, code] of changes) {
      if (codes[sq] !== code) {
        squares.push(sq);
        newCodes.push(code);
      }
    }
    out.push({ move, squares, codes: newCodes, castling });
    changes.clear();
  };
  for (const [from, dests] of pos.allDests()) {
    const piece = pos.board.get(from)!;
    const code = codes[from]!;
    for (const to of dests) {
      const target = pos.board.get(to);
      if (piece.role === 'king' && target && target.color === piece.color) {
        // chessops writes castling as king onto its own rook; the pieces end on c/d or g/f.
        const rank = from & 56;
        const hSide = to > from;
        changes.set(from, PIECE.EMPTY).set(to, PIECE.EMPTY);
        changes.set(rank + (hSide ? 6 : 2), code).set(rank + (hSide ? 5 : 3), codes[to]!);
        push({ from, to }, true);
      } else if (piece.role === 'pawn' && (to >> 3 === 0 || to >> 3 === 7)) {
        for (const role of PROMOTIONS) {
          changes.set(from, PIECE.EMPTY).set(to, pieceToCode({ color: piece.color, role }));
          push({ from, to, promotion: role }, false);
        }
      } else {
        changes.set(from, PIECE.EMPTY).set(to, code);
        if (piece.role === 'pawn' && !target && (from & 7) !== (to & 7))
          changes.set(to + (piece.color === 'white' ? -8 : 8), PIECE.EMPTY);
        push({ from, to }, false);
      }
    }
  }
  return out;
}

/** Whether `seen` shows exactly the successor `s` of the position whose codes are `codes`. */
export function showsSuccessor(s: Successor, seen: ArrayLike<number>, mismatches: number): boolean {
  if (s.squares.length !== mismatches) return false;
  for (let i = 0; i < s.squares.length; i++) if (seen[s.squares[i]!] !== s.codes[i]) return false;
  return true;
}

export interface SequenceSearch {
  /** The first shortest sequence found (empty when none within the depth). */
  moves: NormalMove[];
  /** Number of distinct shortest sequences (capped). */
  count: number;
}

/**
 * The shortest legal sequences (2..maxDepth plies) from `pos` that leave exactly the `target`
 * board. Bounded: a ply changes at most four squares, so a branch whose remaining difference
 * cannot be closed in the plies left is cut; a node budget keeps a pathological board cheap.
 */
export function findSequences(pos: Chess, target: ArrayLike<number>, maxDepth: number, budget = 200_000): SequenceSearch {
  let nodes = 0;
  for (let depth = 2; depth <= maxDepth; depth++) {
    const found: NormalMove[][] = [];
    const dfs = (p: Chess, codes: Uint8Array, left: number, path: NormalMove[]): void => {
      if (found.length >= 8 || nodes > budget) return;
      let diff = 0;
      for (let s = 0; s < 64; s++) if (codes[s] !== target[s]) diff++;
      for (const s of successorsOf(p, codes)) {
        nodes++;
        let d = diff;
        for (let i = 0; i < s.squares.length; i++) {
          const sq = s.squares[i]!;
          const was = codes[sq] !== target[sq];
          const now = s.codes[i] !== target[sq];
          d += (now ? 1 : 0) - (was ? 1 : 0);
        }
        if (left === 1) {
          if (d === 0) found.push([...path, s.move]);
          continue;
        }
        if (d > 4 * (left - 1)) continue;
        const child = p.clone();
        child.play(s.move);
        const childCodes = codes.slice();
        for (let i = 0; i < s.squares.length; i++) childCodes[s.squares[i]!] = s.codes[i]!;
        dfs(child, childCodes, left - 1, [...path, s.move]);
      }
    };
    dfs(pos, positionCodes(pos), depth, []);
    if (found.length > 0) return { moves: found[0]!, count: found.length };
    if (nodes > budget) break;
  }
  return { moves: [], count: 0 };
}
