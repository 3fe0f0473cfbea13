import { Chess } from 'chessops/chess';
import { parseFen } from 'chessops/fen';

/** A start position (standard or Chess960) and the chessops position it sets up. */
export interface RecognisedStart {
  kind: 'standard' | 'chess960';
  chess960Number: number;
  fen: string;
  pos: Chess;
}

/** Knight placements over the five squares left after bishops and queen (Scharnagl's table). */
const KNIGHT_TABLE: readonly (readonly [number, number])[] = [
  [0, 1],
  [0, 2],
  [0, 3],
  [0, 4],
  [1, 2],
  [1, 3],
  [1, 4],
  [2, 3],
  [2, 4],
  [3, 4],
];

/**
 * The Chess960 start (Guidelines II) with this White back rank (files a–h, "RNBQKBNR"), with its
 * Scharnagl number (518 = standard), or undefined when the rank is no Chess960 start.
 */
export function startFromBackRank(back: string): RecognisedStart | undefined {
  const n = scharnagl(back);
  if (n === undefined) return undefined;
  const rooks = [...back].flatMap((c, i) => (c === 'R' ? [i] : []));
  const castling = n === 518 ? 'KQkq' : rooks.map((i) => 'ABCDEFGH'[i]).join('') + rooks.map((i) => 'abcdefgh'[i]).join('');
  const fen = `${back.toLowerCase()}/pppppppp/8/8/8/8/PPPPPPPP/${back} w ${castling} - 0 1`;
  const pos = Chess.fromSetup(parseFen(fen).unwrap()).unwrap();
  return { kind: n === 518 ? 'standard' : 'chess960', chess960Number: n, fen, pos };
}

/** Scharnagl numbering of a back rank "RNBQKBNR" (files a–h), undefined if not a 960 start. */
export function scharnagl(back: string): number | undefined {
  const count = (c: string): number => [...back].filter((x) => x === c).length;
  if (back.length !== 8 || count('K') !== 1 || count('Q') !== 1 || count('R') !== 2 || count('N') !== 2 || count('B') !== 2) return undefined;
  const king = back.indexOf('K');
  if (!(back.indexOf('R') < king && back.lastIndexOf('R') > king)) return undefined;
  const bishops = [back.indexOf('B'), back.lastIndexOf('B')];
  const light = bishops.find((f) => f % 2 === 1);
  const dark = bishops.find((f) => f % 2 === 0);
  if (light === undefined || dark === undefined) return undefined;
  const rest = [...back].map((c, i) => [c, i] as const).filter(([c]) => c !== 'B');
  const queen = rest.findIndex(([c]) => c === 'Q');
  const five = rest.filter(([c]) => c !== 'Q');
  const knights = five.flatMap(([c], i) => (c === 'N' ? [i] : []));
  const k = KNIGHT_TABLE.findIndex(([a, b]) => a === knights[0] && b === knights[1]);
  return (light - 1) / 2 + 4 * (dark / 2 + 4 * (queen + 6 * k));
}

/** The White back rank (files a–h, e.g. "BBQNNRKR") of Chess960 start `n` (0–959; 518 is the standard one). */
export function chess960BackRank(n: number): string {
  let k = ((Math.floor(n) % 960) + 960) % 960;
  const rank: (string | undefined)[] = new Array<string | undefined>(8).fill(undefined);
  rank[(k % 4) * 2 + 1] = 'B';
  k = Math.floor(k / 4);
  rank[(k % 4) * 2] = 'B';
  k = Math.floor(k / 4);
  const free = (): number[] => rank.flatMap((p, i) => (p === undefined ? [i] : []));
  rank[free()[k % 6]!] = 'Q';
  k = Math.floor(k / 6);
  const [n1, n2] = KNIGHT_TABLE[k]!;
  const f = free();
  rank[f[n1]!] = 'N';
  rank[f[n2]!] = 'N';
  const rest = free();
  rank[rest[0]!] = 'R';
  rank[rest[1]!] = 'K';
  rank[rest[2]!] = 'R';
  return rank.join('');
}
