import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../daemon/store/store.ts';
import { parseCsv } from '../../daemon/tournament/csv.ts';
import { importPairings, pairingsFormatOf, parsePairings } from '../../daemon/tournament/import-pairings.ts';
import { parseTrf } from '../../daemon/tournament/trf.ts';
import { mustOpen, tempDir, withSql } from '../store/helpers.ts';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../fixtures/pairings', name), 'utf8');

describe('TRF', () => {
  it('reads the header lines and every player field from fixed columns', () => {
    const r = parseTrf(fixture('ljubljana-open-r3.trf'));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.header).toMatchObject({
      name: 'Ljubljana Open 2026',
      city: 'Ljubljana',
      federation: 'SLO',
      startDate: '2026-07-04',
      endDate: '2026-07-12',
      type: 'Individual: Swiss-System',
      roundDates: ['2026-07-04', '2026-07-05', '2026-07-06'],
    });
    expect(r.value.players).toHaveLength(13);
    expect(r.value.players[2]!.info).toEqual({ name: 'Horváthová, Zuzana', title: 'WGM', rating: 2402, federation: 'SVK', fideId: 14902217 });
    expect(r.value.players[11]!.info).toEqual({ name: 'Hribar, Tilen', title: null, rating: null, federation: 'SLO', fideId: null });
    expect(r.value.players[12]!.rounds[0]).toEqual({ opponent: null, colour: null, result: 'U' });
  });

  it("derives a round's games with colours, board order by score then seed, and byes", () => {
    const r = parsePairings(fixture('ljubljana-open-r3.trf'), 'trf', 3);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const boards = r.value.pairings.map((p) => `${p.table}: ${p.white.name} - ${p.black.name}`);
    expect(boards).toEqual([
      '1: Kovačič, Luka - Kranjc, Matej', // 2 v 2
      '2: Babić, Ivana - Petrović, Marko', // 1 v 1.5, best seed 2
      '3: Novák, Tomáš - Nagy, Bence', // 1 v 1.5, best seed 5
      '4: Horváthová, Zuzana - Zupan, Jure', // 0.5 v 1, best seed 3
      '5: Mlakar, Eva - Golob, Anže', // 1 v 0.5, best seed 9
      '6: Hribar, Tilen - Ferk, Rok', // 1 v 0
    ]);
    expect(r.value.unpaired).toEqual(['Vidmar, Nik']);
    const r1 = parsePairings(fixture('ljubljana-open-r3.trf'), 'trf', 1);
    expect(r1.ok && r1.value.pairings[0]!.white.name).toBe('Kovačič, Luka');
  });

  it('reports a bad field with its line number and columns', () => {
    const r = parsePairings(fixture('bad-rating.trf'), 'trf', 3);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toEqual([{ line: 17, message: 'rating "23x8" (columns 49–52) is not a number up to 3500' }]);
  });

  it("reports pairings that do not agree between the two players' lines", () => {
    const r = parsePairings(fixture('bad-opponent.trf'), 'trf', 3);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.map((e) => e.line)).toEqual([17, 20]);
    expect(r.error[1]!.message).toBe('round 3: paired with 9 as white, but line 21 does not pair 9 with 8 as black');
  });

  it('rejects text that is not a TRF', () => {
    const r = parseTrf('hello\nworld\n');
    expect(r.ok ? [] : r.error).toEqual([{ line: 3, message: 'no player (001) lines found' }]);
  });
});

describe('CSV', () => {
  it('handles quotes, doubled quotes, semicolons, CRLF, blank lines and line breaks in quotes', () => {
    const r = parseCsv(fixture('semicolon-multiline.csv'));
    expect(r.ok ? r.value : r.error).toEqual([
      { line: 1, fields: ['table', 'white', 'black'] },
      { line: 2, fields: ['1', 'Ferk, Rok', 'Vidmar, Nik'] },
      { line: 4, fields: ['2', 'Club Player A', 'Club Player\r\nB'] },
    ]);
  });

  it('reads pairings with optional player columns', () => {
    const r = parsePairings(fixture('ljubljana-open-r4.csv'), 'csv', 4);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.pairings).toHaveLength(6);
    expect(r.value.pairings[3]!.white).toEqual({ name: 'O"Connor, Sean', title: null, rating: 1985, federation: 'IRL', fideId: 2512345 });
    expect(r.value.pairings[4]!.white.federation).toBe('SLO');
    expect(r.value.pairings[5]!.white).toEqual({ name: 'Hribar, Tilen', title: null, rating: null, federation: 'SLO', fideId: null });
    expect(r.value.lines).toEqual([2, 3, 4, 5, 6, 7]);
  });

  it('reports every bad line with its number', () => {
    const r = parsePairings(fixture('bad-lines.csv'), 'csv', 1);
    expect(r.ok ? [] : r.error).toEqual([
      { line: 3, message: 'black name is empty' },
      { line: 4, message: 'white_rating "23O5" is not a number up to 3500' },
      { line: 5, message: 'black_fed "CZ" is not a three-letter code' },
      { line: 6, message: 'table 1 is already paired on line 2' },
    ]);
  });

  it('reports an unclosed quote at the line it opens', () => {
    const r = parsePairings(fixture('bad-quote.csv'), 'csv', 1);
    expect(r.ok ? [] : r.error).toEqual([{ line: 3, message: 'unbalanced quote: the quoted field opened here runs on to line 4' }]);
    expect(parseCsv('a,b\n1,"x\n').ok ? [] : (parseCsv('a,b\n1,"x\n') as { error: unknown }).error).toEqual([{ line: 2, message: 'a quoted field is never closed' }]);
  });

  it('reports a missing column in the header', () => {
    const r = parsePairings('table,white,blak\n1,a,b\n', 'csv', 1);
    expect(r.ok ? [] : r.error).toEqual([
      { line: 1, message: 'unknown column "blak"' },
      { line: 1, message: 'missing column "black"' },
    ]);
  });

  it('chooses the format by extension', () => {
    expect(['a.csv', 'a.TRF', 'a.trfx', 'a.txt', 'a.pgn'].map(pairingsFormatOf)).toEqual(['csv', 'trf', 'trf', 'trf', undefined]);
  });
});

describe('importPairings into the store', () => {
  let store: Store;
  let cleanup: () => void;
  let tournamentId: number;
  beforeEach(() => {
    const t = tempDir();
    cleanup = t.cleanup;
    store = mustOpen(join(t.dir, 'b.sqlite'));
    tournamentId = store.upsertTournament({
      name: 'Ljubljana Open 2026',
      site: 'Ljubljana SLO',
      startDate: '2026-07-04',
      endDate: null,
      timeControl: '5400+30',
      rulesEdition: '2018',
      category: 'standard',
      variant: 'standard',
      roundCount: 9,
      roundDates: [],
    });
    store.syncTables(Array.from({ length: 6 }, (_, i) => ({ number: i + 1, board: null, whiteOnClock: 'left' as const })));
  });
  afterEach(() => {
    store.close();
    cleanup();
  });
  const count = (table: string) => withSql(store.file, (db) => db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get());

  it('imports a TRF round: players with titles, ratings, federations and FIDE ids, pairings by table', () => {
    const parsed = parsePairings(fixture('ljubljana-open-r3.trf'), 'trf', 3);
    if (!parsed.ok) throw new Error('fixture should parse');
    const r = importPairings(store, tournamentId, 3, parsed.value);
    expect(r.ok ? r.value : r.error).toMatchObject({ games: 6, players: 12, unpaired: ['Vidmar, Nik'] });
    const round = store.round(tournamentId, 3)!;
    const pairings = store.pairings(round.id);
    expect(pairings.map((p) => p.table)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(pairings[0]!.white).toMatchObject({ name: 'Kovačič, Luka', title: 'GM', rating: 2587, federation: 'SLO', fideId: 14600520 });
    expect(count('players')).toBe(12);
  });

  it('re-importing updates players by FIDE id instead of duplicating them', () => {
    const trf = parsePairings(fixture('ljubljana-open-r3.trf'), 'trf', 3);
    const csv = parsePairings(fixture('ljubljana-open-r4.csv'), 'csv', 4);
    if (!trf.ok || !csv.ok) throw new Error('fixtures should parse');
    expect(importPairings(store, tournamentId, 3, trf.value).ok).toBe(true);
    expect(importPairings(store, tournamentId, 4, csv.value).ok).toBe(true);
    expect(importPairings(store, tournamentId, 4, csv.value).ok).toBe(true);
    // 12 from the TRF plus O'Connor; Hribar has no FIDE id and is found by name and federation.
    expect(count('players')).toBe(13);
    expect(count('pairings')).toBe(12);
  });

  it('imports nothing when a table is not in the hall', () => {
    store.syncTables(Array.from({ length: 5 }, (_, i) => ({ number: i + 1, board: null, whiteOnClock: 'left' as const })));
    const csv = parsePairings(fixture('ljubljana-open-r4.csv'), 'csv', 1);
    if (!csv.ok) throw new Error('fixture should parse');
    const r = importPairings(store, tournamentId, 1, csv.value);
    expect(r.ok ? [] : r.error).toEqual(['line 7: table 6 is not in the hall (tables 1, 2, 3, 4, 5)']);
    expect(count('players')).toBe(0);
    expect(count('pairings')).toBe(0);
  });

  it('imports nothing when the database refuses part of it (one transaction)', () => {
    const csv = parsePairings(fixture('ljubljana-open-r4.csv'), 'csv', 1);
    if (!csv.ok) throw new Error('fixture should parse');
    const broken = { ...csv.value, pairings: csv.value.pairings.map((p, i) => (i === 4 ? { ...p, black: { ...p.black, name: null as unknown as string } } : p)) };
    const r = importPairings(store, tournamentId, 1, broken);
    expect(r.ok ? [] : r.error[0]).toMatch(/nothing was imported/);
    expect(count('players')).toBe(0);
    expect(count('pairings')).toBe(0);
  });

  it('refuses a round the tournament does not have', () => {
    const csv = parsePairings(fixture('ljubljana-open-r4.csv'), 'csv', 10);
    if (!csv.ok) throw new Error('fixture should parse');
    const r = importPairings(store, tournamentId, 10, csv.value);
    expect(r.ok ? [] : r.error).toEqual(['round 10: Ljubljana Open 2026 has 9 rounds (rounds.count)']);
  });
});

describe('importPairings for rounds the hall played past rounds.count', () => {
  let store: Store;
  let cleanup: () => void;
  let tournamentId: number;
  /** Each table's games in creation order: round 2's, then round 3's (as derived-rows keeps them). */
  const played: Record<number, number[]> = {};
  beforeEach(() => {
    const t = tempDir();
    cleanup = t.cleanup;
    store = mustOpen(join(t.dir, 'b.sqlite'));
    tournamentId = store.upsertTournament({
      name: 'Demo Hall',
      site: null,
      startDate: null,
      endDate: null,
      timeControl: '5400+30',
      rulesEdition: '2018',
      category: 'standard',
      variant: 'standard',
      roundCount: 1,
      roundDates: [],
    });
    store.syncTables(Array.from({ length: 6 }, (_, i) => ({ number: i + 1, board: null, whiteOnClock: 'left' as const })));
    const round1 = store.round(tournamentId, 1)!.id;
    for (let table = 1; table <= 6; table++) {
      store.createGame({ roundId: round1, pairingId: null, table, startFen: 'x', wallMs: 1 });
      played[table] = [2, 3].map((r) => store.createGame({ roundId: null, pairingId: null, table, startFen: 'x', wallMs: r }));
    }
  });
  afterEach(() => {
    store.close();
    cleanup();
  });

  it('imports round 2 while the boards play round 3 (rounds.count 1): round 2 gets its row and its games', () => {
    const csv = parsePairings(fixture('ljubljana-open-r4.csv'), 'csv', 2);
    if (!csv.ok) throw new Error('fixture should parse');
    expect(store.roundsPlayedBeyond()).toBe(2);
    const r = importPairings(store, tournamentId, 2, csv.value);
    expect(r.ok ? r.value.games : r.error).toBe(6);
    const round2 = store.round(tournamentId, 2)!;
    expect(store.pairings(round2.id)).toHaveLength(6);
    for (let table = 1; table <= 6; table++) {
      expect(store.gameIdsAt(round2.id, table)).toEqual([played[table]![0]]);
      // Round 3's game stays the first kept outside the rounds, where derived-rows looks for it.
      expect(store.gameIdsAt(null, table)).toEqual([played[table]![1]]);
    }
    expect(store.roundsPlayedBeyond()).toBe(1);
    expect(store.gamesOfRound(round2.id).map((g) => [g.table, g.white?.name])).toEqual(csv.value.pairings.map((p) => [p.table, p.white.name]));
  });

  it('refuses a round the boards have not reached, saying how far they are', () => {
    const csv = parsePairings(fixture('ljubljana-open-r4.csv'), 'csv', 4);
    if (!csv.ok) throw new Error('fixture should parse');
    const r = importPairings(store, tournamentId, 4, csv.value);
    expect(r.ok ? [] : r.error).toEqual(['round 4: Demo Hall has 1 rounds (rounds.count) and the boards have played up to round 3']);
    expect(store.round(tournamentId, 2)).toBeUndefined();
  });
});
