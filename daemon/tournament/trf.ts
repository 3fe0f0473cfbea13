import { err, ok, type Result } from '../store/result.ts';
import type { PairingInput, PlayerInfo } from '../store/types.ts';
import { checkPairings, parseFederation, parseFideId, parseRating, parseTitle, type LineError } from './players.ts';

/**
 * FIDE Tournament Report File (TRF16, and the TRF-2006 layout it extends), as Swiss-Manager,
 * Vega, JaVaFo and other pairing programs export it. Fixed columns (1-based, FIDE handbook
 * "TRF16"): 001 player lines carry rank 5–8, sex 10, title 11–13, name 15–47, rating 49–52,
 * federation 54–56, FIDE id 58–68, birth date 70–79, points 81–84, rank 86–89, then one 10-column
 * block per round from column 92: opponent 92–95, colour 97, result 99.
 */

export interface TrfHeader {
  /** 012 */ name: string | null;
  /** 022 */ city: string | null;
  /** 032 */ federation: string | null;
  /** 042, 052 as ISO dates */ startDate: string | null;
  endDate: string | null;
  /** 092 */ type: string | null;
  /** 102 */ chiefArbiter: string | null;
  /** 122 */ timeControl: string | null;
  /** 132: one ISO date per round (index 0 = round 1) */ roundDates: (string | null)[];
}

export interface TrfRound {
  /** Starting rank of the opponent; null for a bye or not paired. */
  opponent: number | null;
  colour: 'w' | 'b' | null;
  /** TRF result code (upper case), '' when blank. */
  result: string;
}

export interface TrfPlayer {
  rank: number;
  line: number;
  info: PlayerInfo;
  rounds: TrfRound[];
}

export interface TrfFile {
  header: TrfHeader;
  players: TrfPlayer[];
}

const RESULT_CODES = new Set(['-', '+', 'W', 'D', 'L', '1', '=', '0', 'H', 'F', 'U', 'Z', '']);
const POINTS: Record<string, number> = { '1': 1, '+': 1, W: 1, F: 1, U: 1, '=': 0.5, D: 0.5, H: 0.5 };

/** Columns are 1-based and inclusive, as the TRF specification numbers them. */
const cols = (line: string, from: number, to: number): string => line.slice(from - 1, to);

/** "2026/07/04" or "26/07/04" → "2026-07-04"; undefined when it is not a date. */
function isoDate(raw: string): string | null | undefined {
  const t = raw.trim();
  if (t === '') return null;
  const m = /^(\d{2}|\d{4})[/.-](\d{1,2})[/.-](\d{1,2})$/.exec(t);
  if (!m) return undefined;
  const year = m[1]!.length === 2 ? `20${m[1]}` : m[1]!;
  return `${year}-${m[2]!.padStart(2, '0')}-${m[3]!.padStart(2, '0')}`;
}

function parsePlayerLine(line: string, n: number, errors: LineError[]): TrfPlayer | undefined {
  const before = errors.length;
  const bad = (message: string) => errors.push({ line: n, message });
  const rankText = cols(line, 5, 8).trim();
  if (!/^\d{1,4}$/.test(rankText) || Number(rankText) === 0) {
    bad(`starting rank "${rankText}" (columns 5–8) is not a number from 1 to 9999`);
  }
  const title = parseTitle(cols(line, 11, 13));
  if (title === undefined) bad(`title "${cols(line, 11, 13).trim()}" (columns 11–13) is not a FIDE title`);
  const name = cols(line, 15, 47).trim();
  if (name === '') bad('name (columns 15–47) is empty');
  const rating = parseRating(cols(line, 49, 52));
  if (rating === undefined) bad(`rating "${cols(line, 49, 52).trim()}" (columns 49–52) is not a number up to 3500`);
  const federation = parseFederation(cols(line, 54, 56));
  if (federation === undefined) bad(`federation "${cols(line, 54, 56).trim()}" (columns 54–56) is not a three-letter code`);
  const fideId = parseFideId(cols(line, 58, 68));
  if (fideId === undefined) bad(`FIDE id "${cols(line, 58, 68).trim()}" (columns 58–68) is not a number`);

  const rounds: TrfRound[] = [];
  for (let start = 92, r = 1; start <= line.length; start += 10, r++) {
    const oppText = cols(line, start, start + 3).trim();
    const colourText = cols(line, start + 5, start + 5)
      .trim()
      .toLowerCase();
    const result = cols(line, start + 7, start + 7)
      .trim()
      .toUpperCase();
    if (oppText !== '' && !/^\d{1,4}$/.test(oppText)) {
      bad(`round ${r}: opponent "${oppText}" (columns ${start}–${start + 3}) is not a starting rank`);
      continue;
    }
    if (!['w', 'b', '-', ''].includes(colourText)) {
      bad(`round ${r}: colour "${colourText}" (column ${start + 5}) must be w, b or -`);
      continue;
    }
    if (!RESULT_CODES.has(result)) {
      bad(`round ${r}: result "${result}" (column ${start + 7}) is not a TRF result code`);
      continue;
    }
    const opponent = oppText === '' || Number(oppText) === 0 ? null : Number(oppText);
    const colour = colourText === 'w' || colourText === 'b' ? colourText : null;
    if (opponent !== null && colour === null) bad(`round ${r}: opponent ${opponent} but no colour (column ${start + 5})`);
    rounds.push({ opponent, colour, result });
  }
  if (errors.length > before) return undefined;
  return {
    rank: Number(rankText),
    line: n,
    info: { name, title: title!, rating: rating!, federation: federation!, fideId: fideId! },
    rounds,
  };
}

/** Parses a whole TRF; every bad line is reported (nothing is returned half-parsed). */
export function parseTrf(text: string): Result<TrfFile, LineError[]> {
  const errors: LineError[] = [];
  const header: TrfHeader = {
    name: null,
    city: null,
    federation: null,
    startDate: null,
    endDate: null,
    type: null,
    chiefArbiter: null,
    timeControl: null,
    roundDates: [],
  };
  const players: TrfPlayer[] = [];
  const byRank = new Map<number, TrfPlayer>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  lines.forEach((raw, i) => {
    const n = i + 1;
    const line = raw.replace(/\s+$/, '');
    if (line === '' || line.startsWith('###')) return;
    const code = line.slice(0, 3);
    const value = line.slice(4).trim();
    switch (code) {
      case '001': {
        const p = parsePlayerLine(line, n, errors);
        if (!p) return;
        const dup = byRank.get(p.rank);
        if (dup) errors.push({ line: n, message: `starting rank ${p.rank} is already used on line ${dup.line}` });
        else byRank.set(p.rank, p);
        players.push(p);
        return;
      }
      case '012':
        header.name = value || null;
        return;
      case '022':
        header.city = value || null;
        return;
      case '032':
        header.federation = value || null;
        return;
      case '092':
        header.type = value || null;
        return;
      case '102':
        header.chiefArbiter = value || null;
        return;
      case '122':
        header.timeControl = value || null;
        return;
      case '042':
      case '052': {
        const d = isoDate(value);
        if (d === undefined) errors.push({ line: n, message: `date "${value}" is not YYYY/MM/DD` });
        else if (code === '042') header.startDate = d;
        else header.endDate = d;
        return;
      }
      case '132':
        for (let start = 92; start <= line.length; start += 10) {
          const d = isoDate(cols(line, start, start + 7));
          if (d === undefined) {
            errors.push({ line: n, message: `round date "${cols(line, start, start + 7).trim()}" (columns ${start}–${start + 7}) is not YY/MM/DD` });
          } else header.roundDates.push(d);
        }
        return;
      default:
        // Other record types (062 counts, 162 scoring, 013/310 teams, XXR, DAT, NRS…) carry
        // nothing the broadcast needs.
        return;
    }
  });
  if (players.length === 0 && errors.length === 0) errors.push({ line: lines.length, message: 'no player (001) lines found' });
  return errors.length > 0 ? err(errors) : ok({ header, players });
}

export interface TrfRoundPairings {
  pairings: PairingInput[];
  /** Line of each pairing's white player, for messages. */
  lines: number[];
  /** Players without a game this round (byes, absences), by name. */
  unpaired: string[];
}

/**
 * The games of one round, with board numbers in the order pairing programs print them: highest
 * score group first (score before this round), then the best-ranked player (TRF numbers players by
 * starting rank, so a smaller number is a stronger seed).
 */
export function trfRoundPairings(file: TrfFile, round: number): Result<TrfRoundPairings, LineError[]> {
  const errors: LineError[] = [];
  const byRank = new Map(file.players.map((p) => [p.rank, p]));
  const score = (p: TrfPlayer) => p.rounds.slice(0, round - 1).reduce((s, r) => s + (POINTS[r.result] ?? 0), 0);
  const games: { white: TrfPlayer; black: TrfPlayer }[] = [];
  const unpaired: string[] = [];
  for (const p of file.players) {
    const r = p.rounds[round - 1];
    if (!r || r.opponent === null) {
      unpaired.push(p.info.name);
      continue;
    }
    const opp = byRank.get(r.opponent);
    if (!opp) {
      errors.push({ line: p.line, message: `round ${round}: opponent ${r.opponent} is not a player in this file` });
      continue;
    }
    const back = opp.rounds[round - 1];
    if (!back || back.opponent !== p.rank || back.colour === r.colour) {
      errors.push({
        line: p.line,
        message: `round ${round}: paired with ${r.opponent} as ${r.colour === 'w' ? 'white' : 'black'}, but line ${opp.line} does not pair ${r.opponent} with ${p.rank} as ${r.colour === 'w' ? 'black' : 'white'}`,
      });
      continue;
    }
    if (r.colour === 'w') games.push({ white: p, black: opp });
  }
  if (errors.length > 0) return err(errors);
  if (games.length === 0) return err([{ line: 1, message: `round ${round}: no games are paired in this file` }]);
  games.sort((a, b) => {
    const [sa, sb] = [
      [score(a.white), score(a.black)],
      [score(b.white), score(b.black)],
    ] as const;
    return Math.max(...sb) - Math.max(...sa) || sb[0] + sb[1] - (sa[0] + sa[1]) || Math.min(a.white.rank, a.black.rank) - Math.min(b.white.rank, b.black.rank);
  });
  const pairings = games.map((g, i) => ({ table: i + 1, white: g.white.info, black: g.black.info }));
  const lines = games.map((g) => g.white.line);
  const dupes = checkPairings(pairings, lines);
  if (dupes.length > 0) return err(dupes);
  return ok({ pairings, lines, unpaired });
}
