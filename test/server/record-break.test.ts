import { describe, expect, it } from 'vitest';
import { parsePgn, startingPosition } from 'chessops/pgn';
import { parseSan } from 'chessops/san';
import { lccGame } from '../../bridge/lcc/format.ts';
import { sanSince } from '../../bridge/livechess/board-view.ts';
import { gameToPgn, movesBeforeBreak } from '../../protocols/feed/pgn.ts';
import type { GameState, MoveRecord, TournamentInfo } from '../../protocols/feed/model.ts';

// A game whose record breaks after 1.e4: play went on from a board the record cannot reach
// (White's queen on d4, both kings' rooks gone), Black to move, then 2...Nf6 3.Nf3 were recorded.
const BREAK_FEN = 'r1bqkbn1/pppppppp/2n5/8/3QP3/8/PPPP1PPP/1NB1KBNR b Kq - 0 2';
const moves = (accepted = false): MoveRecord[] => [
  { ply: 1, san: 'e4', uci: 'e2e4', fenAfter: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1', at: 1000, clockMs: 5_400_000 },
  { ply: 2, san: '--', uci: '0000', fenAfter: BREAK_FEN, at: 2000, clockMs: null, gap: { reason: 'unexplained', ...(accepted ? { accepted: true as const } : {}) } },
  { ply: 3, san: 'Nf6', uci: 'g8f6', fenAfter: 'r1bqkb2/pppppppp/2n2n2/8/3QP3/8/PPPP1PPP/1NB1KBNR w Kq - 1 3', at: 3000, clockMs: 5_380_000 },
  { ply: 4, san: 'Nf3', uci: 'g1f3', fenAfter: 'r1bqkb2/pppppppp/2n2n2/8/3QP3/5N2/PPPP1PPP/1NB1KB1R b Kq - 2 3', at: 4000, clockMs: 5_390_000 },
];
const T: TournamentInfo = { id: 't', name: 'Break Open', site: null, startDate: '2026-11-22', endDate: null, timeControl: '5400+30', variant: 'standard', roundCount: 1 };
const game = (accepted = false): GameState => ({
  id: 'r1-t1',
  round: 1,
  table: 1,
  status: 'live',
  result: '*',
  ply: 4,
  fen: moves()[3]!.fenAfter,
  lastMove: { uci: 'g1f3', san: 'Nf3' },
  clock: null,
  startFen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
  termination: null,
  incidents: [],
  white: { name: 'A', title: null, rating: null, federation: null, fideId: null },
  black: { name: 'B', title: null, rating: null, federation: null, fideId: null },
  moves: moves(accepted),
});

describe('a break in the record, as each output writes it', () => {
  it('the PGN keeps the record up to the break as moves a reader replays, and says the rest in a comment', () => {
    const pgn = gameToPgn(T, undefined, game());
    const parsed = parsePgn(pgn);
    expect(parsed).toHaveLength(1);
    const nodes = [...parsed[0]!.moves.mainline()];
    expect(nodes.map((n) => n.san)).toEqual(['e4']);
    const pos = startingPosition(parsed[0]!.headers).unwrap();
    for (const n of nodes) pos.play(parseSan(pos, n.san)!);
    expect(nodes[0]!.comments).toEqual([
      '[%clk 1:30:00]',
      `The record breaks here: play went on from a board the moves recorded cannot reach; the arbiter may still give the missing moves. Position: ${BREAK_FEN}. Moves since: 2... Nf6 3. Nf3`,
    ]);
    expect(gameToPgn(T, undefined, game(true))).toContain('the arbiter accepted the board position. Position:');
  });

  it('a break before the first move is said before the moves', () => {
    const g = game();
    g.moves = g.moves.slice(1).map((m) => ({ ...m, ply: m.ply - 1 }));
    const parsed = parsePgn(gameToPgn(T, undefined, g))[0]!;
    expect([...parsed.moves.mainline()]).toEqual([]);
    expect(parsed.comments?.[0]).toContain(`Position: ${BREAK_FEN}`);
  });

  it('LCC and the LiveChess API list the moves up to the break; the board they show is the real one', () => {
    expect(movesBeforeBreak(moves()).map((m) => m.san)).toEqual(['e4']);
    const lcc = lccGame(game(), '10001');
    expect(lcc.moves).toEqual(['e4 5400']);
    expect(sanSince(game(), null)).toEqual(['e4']);
  });
});

/** A read model fed by a scripted board: game "g", what the script's board sends. */
async function scriptedGame() {
  const { Script } = await import('../reconstruction/engine/script.ts');
  const { MemoryLiveSource } = await import('../../daemon/runtime/memory-live-source.ts');
  const player = { name: 'P', title: null, rating: null, federation: null, fideId: null };
  const live = new MemoryLiveSource({
    tournament: T,
    rounds: [{ round: 1, date: null, startsAt: null, status: 'live', gameCount: 1 }],
    games: [{ id: 'g', round: 1, table: 1, white: player, black: player }],
    eventTime: true,
  });
  const s = new Script();
  s.onBoardEvent = (ev) => live.push('g', ev);
  return { live, s };
}

describe('a break in the record through the read model', () => {
  it("the feed carries the break and the moves after it, each with its own mover's clock; the PGN says the rest", async () => {
    const { live, s } = await scriptedGame();
    s.setUp().play('e2e4').unplug().lift('a1').lift('h8').lift('d1').place('d4', 'Q').plug();
    s.press('black').move('b8', 'c6').press('white');
    s.move('g8', 'f6').press('black');
    const g = live.game('g')!;
    expect(g.moves.map((m) => m.san)).toEqual(['e4', '--', 'Nf6']);
    expect(g.moves[1]!.gap).toEqual({ reason: 'unexplained' });
    // Nf6 is Black's although its ply is odd: its %clk is Black's time at the press.
    const nf6 = s.engine.snapshot().moves[2]!;
    expect(g.moves[2]!.clockMs).toBe(nf6.clockAfter!.blackMs);
    const pgn = live.pgn('g')!;
    expect(pgn).toContain('Moves since: 2... Nf6');
    expect([...parsePgn(pgn)[0]!.moves.mainline()].map((n) => n.san)).toEqual(['e4']);
  });
});

describe('move numbers in the viewer come from the positions', () => {
  it('labels a move by the side that made it, also after a break that left the other side to move', async () => {
    const { moveNumberLabel } = await import('../../viewer/src/players.ts');
    expect(moveNumberLabel('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1', 'e4')).toBe('1.');
    expect(moveNumberLabel('rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2', 'e5')).toBe('1…');
    expect(moveNumberLabel(BREAK_FEN, '--')).toBe('⋯');
    // Ply 3, but Black's: the break before it left Black to move.
    expect(moveNumberLabel(moves()[2]!.fenAfter, 'Nf6')).toBe('2…');
  });
});

describe('a break filled by the arbiter', () => {
  it('the moves it hid take its place, the later moves follow, and the PGN is whole again (chessops reads every move)', async () => {
    const { live, s } = await scriptedGame();
    // Ten plies while the board was away: more than the search reaches.
    s.setUp().play('e2e4').unplug();
    for (const u of ['e7e5', 'g1f3', 'b8c6', 'f1c4', 'f8c5', 'c2c3', 'g8f6', 'd2d4', 'e5d4', 'c3d4']) s.move(u.slice(0, 2), u.slice(2));
    s.plug().press('white');
    s.move('c5', 'b4').press('black');
    s.move('c1', 'd2').press('white');
    // The break is at the board before 11...Bb4+, the move that showed it.
    expect(live.game('g')!.moves.map((m) => m.san)).toEqual(['e4', '--', 'Bb4+', 'Bd2']);
    const hidden = ['e5', 'Nf3', 'Nc6', 'Bc4', 'Bc5', 'c3', 'Nf6', 'd4', 'exd4', 'cxd4'];
    live.arbiter('g', { type: 'replace-moves', at: s.t + 1, fromPly: 1, replaces: 1, sans: hidden });
    const g = live.game('g')!;
    expect(g.moves.map((m) => m.san)).toEqual(['e4', ...hidden, 'Bb4+', 'Bd2']);
    expect(g.moves.map((m) => m.ply)).toEqual(g.moves.map((_, i) => i + 1));
    const parsed = parsePgn(live.pgn('g')!)[0]!;
    const sans = [...parsed.moves.mainline()].map((n) => n.san);
    expect(sans).toEqual(['e4', ...hidden, 'Bb4+', 'Bd2']);
    const pos = startingPosition(parsed.headers).unwrap();
    for (const san of sans) pos.play(parseSan(pos, san)!);
    expect(live.pgn('g')).not.toContain('record breaks');
  });
});
