import { parsePgn, startingPosition } from 'chessops/pgn';
import { parseSan } from 'chessops/san';
import { describe, expect, it } from 'vitest';
import type { GameState, MoveRecord, RoundInfo, TournamentInfo } from '../../protocols/feed/model.ts';
import { gameToPgn, lichessTimeControl, pgnGameId, pgnTermination } from '../../protocols/feed/pgn.ts';
import { pgnExtract, skipWithoutPgnExtract } from './pgn-extract.ts';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const tournament = (timeControl: string | null = '5400+30'): TournamentInfo => ({
  id: 'ljubljana-open-2026',
  name: 'Ljubljana Open 2026',
  site: 'Ljubljana SLO',
  startDate: '2026-07-01',
  endDate: null,
  timeControl,
  variant: 'standard',
  roundCount: 9,
});
const round3: RoundInfo = { round: 3, date: '2026-07-03', startsAt: null, status: 'live', gameCount: 6 };

/** 2026-07-04 15:00:00 UTC: the round was postponed a day, the game played then. */
const PLAYED = Date.UTC(2026, 6, 4, 15, 0, 0);

function moves(sans: string[], clocks: (number | null)[], gapsS: number[]): MoveRecord[] {
  let at = PLAYED;
  return sans.map((san, i) => {
    at += (gapsS[i] ?? 0) * 1000;
    return { ply: i + 1, san, uci: '', fenAfter: '', at, clockMs: clocks[i] ?? null };
  });
}

function game(over: Partial<GameState> = {}): GameState {
  return {
    id: 'r3-t2',
    round: 3,
    table: 2,
    status: 'live',
    result: '*',
    ply: 4,
    fen: '',
    lastMove: null,
    clock: { whiteMs: 5_371_500, blackMs: 5_405_000, running: 'white', readAt: PLAYED + 200_000, whiteFlag: false, blackFlag: false },
    startFen: START,
    termination: null,
    incidents: [],
    white: { name: 'Kovačič, Luka', title: 'GM', rating: 2587, federation: 'SLO', fideId: 14600520 },
    black: { name: 'Novak, "Jan"', title: null, rating: 2301, federation: 'CRO', fideId: 14500000 },
    moves: moves(['e4', 'c5', 'Nf3', 'd6'], [5_430_000, 5_425_000, 5_371_500, 5_405_000], [0, 35, 88, 50]),
    ...over,
  };
}

function tags(pgn: string): Map<string, string> {
  return parsePgn(pgn)[0]!.headers;
}

/** Every PGN we write must satisfy both readers: pgn-extract (replays the moves) and chessops. */
function expectReadable(pgn: string, games = 1): void {
  const report = pgnExtract(pgn);
  expect(report.diagnostics).toBe('');
  expect(report.games).toBe(games);
  for (const g of parsePgn(pgn)) {
    const pos = startingPosition(g.headers).unwrap();
    for (const n of g.moves.mainline()) {
      const move = parseSan(pos, n.san);
      expect(move, n.san).toBeDefined();
      pos.play(move!);
    }
  }
}

/**
 * lichess's reading of a TimeControl tag (scalachess TournamentClock.parse, strict PGN mode, read
 * in its public repository): unit words and spaces removed, then one or two whole numbers around a
 * single "+"; anything else is no clock at all.
 */
function lichessReadsTimeControl(tc: string): { limitS: number; incS: number } | null {
  const parts = tc
    .toLowerCase()
    .replaceAll(' ', '')
    .replace(/\/move|minutes|minute|min|m|seconds|second|sec|s|'|"/g, '')
    .split('+');
  const int = (p: string | undefined) => (p !== undefined && /^-?\d+$/.test(p) ? Number(p) : null);
  if (parts.length === 1) return int(parts[0]) === null ? null : { limitS: int(parts[0])!, incS: 0 };
  if (parts.length === 2 && int(parts[0]) !== null && int(parts[1]) !== null) return { limitS: int(parts[0])!, incS: int(parts[1])! };
  return null;
}

describe('PGN tags for platforms', () => {
  it('dates a game by the day it was played, not the configured round date or ????.??.??', () => {
    expect(tags(gameToPgn(tournament(), round3, game())).get('Date')).toBe('2026.07.04');
    // Before the first move: the round's date, else the event's first day.
    expect(tags(gameToPgn(tournament(), round3, game({ moves: [] }))).get('Date')).toBe('2026.07.03');
    expect(tags(gameToPgn(tournament(), undefined, game({ moves: [] }))).get('Date')).toBe('2026.07.01');
  });

  it('writes only the standard Termination values, keeping the finer reason in TerminationDetail', () => {
    const cases: [string, string][] = [
      ['checkmate', 'normal'],
      ['stalemate', 'normal'],
      ['insufficient material', 'normal'],
      ['fivefold repetition', 'normal'],
      ['75-move rule', 'normal'],
      ['result set on the board', 'normal'],
      ['result shown with the kings', 'normal'],
      ['agreement', 'normal'],
      ['resignation', 'normal'],
      ['arbiter decision', 'adjudication'],
      ['time forfeit', 'time forfeit'],
      ['flag fall', 'time forfeit'],
      ['rules infraction', 'rules infraction'],
      ['unterminated', 'unterminated'],
    ];
    for (const [reason, standard] of cases) {
      expect(pgnTermination(reason), reason).toBe(standard);
      const pgn = gameToPgn(tournament(), round3, game({ status: 'finished', result: '1-0', termination: reason }));
      expect(tags(pgn).get('Termination')).toBe(standard);
      expect(tags(pgn).get('TerminationDetail')).toBe(reason === standard ? undefined : reason);
    }
  });

  it('writes a TimeControl lichess can read: a two-period control as its first period', () => {
    expect(lichessReadsTimeControl('40/5400+30:1800+30')).toBeNull(); // what we wrote before
    for (const [configured, written] of [
      ['40/5400+30:1800+30', '5400+30'],
      ['40/6000:1800', '6000'],
      ['5400+30', '5400+30'],
      ['900+0', '900'],
      ['600', '600'],
    ] as const) {
      expect(lichessTimeControl(configured)).toBe(written);
      const pgn = gameToPgn(tournament(configured), round3, game());
      expect(lichessReadsTimeControl(tags(pgn).get('TimeControl')!)).not.toBeNull();
    }
    expect(lichessReadsTimeControl(tags(gameToPgn(tournament('40/5400+30:1800+30'), round3, game())).get('TimeControl')!)).toEqual({ limitS: 5400, incS: 30 });
  });

  it('names the game for platforms: Event, Site, Round, Board, FIDE ids and a GameId from round and table', () => {
    const t = tags(gameToPgn(tournament(), round3, game()));
    expect(Object.fromEntries([...t].filter(([k]) => ['Event', 'Site', 'Round', 'Board', 'WhiteFideId', 'BlackFideId', 'WhiteFed', 'GameId'].includes(k)))).toEqual({
      Event: 'Ljubljana Open 2026',
      Site: 'Ljubljana SLO',
      Round: '3.2',
      Board: '2',
      WhiteFideId: '14600520',
      BlackFideId: '14500000',
      WhiteFed: 'SLO',
      GameId: 'ljubljana-open-2026/r3-t2',
    });
    // Nothing of the board (its serial) or of the moment goes into the id: a board swapped at the
    // table or a restarted daemon writes the same GameId.
    const later = tags(gameToPgn(tournament(), round3, game({ moves: game().moves.slice(0, 1), clock: null })));
    expect(later.get('GameId')).toBe('ljubljana-open-2026/r3-t2');
    // The event is named by its name (the daemon's tournament id is the same for every event).
    expect(pgnGameId({ id: 'boardcast', name: 'Šahovski turnir Žalec 2026' }, { id: 'r1-t4' })).toBe('sahovski-turnir-zalec-2026/r1-t4');
    expect(pgnGameId({ id: 'boardcast', name: '★' }, { id: 'r1-t4' })).toBe('boardcast/r1-t4');
  });

  it('carries the clocks as last read in WhiteClock/BlackClock while the game runs, none once it is over', () => {
    const t = tags(gameToPgn(tournament(), round3, game()));
    expect(t.get('WhiteClock')).toBe('01:29:31');
    expect(t.get('BlackClock')).toBe('01:30:05');
    const over = tags(gameToPgn(tournament(), round3, game({ status: 'finished', result: '0-1', termination: 'result set on the board' })));
    expect(over.has('WhiteClock')).toBe(false);
    expect(tags(gameToPgn(tournament(), round3, game({ clock: null }))).has('WhiteClock')).toBe(false);
  });

  it('writes %emt beside %clk: the time from the opponent’s move to this one, as the board saw them', () => {
    const pgn = gameToPgn(tournament(), round3, game());
    const nodes = [...parsePgn(pgn)[0]!.moves.mainline()];
    expect(nodes.map((n) => n.comments)).toEqual([['[%clk 1:30:30]'], ['[%clk 1:30:25] [%emt 0:00:35]'], ['[%clk 1:29:31] [%emt 0:01:28]'], ['[%clk 1:30:05] [%emt 0:00:50]']]);

    // A move the board never showed being made (one of several sequences that fit a jump) gets no
    // %emt, nor the move after it: neither time was observed.
    const span = { firstPly: 2, plies: 1, candidates: [['c5'], ['c6']] };
    const inferred = game({ moves: game().moves.map((m) => (m.ply === 2 ? { ...m, uncertain: span } : m)) });
    const marks = [...parsePgn(gameToPgn(tournament(), round3, inferred))[0]!.moves.mainline()].map((n) => n.comments?.[0]);
    expect(marks).toEqual(['[%clk 1:30:30]', '[%clk 1:30:25]', '[%clk 1:29:31]', '[%clk 1:30:05] [%emt 0:00:50]']);
  });

  it.skipIf(skipWithoutPgnExtract)('pgn-extract as the judge: it reports an illegal move and drops the game', () => {
    const bad = gameToPgn(tournament(), round3, game({ moves: moves(['e4', 'e5', 'Ke3'], [], []) }));
    const report = pgnExtract(bad);
    expect(report.diagnostics).toMatch(/Ke3/);
    expect(report.games).toBe(0);
  });

  it.skipIf(skipWithoutPgnExtract)('every variant of the game reads back in pgn-extract and chessops, alone and as a round', () => {
    const variants = [
      game(),
      game({ moves: [] }),
      game({ status: 'finished', result: '1/2-1/2', termination: 'agreement' }),
      game({ table: 3, id: 'r3-t3', white: { name: 'A', title: null, rating: null, federation: null, fideId: null } }),
    ];
    const pgns = variants.map((g) => gameToPgn(tournament('40/5400+30:1800+30'), round3, g));
    for (const p of pgns) expectReadable(p);
    expectReadable(pgns.join('\n'), pgns.length);
  });
});
