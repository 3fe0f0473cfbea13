import { join } from 'node:path';
import { Chess } from 'chessops/chess';
import { INITIAL_FEN, makeFen } from 'chessops/fen';
import { makeSanAndPlay, parseSan } from 'chessops/san';
import { makeUci } from 'chessops/util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyGameEvents } from '../../daemon/store/game-events.ts';
import type { Store } from '../../daemon/store/store.ts';
import type { GameEvent } from '../../daemon/reconstruction/game-events.ts';
import { arbiterSetResult, closeRound, reportResult, startRound } from '../../daemon/tournament/round-lifecycle.ts';
import { mustOpen, tempDir } from './helpers.ts';

type Move = { san: string; uci: string; fenAfter: string };

/** Real moves with their FENs, from chessops. */
function line(sans: string[]): Move[] {
  const pos = Chess.default();
  return sans.map((s) => {
    const move = parseSan(pos, s)!;
    const uci = makeUci(move);
    const san = makeSanAndPlay(pos, move);
    return { san, uci, fenAfter: makeFen(pos.toSetup()) };
  });
}

let store: Store;
let file: string;
let cleanup: () => void;
let tournamentId: number;
const T0 = 1_783_152_000_000; // 2026-07-04 10:00 UTC

beforeEach(() => {
  const t = tempDir();
  cleanup = t.cleanup;
  file = join(t.dir, 'b.sqlite');
  store = mustOpen(file);
  tournamentId = store.upsertTournament({
    name: 'Maribor Rapid',
    site: null,
    startDate: null,
    endDate: null,
    timeControl: '900+10',
    rulesEdition: '2018',
    category: 'rapid',
    variant: 'standard',
    roundCount: 2,
    roundDates: ['2026-07-04'],
  });
  store.syncTables([1, 2].map((number) => ({ number, board: null, whiteOnClock: 'left' as const })));
  const r1 = store.round(tournamentId, 1)!;
  store.replacePairings(r1.id, [
    {
      table: 1,
      white: { name: 'Zupan, Jure', title: 'FM', rating: 2355, federation: 'SLO', fideId: 14609412 },
      black: { name: 'Golob, Anže', title: null, rating: 2044, federation: 'SLO', fideId: 14618917 },
    },
    {
      table: 2,
      white: { name: 'Mlakar, Eva', title: null, rating: 1962, federation: 'SLO', fideId: 14620415 },
      black: { name: 'Ferk, Rok', title: null, rating: 1870, federation: 'SLO', fideId: 14625301 },
    },
  ]);
});
afterEach(() => {
  store.close();
  cleanup();
});

describe('round lifecycle', () => {
  it('starts a round with one pending game per pairing, then finishes and closes it', () => {
    expect(store.rounds(tournamentId).map((r) => [r.round, r.status, r.date])).toEqual([
      [1, 'upcoming', '2026-07-04'],
      [2, 'upcoming', null],
    ]);
    const started = startRound(store, tournamentId, 1, T0);
    expect(started.ok).toBe(true);
    if (!started.ok) return;
    expect(started.value.map((g) => [g.table, g.status, g.startFen, g.white?.name, g.black?.title])).toEqual([
      [1, 'pending', INITIAL_FEN, 'Zupan, Jure', null],
      [2, 'pending', INITIAL_FEN, 'Mlakar, Eva', null],
    ]);
    expect(store.round(tournamentId, 1)).toMatchObject({ status: 'live', startedWall: T0, gameCount: 2 });
    expect(startRound(store, tournamentId, 1, T0)).toEqual({ ok: false, error: 'round 1 is already live' });

    const [g1, g2] = started.value;
    expect(store.currentGameAt(1)?.id).toBe(g1!.id);
    expect(closeRound(store, tournamentId, 1, T0 + 1)).toEqual({ ok: false, error: 'round 1: 2 game(s) unfinished, on table(s) 1, 2' });
    expect(reportResult(store, g1!.id, { result: '1-0', source: 'engine', termination: 'checkmate', wallMs: T0 + 5 }).ok).toBe(true);
    expect(reportResult(store, g2!.id, { result: '1/2-1/2', source: 'result-pieces', termination: 'result-pieces', wallMs: T0 + 6 }).ok).toBe(true);
    expect(store.currentGameAt(1)).toBeUndefined();
    expect(closeRound(store, tournamentId, 1, T0 + 7)).toEqual({ ok: true, value: undefined });
    expect(store.round(tournamentId, 1)).toMatchObject({ status: 'finished', closedWall: T0 + 7 });
  });

  it('refuses to start a round without pairings or while a table still plays', () => {
    expect(startRound(store, tournamentId, 2, T0)).toEqual({ ok: false, error: 'round 2 has no pairings: import them first (boardcast import-pairings)' });
    expect(startRound(store, tournamentId, 1, T0).ok).toBe(true);
    const r2 = store.round(tournamentId, 2)!;
    store.replacePairings(r2.id, [
      {
        table: 1,
        white: { name: 'Golob, Anže', title: null, rating: 2044, federation: 'SLO', fideId: 14618917 },
        black: { name: 'Zupan, Jure', title: 'FM', rating: 2355, federation: 'SLO', fideId: 14609412 },
      },
    ]);
    const r = startRound(store, tournamentId, 2, T0);
    expect(r.ok ? '' : r.error).toMatch(/^tables still playing an earlier game: table 1 \(game 1, round 1\)/);
    expect(() => store.replacePairings(store.round(tournamentId, 1)!.id, [])).toThrow(/has started/);
  });

  it('lets the arbiter correct a result, with an audit entry; automatic results do not overrule it', () => {
    const started = startRound(store, tournamentId, 1, T0);
    if (!started.ok) throw new Error(started.error);
    const id = started.value[0]!.id;
    reportResult(store, id, { result: '1-0', source: 'result-pieces', termination: 'result-pieces', wallMs: T0 + 1 });
    const corrected = arbiterSetResult(store, id, { result: '0-1', termination: 'time forfeit', arbiter: 'IA Mojca Novak', reason: 'flag fell before mate', wallMs: T0 + 2 });
    expect(corrected.ok && [corrected.value.result, corrected.value.resultSource]).toEqual(['0-1', 'arbiter']);
    expect(reportResult(store, id, { result: '1-0', source: 'engine', termination: 'checkmate', wallMs: T0 + 3 }).ok).toBe(false);
    expect(store.game(id)!.result).toBe('0-1');
    expect(store.amendments(id)).toEqual([
      {
        id: 1,
        gameId: id,
        wallMs: T0 + 2,
        arbiter: 'IA Mojca Novak',
        action: 'set-result',
        reason: 'flag fell before mate',
        detail: { from: { result: '1-0', source: 'result-pieces', termination: 'result-pieces' }, to: { result: '0-1', termination: 'time forfeit' } },
      },
    ]);
  });
});

describe('derived game state from engine events', () => {
  it('records moves, confirmations, amendments, takebacks, incidents and the result; survives re-open', () => {
    const started = startRound(store, tournamentId, 1, T0);
    if (!started.ok) throw new Error(started.error);
    const id = started.value[0]!.id;
    const [e4, e5, nf3, nc6] = line(['e4', 'e5', 'Nf3', 'Nc6']) as [Move, Move, Move, Move];
    const alt = line(['e4', 'e5', 'Nc3'])[2]!;
    const events: GameEvent[] = [
      { type: 'game-started', at: 0, kind: 'standard', fen: INITIAL_FEN, reversed: false },
      { type: 'move-made', at: 1000, ply: 1, by: 'white', ...e4, clock: { whiteMs: 895_000, blackMs: 900_000 } },
      { type: 'move-confirmed', at: 1100, ply: 1, by: 'clock', clock: { whiteMs: 899_000, blackMs: 900_000 } },
      { type: 'move-made', at: 5000, ply: 2, by: 'black', ...e5 },
      { type: 'move-confirmed', at: 5200, ply: 2, by: 'clock', clock: { whiteMs: 899_000, blackMs: 906_000 } },
      { type: 'move-made', at: 9000, ply: 3, by: 'white', ...nf3 },
      { type: 'move-amended', at: 9500, ply: 3, by: 'white', previousSan: 'Nf3', ...alt },
      {
        type: 'incident',
        incident: {
          kind: 'moved-after-release',
          by: 'white',
          releasedOn: 'f3',
          san: 'Nc3',
          at: 9500,
          ply: 2,
          article: '4.7 (2018)',
          consequences: [{ kind: 'arbiter-decides', note: 'the move on f3 stands if claimed' }],
          message: 'Knight released on f3, then played to c3',
        },
      },
    ];
    expect(applyGameEvents(store, id, events, T0 + 9)).toEqual({ ok: true, value: undefined });
    expect(store.moves(id).map((m) => [m.ply, m.san, m.confirmed, m.amended, m.clockMs])).toEqual([
      [1, 'e4', true, false, 899_000],
      [2, 'e5', true, false, 906_000],
      [3, 'Nc3', false, true, null],
    ]);
    expect(store.game(id)).toMatchObject({ status: 'live', ply: 3, startedWall: T0 + 9 });
    expect(store.incidents(id)).toEqual([
      {
        id: 1,
        ply: 2,
        at: T0 + 9,
        kind: 'moved-after-release',
        article: '4.7 (2018)',
        consequence: 'arbiter decides: the move on f3 stands if claimed',
        message: 'Knight released on f3, then played to c3',
      },
    ]);

    // Takeback to ply 2, then a different continuation; the taken-back move is kept, marked.
    const more: GameEvent[] = [
      { type: 'takeback', at: 12_000, toPly: 2, fen: e5.fenAfter, removed: ['Nc3'] },
      { type: 'move-made', at: 13_000, ply: 3, by: 'white', ...nf3 },
      { type: 'move-made', at: 14_000, ply: 4, by: 'black', ...nc6 },
      { type: 'game-ended', at: 15_000, ply: 4, result: '1-0', termination: 'result-pieces' },
    ];
    expect(applyGameEvents(store, id, more, T0 + 15).ok).toBe(true);
    expect(store.moves(id).map((m) => m.san)).toEqual(['e4', 'e5', 'Nf3', 'Nc6']);
    expect(store.moves(id, { includeSuperseded: true }).map((m) => m.san)).toEqual(['e4', 'e5', 'Nf3', 'Nc3', 'Nf3', 'Nc6']);
    expect(store.game(id)).toMatchObject({ status: 'finished', result: '1-0', resultSource: 'result-pieces', ply: 4 });

    expect(applyGameEvents(store, id, [{ type: 'result-withdrawn', at: 16_000, ply: 4 }], T0 + 16).ok).toBe(true);
    expect(store.game(id)).toMatchObject({ status: 'live', result: '*', resultSource: null });

    store.close();
    store = mustOpen(file);
    expect(store.moves(id).map((m) => m.fenAfter)).toEqual([e4.fenAfter, e5.fenAfter, nf3.fenAfter, nc6.fenAfter]);
  });

  it("stops at a move out of sequence, keeping the tick's events before it", () => {
    const started = startRound(store, tournamentId, 1, T0);
    if (!started.ok) throw new Error(started.error);
    const id = started.value[1]!.id;
    const [e4, e5] = line(['e4', 'e5']);
    const r = applyGameEvents(
      store,
      id,
      [
        { type: 'move-made', at: 1, ply: 1, by: 'white', ...e4! },
        { type: 'move-made', at: 2, ply: 3, by: 'black', ...e5! },
      ],
      T0,
    );
    expect(r).toEqual({ ok: false, error: { index: 1, message: `game ${id}: move e5 has ply 3, expected 2` } });
    // The first move stays (events before the refused one are kept).
    expect(store.moves(id).map((m) => m.san)).toEqual(['e4']);
    expect(store.takeback(id, 5).ok).toBe(false);
    expect(store.recordMove(999, { ply: 1, san: 'e4', uci: 'e2e4', fenAfter: e4!.fenAfter, wallMs: 0 })).toEqual({ ok: false, error: 'no game with id 999' });
  });

  it('keeps clock readings and returns the latest', () => {
    const started = startRound(store, tournamentId, 1, T0);
    if (!started.ok) throw new Error(started.error);
    const id = started.value[0]!.id;
    for (let i = 0; i < 3; i++) {
      store.recordClock({ gameId: id, tableNumber: 1, monoMs: i * 1000, wallMs: T0 + i * 1000, whiteMs: 900_000 - i * 1000, blackMs: 900_000, running: 'white', whiteFlag: false, blackFlag: false });
    }
    expect(store.lastClock(id)).toEqual({ monoMs: 2000, wallMs: T0 + 2000, whiteMs: 898_000, blackMs: 900_000, running: 'white', whiteFlag: false, blackFlag: false });
  });
});
