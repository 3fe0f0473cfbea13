import type { GameResult, GameState, GameSummary, LiveSource, MoveRecord, PlayerInfo, RoundInfo } from '../../protocols/feed/model.ts';
import { movesBeforeBreak } from '../../protocols/feed/pgn.ts';

/**
 * LiveChess Cloud JSON shapes, as relay platforms (lichess's RelayFetch `DgtJson`, tournament sites)
 * read them. Only fields those readers use are guaranteed; the rest are filled as far as we know.
 */

export interface LccPlayer {
  fname: string | null;
  mname: string | null;
  lname: string | null;
  title: string | null;
  federation: string | null;
  gender: string | null;
  fideid: number | null;
}

export interface LccPairing {
  white: LccPlayer | null;
  black: LccPlayer | null;
  /** Null for a board with no game in the round (a gap in the board numbers). */
  result: GameResult | null;
  live: boolean;
}

/** A board number of the round no game is played on: LCC's pairings are indexed by board. */
const NO_GAME: LccPairing = { white: null, black: null, result: null, live: false };

/**
 * The round's games by board (table) number, as LiveChess numbers them: `game-M.json` is the game
 * at board M and pairing M-1 in the index, fixed once given whenever other tables join the round.
 * A board number without a game is a hole (undefined); the first game at a board keeps it.
 */
export function gamesByBoard(games: readonly GameSummary[]): (GameSummary | undefined)[] {
  const byBoard: (GameSummary | undefined)[] = [];
  for (const g of games) {
    if (g.table >= 1 && byBoard[g.table - 1] === undefined) byBoard[g.table - 1] = g;
  }
  return Array.from({ length: byBoard.length }, (_, i) => byBoard[i]);
}

export interface LccRoundIndex {
  date: string | null;
  pairings: LccPairing[];
}

export interface LccTournament {
  id: string;
  name: string;
  location: string | null;
  country: string | null;
  website: string | null;
  rules: string;
  chess960: string;
  timecontrol: string | null;
  /** `live` is a flag, 1 while any game of the round is being played. */
  rounds: { count: number; live: 0 | 1 }[];
  eboards: string[];
}

export interface LccClock {
  /** Remaining seconds, as the LCC clock object carries them. */
  white: number;
  black: number;
  /** Epoch ms of the reading. */
  time: number;
  /** true while White's clock runs, false while Black's, null when stopped (as LiveChess has it). */
  run: boolean | null;
}

/** LCC's game result words; the round index carries PGN tokens instead. Null while running. */
export type LccResult = 'WHITEWIN' | 'BLACKWIN' | 'DRAW' | null;

const LCC_RESULT: Record<GameResult, LccResult> = { '1-0': 'WHITEWIN', '0-1': 'BLACKWIN', '1/2-1/2': 'DRAW', '*': null };

export interface LccGame {
  live: boolean;
  serialNr: string | null;
  /** Epoch ms of the first move. */
  firstMove: number | null;
  chess960: number;
  result: LccResult;
  comment: string | null;
  clock: LccClock | null;
  moves: string[];
}

/**
 * Names are stored "Last, First Middle" (FIDE rating list order); without a comma the last word is
 * taken as the surname. Relays join fname/mname/lname back with spaces.
 */
export function lccPlayer(p: PlayerInfo): LccPlayer {
  const name = p.name.trim();
  let fname: string | null = null;
  let mname: string | null = null;
  let lname: string | null = null;
  const comma = name.indexOf(',');
  const split = (given: string): void => {
    const parts = given.split(/\s+/).filter(Boolean);
    fname = parts[0] ?? null;
    mname = parts.length > 1 ? parts.slice(1).join(' ') : null;
  };
  if (comma >= 0) {
    lname = name.slice(0, comma).trim() || null;
    split(name.slice(comma + 1).trim());
  } else {
    const parts = name.split(/\s+/).filter(Boolean);
    lname = parts.pop() ?? null;
    split(parts.join(' '));
  }
  return { fname, mname, lname, title: p.title, federation: p.federation, gender: null, fideid: p.fideId };
}

/**
 * One move as LCC lists it: SAN, a space, the mover's remaining whole seconds after the move, then
 * `+` and the seconds the move took, e.g. `"Bc5 5222+326"` (a public LCC game file, as quoted in
 * lichess-org/pgn-mule's LCC test). LCC itself omits `+N` on some moves; readers take the leading
 * digits after the space (lichess RelayFetch `takeWhile(isDigit)`, pgn-mule `parseInt`). Without a
 * clock reading the move is the bare SAN; the first move has no previous move to time it from.
 */
export function lccMove(m: MoveRecord, previous: MoveRecord | undefined): string {
  if (m.clockMs === null) return m.san;
  const left = `${m.san} ${Math.max(0, Math.floor(m.clockMs / 1000))}`;
  return previous ? `${left}+${Math.max(0, Math.floor((m.at - previous.at) / 1000))}` : left;
}

export function lccGame(g: GameState, serialNr: string | null): LccGame {
  const c = g.clock;
  return {
    live: g.status === 'live',
    serialNr,
    firstMove: g.moves[0]?.at ?? null,
    chess960: chess960Number(g.startFen) ?? 518,
    result: LCC_RESULT[g.result],
    comment: g.termination,
    // A finished game has no clock, as real LCC game files have it: nothing left to tick.
    clock:
      c && g.status !== 'finished'
        ? { white: Math.max(0, Math.floor(c.whiteMs / 1000)), black: Math.max(0, Math.floor(c.blackMs / 1000)), time: c.readAt, run: c.running === null ? null : c.running === 'white' }
        : null,
    // Readers replay the SANs: the list stops at a break in the record (its position is `fen`).
    moves: movesBeforeBreak(g.moves).map((m, i) => lccMove(m, g.moves[i - 1])),
  };
}

export function lccRoundIndex(round: RoundInfo, games: GameSummary[]): LccRoundIndex {
  return {
    date: round.date,
    pairings: gamesByBoard(games).map((g) => (g ? { white: lccPlayer(g.white), black: lccPlayer(g.black), result: g.result, live: g.status === 'live' } : NO_GAME)),
  };
}

export function lccTournament(source: LiveSource, eboards: string[]): LccTournament {
  const t = source.tournament();
  const rounds = source.rounds();
  const count = Math.max(t.roundCount, ...rounds.map((r) => r.round));
  const list: { count: number; live: 0 | 1 }[] = [];
  for (let n = 1; n <= count; n++) {
    const games = source.games(n) ?? [];
    // The count is the index's length: boards 1…highest, so every game-M.json it implies exists or is a hole.
    list.push({ count: gamesByBoard(games).length, live: games.some((g) => g.status === 'live') ? 1 : 0 });
  }
  return {
    id: t.id,
    name: t.name,
    location: t.site,
    country: null,
    website: null,
    rules: 'STANDARD',
    // Public feeds show "STANDARD"; what LCC writes for Chess960 events is not documented, so
    // readers should rely on the per-game `chess960` number.
    chess960: t.variant === 'chess960' ? 'CHESS960' : 'STANDARD',
    timecontrol: t.timeControl,
    rounds: list,
    eboards,
  };
}

const KNIGHT_PAIRS = ['01', '02', '03', '04', '12', '13', '14', '23', '24', '34'];

/**
 * LCC names the start array by its Chess960 number (Scharnagl numbering, 518 = RNBQKBNR): light
 * bishop file, dark bishop file, queen among the six squares left, knight pair among the five left.
 * Null when White's back rank is not a Chess960 array.
 */
export function chess960Number(fen: string): number | null {
  const rank1 = fen.split(' ')[0]?.split('/')[7];
  if (!rank1 || !/^[RNBQK]{8}$/.test(rank1)) return null;
  const files = [...rank1];
  const bishops = files.flatMap((p, i) => (p === 'B' ? [i] : []));
  if (bishops.length !== 2) return null;
  const light = bishops.find((i) => i % 2 === 1);
  const dark = bishops.find((i) => i % 2 === 0);
  if (light === undefined || dark === undefined) return null;
  const rest = files.filter((p) => p !== 'B');
  const q = rest.indexOf('Q');
  const rest5 = rest.filter((p) => p !== 'Q');
  const knights = rest5.flatMap((p, i) => (p === 'N' ? [String(i)] : [])).join('');
  const kn = KNIGHT_PAIRS.indexOf(knights);
  if (q < 0 || kn < 0 || rest5.filter((p) => p !== 'N').join('') !== 'RKR') return null;
  return 96 * kn + 16 * q + 4 * (dark / 2) + (light - 1) / 2;
}
