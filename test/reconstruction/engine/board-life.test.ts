import { describe, expect, it } from 'vitest';
import { scharnagl } from '../../../protocols/rules/start-position.ts';
import { Script } from './script.ts';

describe('engine: takebacks and the arbiter', () => {
  it.each([1, 2, 3])('takes back %i plies, one position at a time', (k) => {
    const s = new Script().setUp().play('e2e4', 'e7e5', 'g1f3', 'b8c6');
    const undo: [string, string][] = [
      ['c6', 'b8'],
      ['f3', 'g1'],
      ['e5', 'e7'],
    ];
    for (const [a, b] of undo.slice(0, k)) s.move(a, b);
    expect(s.ofType('takeback').map((t) => t.toPly)).toEqual([3, 2, 1].slice(0, k));
    expect(s.sans()).toEqual(['e4', 'e5', 'Nf3', 'Nc6'].slice(0, 4 - k));
    expect(s.ofType('takeback')[0]!.removed).toEqual(['Nc6']);
  });

  it('a knocked pawn falling back onto the square it came from is not a takeback', () => {
    const s = new Script().setUp().play('e2e4', 'e7e6');
    // Knocked: it leaves e6 and is seen on e7 in the same instant; stood up again the same way.
    s.lift('e6', 400).place('e7', 'p', 0).lift('e7', 500).place('e6', 'p', 0);
    s.play('d2d4');
    expect(s.ofType('takeback')).toEqual([]);
    expect(s.sans()).toEqual(['e4', 'e6', 'd4']);
  });

  it('a pawn slipped back that makes the board look three plies old is an illegal move, not a takeback', () => {
    const s = new Script().setUp().play('e2e4', 'g8f6', 'e4e5', 'f6g8');
    s.move('e5', 'e4').press('white');
    expect(s.ofType('takeback')).toEqual([]);
    expect(s.incidentKinds()).toEqual(['illegal-move']);
    s.move('e4', 'e5').press('black').play('d2d4');
    expect(s.sans()).toEqual(['e4', 'Nf6', 'e5', 'Ng8', 'd4']);
  });

  it('a takeback of a capture restores both pieces', () => {
    const s = new Script().setUp().play('e2e4', 'd7d5', 'e4d5');
    s.lift('d5').place('e4', 'P').place('d5', 'p');
    expect(s.ofType('takeback')).toEqual([expect.objectContaining({ toPly: 2 })]);
    s.play('e4e5');
    expect(s.sans()).toEqual(['e4', 'd5', 'e5']);
  });

  it('the arbiter reinstates an earlier position', () => {
    const s = new Script().setUp().play('e2e4', 'e7e5', 'g1f3');
    const ev = s.engine.arbiter({ type: 'reinstate', at: s.t + 1, ply: 1 });
    expect(ev).toEqual([expect.objectContaining({ type: 'takeback', toPly: 1, removed: ['e5', 'Nf3'] })]);
    expect(s.engine.snapshot().fen).toBe('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1');
  });

  it('the arbiter sets a new position', () => {
    const s = new Script().setUp().play('e2e4');
    const fen = '4k3/8/8/8/8/8/8/4K2R w K - 0 1';
    const ev = s.engine.arbiter({ type: 'set-position', at: s.t + 1, fen });
    expect(ev[0]).toMatchObject({ type: 'game-started', kind: 'arbiter-position', fen });
  });
});

describe('engine: disconnection and jumps', () => {
  /** 1.e4 seen, then the board away while 1...e5 2.Nf3 Nc6 3.Bc4 Bc5 4.c3 Nf6 5.d4 exd4 6.cxd4 are played (beyond the search). */
  const tenPliesAway = (): Script => {
    const s = new Script().setUp().play('e2e4').unplug();
    for (const u of ['e7e5', 'g1f3', 'b8c6', 'f1c4', 'f8c5', 'c2c3', 'g8f6', 'd2d4', 'e5d4', 'c3d4']) s.move(u.slice(0, 2), u.slice(2));
    return s;
  };
  it('a board unplugged for two moves is resynchronised with the sequence found', () => {
    const s = new Script().setUp().play('e2e4').unplug();
    s.move('e7', 'e5').move('g1', 'f3');
    s.plug();
    expect(s.sans()).toEqual(['e4', 'e5', 'Nf3']);
    const inc = s.engine.snapshot().incidents;
    expect(inc.map((i) => [i.kind, i.ply])).toEqual([
      ['board-disconnected', 1],
      ['missed-moves', 1],
      ['board-resynchronised', 3],
    ]);
    expect(inc[1]).toMatchObject({ sans: ['e5', 'Nf3'], ambiguous: false, alternatives: 1 });
  });

  it('a burst of changes stamped with one time is searched as a jump', () => {
    const s = new Script().setUp().play('e2e4');
    // A buffered poll: every change of two moves arrives with the same time.
    const at = s.t + 5000;
    const burst: [string, number][] = [
      ['e7', 0],
      ['g1', 0],
      ['d8', 0],
      ['e5', 7],
      ['f3', 3],
      ['e7', 12],
    ];
    for (const [sq, piece] of burst) s.events.push(...s.engine.push({ type: 'field', at, field: s.field(sq), piece: piece as never }));
    expect(s.sans()).toEqual(['e4', 'e5', 'Nf3', 'Qe7']);
    expect(s.engine.snapshot().incidents[0]).toMatchObject({ kind: 'missed-moves', sans: ['e5', 'Nf3', 'Qe7'], ambiguous: false });
  });

  it('a periodic drift dump taken with a piece in the hand raises nothing', () => {
    const s = new Script().setUp().play('e2e4').lift('g8').dump().place('f6', 'n');
    expect(s.incidentKinds()).toEqual([]);
    expect(s.sans()).toEqual(['e4', 'Nf6']);
  });

  it('a drift dump that reveals a lost field update completes the move', () => {
    const s = new Script().setUp().play('e2e4').lift('g8');
    // the placement on f6 was lost on the line; the next periodic dump shows it
    s.board[s.field('f6')] = 9;
    s.dump();
    expect(s.sans()).toEqual(['e4', 'Nf6']);
    expect(s.incidentKinds()).toEqual([]);
  });

  it('one move seen late is just a move', () => {
    const s = new Script().setUp().play('e2e4').unplug().move('c7', 'c5').plug();
    expect(s.sans()).toEqual(['e4', 'c5']);
    expect(s.incidentKinds()).toEqual(['board-disconnected', 'board-resynchronised']);
  });

  it('flags a jump that more than one sequence explains', () => {
    const s = new Script().setUp().unplug().move('g1', 'f3').move('b8', 'c6').move('b1', 'c3').plug();
    const missed = s.engine.snapshot().incidents.find((i) => i.kind === 'missed-moves')!;
    expect(missed).toMatchObject({ ambiguous: true });
    expect(missed.kind === 'missed-moves' && missed.alternatives).toBe(2);
    expect(s.sans()).toHaveLength(3);
  });

  it('a board nothing explains: the record breaks at the first press on it and follows the board; no press is held against a player', () => {
    const s = new Script().setUp().play('e2e4').unplug().lift('a1').lift('h8').lift('d1').place('d4', 'Q').plug();
    // A dump is often taken with a piece in the hand: nothing is said until someone presses.
    expect(s.incidentKinds()).toEqual(['board-disconnected', 'board-resynchronised']);
    // The first reading after the outage shows a press made while the board was away: not judged.
    s.press('black');
    expect(s.incidentKinds()).toEqual(['board-disconnected', 'board-resynchronised']);
    s.move('b8', 'c6').press('white');
    expect(s.incidentKinds()).toEqual(['board-disconnected', 'board-resynchronised', 'illegal-position']);
    const inc = s.engine.snapshot().incidents[2]!;
    expect(inc.message).toMatch(/^The record breaks after ply 1: play goes on from a board the game cannot reach \(it differs on a1 d1 d4 c6 b8 h8\)/);
    // The break takes a ply with no move; the record goes on from the board, with the side to move
    // the press says (White pressed: Black to move) and only the castling rights its rooks allow.
    const gap = s.engine.snapshot().moves[1]!;
    expect(gap).toMatchObject({ ply: 2, by: 'white', san: '--', uci: '0000', confirmed: true, gap: { reason: 'unexplained' } });
    expect(gap.fenAfter).toBe('r1bqkbn1/pppppppp/2n5/8/3QP3/8/PPPP1PPP/1NB1KBNR b Kq - 0 2');
    s.move('g8', 'f6').press('black');
    expect(s.sans()).toEqual(['e4', '--', 'Nf6']);
    expect(s.engine.snapshot().illegalCounts).toEqual({ white: 0, black: 0 });
    // The arbiter accepts the board's position: the break stays, marked accepted.
    const accepted = s.engine.arbiter({ type: 'accept-board', at: s.t + 1, ply: 2 });
    expect(accepted).toEqual([expect.objectContaining({ type: 'move-amended', ply: 2, gap: { reason: 'unexplained', accepted: true } })]);
  });

  it('a press on a board no position can be set up from keeps the break where it stands: the record does not go back behind it', () => {
    const s = new Script().setUp().play('e2e4').unplug().lift('a1').lift('h8').lift('d1').place('h5', 'Q').plug();
    s.press('black').move('b8', 'c6').press('white');
    expect(s.sans()).toEqual(['e4', '--']);
    // Black's f-pawn put on f4 (no move), and Black presses: with White to move, Black's king
    // stands in check from h5, so no break can be taken at this board. The break stood taken
    // back, and the next press made it again: the record went back and forth at every press.
    s.lift('f7').place('f4', 'p').press('black');
    expect(s.sans()).toEqual(['e4', '--']);
    expect(s.engine.snapshot().illegalCounts).toEqual({ white: 0, black: 0 });
  });

  it('a break the search cannot reach is filled by the arbiter with the moves it hid; the later moves and their presses follow', () => {
    const s = tenPliesAway();
    // White pressed while the board was away; Black plays on and presses.
    s.plug().press('white');
    // The break is taken at the board before the move that showed it: that move is kept.
    s.move('c5', 'b4').press('black');
    expect(s.sans()).toEqual(['e4', '--', 'Bb4+']);
    s.move('c1', 'd2').press('white');
    expect(s.sans()).toEqual(['e4', '--', 'Bb4+', 'Bd2']);
    const bd2 = s.engine.snapshot().moves[3]!;
    const sans = ['e5', 'Nf3', 'Nc6', 'Bc4', 'Bc5', 'c3', 'Nf6', 'd4', 'exd4', 'cxd4'];
    const wrong = s.engine.arbiter({ type: 'replace-moves', at: s.t + 1, fromPly: 1, replaces: 1, sans: sans.slice(0, -1) });
    expect(wrong.map((e) => (e.type === 'incident' ? e.incident.message : e.type))).toEqual([expect.stringMatching(/do not reach the position the game went on from/)]);
    s.engine.arbiter({ type: 'replace-moves', at: s.t + 2, fromPly: 1, replaces: 1, sans });
    expect(s.sans()).toEqual(['e4', ...sans, 'Bb4+', 'Bd2']);
    const moves = s.engine.snapshot().moves;
    expect(moves.some((m) => m.gap)).toBe(false);
    // Bd2 keeps its own press; the last of the moves given takes the press that ended the break.
    expect(moves.at(-1)!.clockAfter).toEqual(bd2.clockAfter);
    expect(moves.at(-2)!.confirmed).toBe(true);
  });

  it('moves taken back to a break and on into the moves it hid: the next press takes the break again, nothing is held against a player', () => {
    const s = tenPliesAway();
    s.plug().press('white');
    s.move('c5', 'b4').press('black').move('c1', 'd2').press('white');
    expect(s.sans()).toEqual(['e4', '--', 'Bb4+', 'Bd2']);
    // Both taken back, then 10.cxd4 too (a move the break hid), and Black presses.
    s.move('d2', 'c1').move('b4', 'c5');
    expect(s.sans()).toEqual(['e4', '--']);
    s.move('d4', 'c3').place('d4', 'p').press('black');
    expect(s.engine.snapshot().illegalCounts).toEqual({ white: 0, black: 0 });
    expect(s.sans()).toEqual(['e4', '--']);
    expect(s.engine.snapshot().moves[1]!.fenAfter.split(' ').slice(0, 2).join(' ')).toBe('r1bqk2r/pppp1ppp/2n2n2/2b5/2BpP3/2P2N2/PP3PPP/RNBQK2R w');
    // White plays it again: the record goes on.
    s.lift('d4').move('c3', 'd4').press('white');
    expect(s.sans()).toEqual(['e4', '--', 'cxd4']);
  });

  it('a press whose reading knows one side only (partial) completes the move but gives it no reading', () => {
    const s = new Script().setUp().play('e2e4');
    s.move('e7', 'e5');
    s.t += 200;
    s.engine.push({ type: 'clock', at: s.t, whiteMs: 299_000, blackMs: 280_000, running: 'white', whiteFlag: false, blackFlag: false, logged: true, partial: true });
    const e5 = s.engine.snapshot().moves[1]!;
    expect(e5).toMatchObject({ san: 'e5', confirmed: true });
    expect(e5.clockAfter).toBeUndefined();
    // A whole reading at the next press is that move's.
    s.move('g1', 'f3').press('white');
    expect(s.engine.snapshot().moves[2]!.clockAfter).toEqual({ whiteMs: s.white, blackMs: s.black });
  });

  it('without a clock, a board nothing explains breaks the record at the first move made on it, the game is recorded from there, and the fewest plies that reach it fill the break', () => {
    const hidden = ['e7e5', 'g1f3', 'b8c6', 'f1c4', 'f8c5', 'c2c3', 'g8f6', 'd2d4', 'e5d4', 'c3d4'];
    const s = new Script().setUp().move('e2', 'e4').unplug();
    for (const u of hidden) s.move(u.slice(0, 2), u.slice(2));
    s.plug();
    expect(s.sans()).toEqual(['e4']);
    // A piece lifted, and put back where it stood: no move, no break.
    s.lift('c5').place('c5', 'b');
    expect(s.sans()).toEqual(['e4']);
    // No press will ever come. One move is not enough (a piece sliding to a capture passes through
    // boards each one move from the last); a move and the reply break the record before them.
    s.move('c5', 'b4');
    expect(s.sans()).toEqual(['e4']);
    s.move('c1', 'd2');
    // The record broke before them (the break told to every consumer as it was taken)...
    const gap = s.events.find((e) => e.type === 'move-made' && e.gap !== undefined);
    expect(gap).toMatchObject({ by: 'white', gap: { reason: 'unexplained' } });
    expect(gap?.type === 'move-made' && gap.fenAfter.split(' ').slice(0, 2).join(' ')).toBe('r1bqk2r/pppp1ppp/2n2n2/2b5/2BPP3/5N2/PP3PPP/RNBQK2R b');
    // ...and nothing counts the presses without a clock: the record's numbering does. The fewest
    // plies that reach the board the break took leaving Black to move, ten, fill it at once (their
    // order cannot be told: marked, with the others), and Bb4+ Bd2 follow them.
    const sans = s.sans();
    expect(sans).toHaveLength(13);
    expect(sans.slice(-2)).toEqual(['Bb4+', 'Bd2']);
    const filled = s.engine.snapshot().incidents.find((i) => i.kind === 'missed-moves');
    expect(filled).toMatchObject({ ambiguous: true, sans: sans.slice(1, 11) });
    expect(filled!.message).toContain('no clock counts the presses');
    expect(filled!.kind === 'missed-moves' && filled!.candidates!.every((c) => c.length === 10)).toBe(true);
    // A capture whose taken piece is lifted last, and a castling with the king first.
    s.lift('b4').place('b4', 'b').lift('d2');
    s.lift('b4').place('d2', 'b');
    expect(s.sans()).toEqual([...sans, 'Bxd2+']);
    s.lift('b1').place('d2', 'N').lift('e8').place('g8', 'k').lift('h8').place('f8', 'r');
    expect(s.sans()).toEqual([...sans, 'Bxd2+', 'Nbxd2', 'O-O']);
    expect(s.engine.snapshot().illegalCounts).toEqual({ white: 0, black: 0 });
    expect(s.incidentKinds().filter((k) => k === 'illegal-position')).toHaveLength(1);
  });

  it('without a clock, a bishop sliding to its capture after a dump short of the taken pawn breaks nothing', () => {
    const s = new Script().setUp().move('e2', 'e4').move('e7', 'e5').move('f1', 'c4').unplug().move('b8', 'c6').lift('f7').plug();
    expect(s.sans()).toEqual(['e4', 'e5', 'Bc4', 'Nc6']);
    s.lift('c4').place('d5', 'B').lift('d5').place('e6', 'B').lift('e6').place('f7', 'B');
    expect(s.sans()).toEqual(['e4', 'e5', 'Bc4', 'Nc6', 'Bxf7+']);
    expect(s.incidentKinds()).not.toContain('illegal-position');
  });

  it('with a clock, the break is taken at the board before the move that the first press completes, on the side the press names', () => {
    const s = tenPliesAway();
    s.plug().press('white');
    // A board seen on the way (the queen lifted and put back) is not where the break starts: the knight's move came after it.
    s.lift('d8').place('d8', 'q').move('c6', 'e7').press('black');
    expect(s.sans()).toEqual(['e4', '--', 'Ne7']);
    expect(s.engine.snapshot().moves[2]!.confirmed).toBe(true);
  });

  it('back with a piece in the hand from a break nothing explains: the move it makes is kept, its square of departure taken from where it stood before', () => {
    const s = tenPliesAway();
    // The board powers up with Black's queen in the hand: it lists d8 empty, then sees the queen land.
    s.lift('d8').plug().press('white');
    s.place('e7', 'q').press('black');
    expect(s.sans()).toEqual(['e4', '--', 'Qe7']);
    const brk = s.engine.snapshot().incidents.find((i) => i.kind === 'illegal-position')!;
    expect(brk.message).toMatch(/the black queen put on e7 was in a hand when the board was read; it is taken to come from d8/);
    expect(s.engine.snapshot().moves[1]!.fenAfter.split(' ')[0]).toBe('r1bqk2r/pppp1ppp/2n2n2/2b5/2BPP3/5N2/PP3PPP/RNBQK2R');
    expect(s.engine.snapshot().illegalCounts).toEqual({ white: 0, black: 0 });
  });

  it('a piece in the hand that no square of the record explains: its move is recorded when it is the same from every square it may have come from, the squares named', () => {
    const s = tenPliesAway();
    // The knight on c6 (from b8 while the board was away) in the hand, bound for e5: neither square
    // the record had a black knight on (b8, g8) reaches e5. Several empty squares do (c6, d7, g6,
    // g4...), and from each the move is Ne5: the move is known, its square is not.
    s.lift('c6').plug().press('white');
    s.place('e5', 'n').press('black');
    expect(s.sans()).toEqual(['e4', '--', 'Ne5']);
    expect(s.engine.snapshot().incidents.find((i) => i.kind === 'illegal-position')!.message).toMatch(
      /came from one of [a-h1-8, ]*c6[a-h1-8, ]*, which the board cannot tell, and Ne5 is the same move from each/,
    );
    expect(s.engine.snapshot().illegalCounts).toEqual({ white: 0, black: 0 });
  });

  it('a piece in the hand that had moved while the board was away: the break takes a guess of its square, and the moves the arbiter gives settle it', () => {
    const s = tenPliesAway();
    // Black's bishop, on c5 since the outage, in the hand: the record last saw it on f8, and f8-b4 is open.
    s.lift('c5').plug().press('white');
    s.place('b4', 'b').press('black');
    expect(s.sans()).toEqual(['e4', '--', 'Bb4+']);
    expect(s.engine.snapshot().incidents.find((i) => i.kind === 'illegal-position')!.message).toMatch(/taken to come from f8/);
    // The arbiter fills the break with the moves played: they leave the bishop on c5, not f8, and
    // the move after the break reaches the same board from there.
    const sans = ['e5', 'Nf3', 'Nc6', 'Bc4', 'Bc5', 'c3', 'Nf6', 'd4', 'exd4', 'cxd4'];
    s.engine.arbiter({ type: 'replace-moves', at: s.t + 1, fromPly: 1, replaces: 1, sans });
    expect(s.sans()).toEqual(['e4', ...sans, 'Bb4+']);
    expect(s.engine.snapshot().moves.some((m) => m.gap)).toBe(false);
    expect(s.engine.snapshot().moves.at(-1)!.uci).toBe('c5b4');
  });

  it('a piece put down from nowhere after a jump read with it in the hand: the jump is searched again, and no move is illegal', () => {
    // While the board was away: 1...d6 2.Nc3 Bg4; back with White's queen in the hand. The board
    // reads as 1...d6 2.Qg4 Bxg4 3.Nc3 as well (the queen taken on g4).
    const s = new Script().setUp().play('e2e4').unplug().move('d7', 'd6').move('b1', 'c3').move('c8', 'g4').lift('d1').plug();
    // The first reading shows Black's press made while the board was away; White puts the queen down and presses.
    s.press('black').place('e2', 'Q').press('white');
    expect(s.sans().slice(0, 1)).toEqual(['e4']);
    expect(s.sans().slice(1).sort()).toEqual(['Bg4', 'Nc3', 'Qe2', 'd6']);
    expect(s.engine.snapshot().fen.split(' ').slice(0, 2).join(' ')).toBe('rn1qkbnr/ppp1pppp/3p4/8/4P1b1/2N5/PPPPQPPP/R1B1KBNR b');
    s.move('g8', 'f6').press('black');
    expect(s.incidentKinds()).not.toContain('illegal-move');
    expect(s.engine.snapshot().illegalCounts).toEqual({ white: 0, black: 0 });
  });

  it('of the orders that explain a jump, the one through a board seen on the way is published (still marked ambiguous)', () => {
    // While the board was away: 1...d6 2.Qe2 Bg4; back with the queen in the hand, which reads as
    // 1...d6 2.Qg4 Bxg4. The queen is put back on e2 (that board is seen whole), then 3.Nc3.
    const s = new Script().setUp().play('e2e4').unplug().move('d7', 'd6').move('d1', 'e2').move('c8', 'g4').lift('e2').plug();
    expect(s.sans()).toEqual(['e4', 'd6', 'Qg4', 'Bxg4']);
    s.press('black').place('e2', 'Q').move('b1', 'c3').press('white');
    // 1...d6 2.Nc3 Bg4 3.Qe2 leaves the same board, but the board showed the position after 2...Bg4 with the knight at home.
    expect(s.sans()).toEqual(['e4', 'd6', 'Qe2', 'Bg4', 'Nc3']);
    const missed = s.engine
      .snapshot()
      .incidents.filter((i) => i.kind === 'missed-moves')
      .at(-1)!;
    expect(missed.kind === 'missed-moves' && missed.ambiguous).toBe(true);
    expect(missed.kind === 'missed-moves' && missed.candidates?.map((c) => c.join(' '))).toEqual(['d6 Qe2 Bg4 Nc3', 'd6 Nc3 Bg4 Qe2']);
  });

  it('an en passant capture right after a span of several orders tells the order: the double step of the pawn taken went last', () => {
    // While the board was away: 2...h6 3.a3 d5 (or 2...d5 3.a3 h6: the board alone cannot tell).
    const s = new Script().setUp().play('e2e4', 'a7a6', 'e4e5').unplug().move('h7', 'h6').move('a2', 'a3').move('d7', 'd5').plug();
    expect(s.engine.snapshot().moves.at(-1)!.uncertain?.candidates).toHaveLength(2);
    // The first reading shows Black's press made meanwhile; White takes en passant.
    s.press('black').lift('e5').place('d6', 'P').lift('d5').press('white');
    expect(s.sans()).toEqual(['e4', 'a6', 'e5', 'h6', 'a3', 'd5', 'exd6']);
    // One order only lets the capture follow: the span is no longer marked.
    expect(s.engine.snapshot().moves[4]!.uncertain).toBeUndefined();
    expect(s.engine.snapshot().illegalCounts).toEqual({ white: 0, black: 0 });
    expect(s.incidentKinds()).toEqual(['board-disconnected', 'missed-moves', 'board-resynchronised']);
  });

  it('a castling later on tells the reading of the span that lost its right: the span is read again with the king and rook at home', () => {
    // While the board was away: 3.Nf3 h5 4.Ng1. The board reads as twelve tempos, the rook's first.
    const fen = '4k3/7p/8/8/8/8/P7/R3K1N1 w Q - 0 1';
    const s = new Script({ start: { fen } }).setUp(fen).play('a2a3', 'h7h6').unplug().move('g1', 'f3').move('h6', 'h5').move('f3', 'g1').plug();
    expect(s.sans()).toEqual(['a3', 'h6', 'Rb1', 'h5', 'Ra1']);
    expect(s.engine.snapshot().moves.at(-1)!.uncertain?.candidates).toHaveLength(12);
    // Black's move, then White castles queenside: legal only if neither the king nor the rook moved.
    s.press('white').move('e8', 'd8').press('black');
    s.lift('e1').place('c1', 'K').lift('a1').place('d1', 'R');
    // Recorded when the board shows it, before the press; the span keeps the knight's three readings.
    expect(s.sans()).toEqual(['a3', 'h6', 'Ne2', 'h5', 'Ng1', 'Kd8', 'O-O-O+']);
    expect(s.engine.snapshot().moves[2]!.uncertain?.candidates.map((c) => c.join(' '))).toEqual(['Ne2 h5 Ng1', 'Nf3 h5 Ng1', 'Nh3 h5 Ng1']);
    s.press('white');
    expect(s.engine.snapshot().illegalCounts).toEqual({ white: 0, black: 0 });
    expect(s.incidentKinds()).toEqual(['board-disconnected', 'missed-moves', 'board-resynchronised']);
  });

  it('a castling that every reading of the span it lost its right in forbids: held against nobody, the record breaks before it with the right given back', () => {
    // While the board was away: 3.Kd1 h5 4.Ke1 (or the rook out and back: nothing else of White's can go and come back).
    const fen = '4k3/7p/8/8/8/8/P7/R3K3 w Q - 0 1';
    const s = new Script({ start: { fen } }).setUp(fen).play('a2a3', 'h7h6').unplug().move('e1', 'd1').move('h6', 'h5').move('d1', 'e1').plug();
    s.press('white').move('e8', 'd8').press('black');
    s.lift('e1').place('c1', 'K').lift('a1').place('d1', 'R').press('white');
    // The board cannot show whether the king or the rook moved, nor the clock how many plies the
    // outage took (time may have been given by hand): the arbiter is told, and the castling is kept.
    expect(s.sans()).toEqual(['a3', 'h6', 'Rb1', 'h5', 'Ra1', 'Kd8', '--', 'O-O-O+']);
    expect(s.engine.snapshot().illegalCounts).toEqual({ white: 0, black: 0 });
    const broke = s.engine
      .snapshot()
      .incidents.filter((i) => i.kind === 'illegal-position')
      .at(-1)!;
    expect(broke.message).toMatch(/castling that follows needs the king and the rook of a1 never to have moved/);
    expect(s.engine.snapshot().moves.at(-2)!.fenAfter.split(' ').slice(0, 3).join(' ')).toBe('3k4/8/8/7p/8/P7/8/R3K3 w Q');
  });

  it('link lost with the board powered: a move under way in the log (a rook halfway through its slide to a capture) is no jump at the return', () => {
    const fen = 'rnbqkbnr/ppppppp1/8/8/8/4P3/PPPP1PPP/RNBQKBNR w KQkq - 0 1';
    const s = new Script({ start: { fen } }).setUp(fen).play('d1h5').unplug();
    // Read back from the log: the queen on h5 taken off, the rook from h8 sliding through h7 and resting on h6.
    s.logged('h5').logged('h8').logged('h7', 'r').logged('h7').logged('h6', 'r').plug();
    // Rh7 Qh6 Rxh6 would lead to this board too: out and back, and the log saw no such thing.
    expect(s.sans()).toEqual(['Qh5']);
    expect(s.incidentKinds()).not.toContain('missed-moves');
    s.lift('h6').place('h5', 'r').press('black');
    expect(s.sans()).toEqual(['Qh5', 'Rxh5']);
    expect(s.engine.snapshot().illegalCounts).toEqual({ white: 0, black: 0 });
  });

  it('a dump taken with a piece in the hand after an outage: the record resumes at once, and the piece put down is the next move', () => {
    // While the board was away: 1...e5 2.Nf3 Nc6 3.Bc4; back with Black's knight from g8 in the hand.
    const s = new Script().setUp().play('e2e4').unplug().move('e7', 'e5').move('g1', 'f3').move('b8', 'c6').move('f1', 'c4').lift('g8').plug();
    // No sequence leaves exactly that board; some leave it short of a knight Black could be moving.
    // White's two moves could come in either order: one is published, the true one is offered.
    expect(s.engine.snapshot().fen.split(' ').slice(0, 4).join(' ')).toBe('r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq -');
    const missed = s.engine.snapshot().incidents.find((i) => i.kind === 'missed-moves')!;
    expect(missed.kind === 'missed-moves' && missed.message).toMatch(/the piece of g8 was in a hand/);
    expect(missed.kind === 'missed-moves' && missed.candidates?.map((c) => c.join(' '))).toContain('e5 Nf3 Nc6 Bc4');
    s.place('f6', 'n');
    expect(s.engine.snapshot().fen.split(' ').slice(0, 4).join(' ')).toBe('r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq -');
    expect(s.sans().slice(-1)).toEqual(['Nf6']);
    s.press('black');
    expect(s.engine.snapshot().moves.at(-1)).toMatchObject({ san: 'Nf6', confirmed: true });
    expect(s.incidentKinds()).toEqual(['board-disconnected', 'missed-moves', 'board-resynchronised']);
  });

  it('the piece read in a hand put down right after the jump, without a clock: it may have moved while the board was away and been put back, so the jump and the move are one span, marked, both orders offered', () => {
    // While the board was away: 2...d6 3.d4 a6; back with the d6 pawn in a hand (lifted again). The
    // board reads as 2...a6 3.d4 with the d7 pawn in the hand, and the pawn put on d6 as 3...d6:
    // nothing tells that from the three plies played.
    const s = new Script().setUp().move('f2', 'f4').move('b7', 'b5').move('d2', 'd3').unplug().move('d7', 'd6').move('d3', 'd4').move('a7', 'a6').lift('d6').plug();
    expect(s.sans()).toEqual(['f4', 'b5', 'd3', 'a6', 'd4']);
    s.place('d6', 'p');
    expect(s.sans()).toEqual(['f4', 'b5', 'd3', 'a6', 'd4', 'd6']);
    const marked = s.engine
      .snapshot()
      .incidents.filter((i) => i.kind === 'missed-moves')
      .at(-1)!;
    expect(marked.kind === 'missed-moves' && marked.ambiguous).toBe(true);
    expect(marked.kind === 'missed-moves' && marked.candidates?.map((c) => c.join(' '))).toEqual(['a6 d4 d6', 'd6 d4 a6']);
    expect(
      s.engine
        .snapshot()
        .moves.slice(3)
        .map((m) => m.uncertain?.plies),
    ).toEqual([3, 3, 3]);
    // The move seen is still the move seen: White's reply confirms it.
    s.move('e2', 'e3');
    expect(s.engine.snapshot().moves.at(-2)).toMatchObject({ san: 'd6', confirmed: true });
  });

  it('the piece read in a hand put down right after the jump, with a clock: the running side tells the readings apart, and nothing is marked', () => {
    const s = new Script().setUp().play('f2f4', 'b7b5', 'd2d3').unplug().move('d7', 'd6').move('d3', 'd4').move('a7', 'a6').lift('d6').plug();
    s.place('d6', 'p');
    expect(s.sans()).toEqual(['f4', 'b5', 'd3', 'a6', 'd4', 'd6']);
    expect(s.engine.snapshot().incidents.filter((i) => i.kind === 'missed-moves')).toHaveLength(1);
    expect(s.engine.snapshot().moves.every((m) => m.uncertain === undefined)).toBe(true);
  });

  it('one move missed and the next begun: the dump short of the lifted knight is read through the hand', () => {
    // While the board was away: 2.Nf3; back with Black's b8 knight already lifted for 2...Nc6.
    const s = new Script().setUp().play('e2e4').play('e7e5').unplug().move('g1', 'f3').lift('b8').plug();
    expect(s.sans()).toEqual(['e4', 'e5', 'Nf3']);
    s.place('c6', 'n');
    expect(s.sans()).toEqual(['e4', 'e5', 'Nf3', 'Nc6']);
    expect(s.incidentKinds()).toEqual(['board-disconnected', 'missed-moves', 'board-resynchronised']);
  });

  it('a move taken back inside a span whose order could not be told tells the order', () => {
    // While the board was away: 1...a6 2.b3 g6 (or 1...g6 2.b3 a6: the board cannot tell).
    const s = new Script().setUp().play('e2e4').unplug().move('a7', 'a6').move('b2', 'b3').move('g7', 'g6').plug();
    const published = s.sans().slice(1);
    expect(published.slice().sort()).toEqual(['a6', 'b3', 'g6']);
    expect(s.engine.snapshot().moves.at(-1)?.uncertain?.candidates).toHaveLength(2);
    // Play goes on and is pressed (the jump is confirmed), then the players take moves back: the
    // last two, then the move the published order does not end with (only the other order ends
    // so), and White presses to start Black's clock again.
    s.press('black').play('c2c4', 'h7h6');
    expect(s.sans().slice(4)).toEqual(['c4', 'h6']);
    s.move('h6', 'h7').move('c4', 'c2');
    expect(s.sans()).toHaveLength(4);
    const last = published[2] === 'g6' ? 'a6' : 'g6';
    if (last === 'a6') s.move('a6', 'a7');
    else s.move('g6', 'g7');
    s.press('white');
    expect(s.sans()).toEqual(['e4', last === 'a6' ? 'g6' : 'a6', 'b3']);
    expect(s.incidentKinds()).not.toContain('illegal-move');
  });

  it('moves taken back past those after the span, into it, in one go, tell the order all the same', () => {
    const s = new Script().setUp().play('e2e4').unplug().move('a7', 'a6').move('b2', 'b3').move('g7', 'g6').plug();
    const published = s.sans().slice(1);
    s.press('black').play('c2c4', 'h7h6');
    // Both hands at work: neither pawn of the moves after the span goes back before the span's
    // last Black move (the one the published order does not end with) is taken back, so no board
    // between is one the record has.
    const last = published[2] === 'g6' ? 'a6' : 'g6';
    s.lift('h6').lift('c4');
    if (last === 'a6') s.move('a6', 'a7');
    else s.move('g6', 'g7');
    s.place('c2', 'P').place('h7', 'p').press('white');
    expect(s.sans()).toEqual(['e4', last === 'a6' ? 'g6' : 'a6', 'b3']);
    expect(s.incidentKinds()).not.toContain('illegal-move');
  });

  it('an outage of six plies comes back exact, with the alternatives offered when the order cannot be told', () => {
    const s = new Script().setUp().play('e2e4').unplug();
    for (const [a, b] of [
      ['e7', 'e5'],
      ['g1', 'f3'],
      ['b8', 'c6'],
      ['f1', 'b5'],
      ['a7', 'a6'],
      ['b5', 'a4'],
    ])
      s.move(a!, b!);
    s.plug();
    // (the halfmove counter depends on the order, so only the position is compared)
    expect(s.engine.snapshot().fen.split(' ').slice(0, 4).join(' ')).toBe('r1bqkbnr/1ppp1ppp/p1n5/4p3/B3P3/5N2/PPPP1PPP/RNBQK2R b KQkq -');
    const missed = s.engine.snapshot().incidents.find((i) => i.kind === 'missed-moves')!;
    // Black's e5, Nc6 and a6 could come in other orders (White's Nf3 too, before Bb5): all offered.
    expect(missed.kind === 'missed-moves' && missed.ambiguous).toBe(true);
    expect(missed.kind === 'missed-moves' && missed.candidates?.some((c) => c.join(' ') === 'e5 Nf3 Nc6 Bb5 a6 Ba4')).toBe(true);
    expect(s.engine.snapshot().moves[1]!.uncertain).toMatchObject({ firstPly: 2, plies: 6 });
  });
});

describe('engine: Chess960', () => {
  it.each([
    ['BBQNNRKR', 0],
    ['RNBQKBNR', 518],
    ['RKRNNQBB', 959],
    ['QBNBRKRN', undefined], // not a 960 start: both bishops on light squares
  ])('Scharnagl number of %s is %s', (back, n) => {
    expect(scharnagl(back)).toBe(n);
  });

  it('recognises a Chess960 start, also reversed', () => {
    for (const reversed of [false, true]) {
      const s = new Script({}, reversed).setUp('bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1');
      expect(s.ofType('game-started')[0]).toMatchObject({ kind: 'chess960', chess960Number: 0, reversed });
      s.play('g2g3', 'f7f5');
      expect(s.sans()).toEqual(['g3', 'f5']);
    }
  });

  const FEN = '1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w HBhb - 0 1';
  const castles: [string, (s: Script) => Script, string, string][] = [
    ['only the rook moves (king already on g1)', (s) => s.move('h1', 'f1'), 'O-O', 'g1h1'],
    ['king off the board, rook, then king', (s) => s.lift('g1').lift('b1').place('d1', 'R').place('c1', 'K'), 'O-O-O', 'g1b1'],
    ['king onto the rook first', (s) => s.lift('g1').lift('b1').place('b1', 'K').lift('b1', 600).place('d1', 'R').place('c1', 'K'), 'O-O-O', 'g1b1'],
  ];
  it('a rook lifted first counts for 4.4.2 even where it ends on its own square', () => {
    const fen = '4k3/pppppppp/8/8/8/8/PPPPPPPP/4KR2 w F - 0 1';
    const s = new Script({ start: { fen }, chess960: true }).setUp(fen);
    s.lift('f1').place('f1', 'R').move('e1', 'g1').press('white');
    expect(s.sans()).toEqual(['O-O']);
    expect(s.incidentKinds()).toEqual(['rook-first-castling']);
  });

  it('a rook moved illegally and brought back is not rook-first for the castling after it', () => {
    const fen = '4k3/pppppppp/8/8/8/8/PPPPPPPP/4KR2 w F - 0 1';
    const s = new Script({ start: { fen }, chess960: true }).setUp(fen);
    s.move('f1', 'd3').move('d3', 'f1').move('e1', 'g1').press('white');
    expect(s.sans()).toEqual(['O-O']);
    expect(s.incidentKinds()).toEqual([]);
  });

  it.each(castles)('castling: %s', (_n, hand, san, uci) => {
    const s = new Script({ start: { fen: FEN }, chess960: true }).setUp(FEN);
    hand(s).press('white');
    expect(s.sans()).toEqual([san]);
    expect(s.engine.snapshot().moves[0]!.uci).toBe(uci);
    expect(s.incidentKinds()).toEqual([]);
  });
});

describe('engine: one table, several games', () => {
  it('a new game starts when the start position is set up again after a result', () => {
    const s = new Script().setUp().play('e2e4', 'e7e5').place('d4', 0x0e);
    expect(s.engine.snapshot().result).toMatchObject({ result: '1-0', termination: 'result-pieces' });
    // result piece off, pawns back: the start position again
    s.lift('d4').move('e4', 'e2').move('e5', 'e7');
    const starts = s.ofType('game-started');
    expect(starts).toHaveLength(2);
    expect(s.engine.snapshot()).toMatchObject({ moves: [], result: undefined });
    s.play('d2d4');
    expect(s.sans()).toEqual(['d4']);
  });
});

describe('engine: results shown with the kings in the centre (DGT convention)', () => {
  // White's king on f3 can step to e4 legally; Black's on c6 can step to d5.
  const fen = 'r7/8/2k5/8/8/5K2/8/7R w - - 0 1';
  const start = (): Script => new Script({ start: { fen } }).setUp(fen).play('h1h2', 'a8a7');

  it.each([
    ['e4', 'd5', '1-0'],
    ['d4', 'e5', '0-1'],
    ['e4', 'e5', '1/2-1/2'],
  ])('white king on %s, black king on %s: %s, and the first king put down is not a move', (w, b, result) => {
    const s = start();
    s.move('f3', w);
    s.move('c6', b);
    const snap = s.engine.snapshot();
    expect(snap.result).toMatchObject({ result, termination: 'result-kings' });
    expect(s.sans()).toEqual(['Rh2', 'Ra7']);
  });

  it('a king move to the centre the clock confirmed stays in the record', () => {
    const s = start().play('f3e4');
    s.move('c6', 'd5');
    expect(s.sans()).toEqual(['Rh2', 'Ra7', 'Ke4']);
    expect(s.engine.snapshot().result).toMatchObject({ result: '1-0', termination: 'result-kings' });
  });

  it('a king moved illegally next to the other in the centre and put back is no result: play goes on, and the result is withdrawn', () => {
    const s = start().play('f3e4');
    s.move('c6', 'd5');
    expect(s.engine.snapshot().result).toMatchObject({ result: '1-0', termination: 'result-kings' });
    s.move('d5', 'c6').move('a7', 'a4').press('black');
    // One move after the kings left the centre is not enough (a result is taken down a king at a time).
    expect(s.engine.snapshot().result).toMatchObject({ termination: 'result-kings' });
    s.move('e4', 'e3').press('white');
    expect(s.engine.snapshot().result).toBeUndefined();
    expect(s.sans()).toEqual(['Rh2', 'Ra7', 'Ke4', 'Ra4+', 'Ke3']);
    expect(s.ofType('result-withdrawn')).toHaveLength(1);
  });

  it('a result shown with the kings and taken down one king at a time stands', () => {
    const s = start();
    s.move('f3', 'e4').move('c6', 'd5');
    s.move('d5', 'c6').move('e4', 'f3');
    expect(s.engine.snapshot().result).toMatchObject({ result: '1-0', termination: 'result-kings' });
    expect(s.sans()).toEqual(['Rh2', 'Ra7']);
  });

  it('one king in the centre is play, not a result', () => {
    const s = start();
    s.move('f3', 'e4').press('white');
    expect(s.engine.snapshot().result).toBeUndefined();
    expect(s.sans()).toEqual(['Rh2', 'Ra7', 'Ke4']);
  });
});

describe('engine: the arbiter picks another order for an inferred span', () => {
  const jumped = (): Script => {
    // 2.Nf3 Nc6 3.Nc3 while the board was away: White's two knight moves fit in either order.
    const s = new Script().setUp().play('e2e4', 'e7e5').unplug().move('g1', 'f3').move('b8', 'c6').move('b1', 'c3').plug();
    s.press('white').move('g8', 'f6').press('black');
    return s;
  };

  it('re-orders the span, keeps the later moves and every press reading on its ply, and clears the mark', () => {
    const s = jumped();
    const before = s.engine.snapshot();
    expect(before.moves[2]!.uncertain?.candidates.length).toBe(2);
    const chosen = before.moves[2]!.san === 'Nf3' ? ['Nc3', 'Nc6', 'Nf3'] : ['Nf3', 'Nc6', 'Nc3'];
    s.engine.arbiter({ type: 'replace-moves', at: s.t + 1, fromPly: 2, sans: chosen });
    const after = s.engine.snapshot();
    expect(after.moves.map((m) => m.san)).toEqual(['e4', 'e5', ...chosen, 'Nf6']);
    expect(after.fen).toBe(before.fen.replace(/ \d+ \d+$/, after.fen.match(/ \d+ \d+$/)![0]));
    expect(after.moves.map((m) => m.clockAfter)).toEqual(before.moves.map((m) => m.clockAfter));
    expect(after.moves.every((m) => m.confirmed)).toBe(true);
    expect(after.moves.some((m) => m.uncertain)).toBe(false);
  });

  it('refuses moves that do not fit, and changes nothing', () => {
    const s = jumped();
    const before = s.engine.snapshot();
    const refused = (sans: string[]): string[] => s.engine.arbiter({ type: 'replace-moves', at: s.t + 1, fromPly: 2, sans }).map((e) => (e.type === 'incident' ? e.incident.message : e.type));
    expect(refused(['Nf3', 'Nc6', 'Nh3'])).toEqual(["Arbiter's moves refused: Nh3 is not a legal move at ply 5"]);
    expect(refused(['Nf3', 'Nf6', 'Nc3'])).toEqual(["Arbiter's moves refused: the game's later move at ply 6 is not legal after the moves given"]);
    expect(s.engine.snapshot().moves).toEqual(before.moves);
  });

  // A king put down on g1 before its rook moves is recorded as that two-square step; the move
  // lists write castling as the king onto its rook. Replaying the later moves looked the step up
  // among them, found nothing, and threw half-way: the game's record was left cut at the span.
  it('keeps a castling made king first after the span: the later moves are replayed as played', () => {
    const s = new Script().setUp().play('e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4', 'f8c5');
    // 4.d3 Nf6 5.c3 while the board was away: White's two pawn moves fit in either order.
    s.unplug().move('d2', 'd3').move('g8', 'f6').move('c2', 'c3').plug();
    s.press('white').move('d7', 'd6').press('black');
    s.move('e1', 'g1').move('h1', 'f1').press('white');
    const before = s.engine.snapshot();
    expect(before.moves.slice(-2).map((m) => m.san)).toEqual(['d6', 'O-O']);
    expect(before.moves[6]!.uncertain?.candidates.length).toBe(2);
    const chosen = before.moves[6]!.san === 'd3' ? ['c3', 'Nf6', 'd3'] : ['d3', 'Nf6', 'c3'];
    s.engine.arbiter({ type: 'replace-moves', at: s.t + 1, fromPly: 6, sans: chosen });
    const after = s.engine.snapshot();
    expect(after.moves.map((m) => m.san)).toEqual(['e4', 'e5', 'Nf3', 'Nc6', 'Bc4', 'Bc5', ...chosen, 'd6', 'O-O']);
    expect(after.moves.at(-1)!.uci).toBe('e1g1');
    expect(after.fen).toBe(before.fen.replace(/ \d+ \d+$/, after.fen.match(/ \d+ \d+$/)![0]));
  });
});

describe('engine: never freeze', () => {
  it('publishes the board as it stands while the record cannot follow it, and stops once it can', () => {
    const s = new Script().setUp().play('e2e4').unplug().lift('a1').lift('h8').lift('d1').place('d4', 'Q').plug();
    const shown = (): (string | null)[] => s.events.filter((e) => e.type === 'board-shown').map((e) => (e.type === 'board-shown' ? e.placement : null));
    expect(shown()).toEqual(['rnbqkbn1/pppppppp/8/8/3QP3/8/PPPP1PPP/1NB1KBNR']);
    // Black plays on from the board as it stands: the live views follow every change.
    s.move('e7', 'e5');
    expect(shown().at(-1)).toBe('rnbqkbn1/pppp1ppp/8/4p3/3QP3/8/PPPP1PPP/1NB1KBNR');
    // The arbiter has the pieces put back where the game has them: the record follows again.
    s.move('e5', 'e7').place('a1', 'R').place('h8', 'r').lift('d4').place('d1', 'Q');
    expect(shown().at(-1)).toBeNull();
    expect(s.engine.snapshot().moves.map((m) => m.san)).toEqual(['e4']);
  });

  it("shows the arbiter's position while the pieces are put to it; a press on a board still not put to it breaks the record there", () => {
    const s = new Script().setUp().play('e2e4', 'e7e5');
    const fen = '8/8/4k3/8/8/4K3/4P3/8 w - - 0 1';
    const shownBy = (events: typeof s.events): (string | null)[] => events.flatMap((e) => (e.type === 'board-shown' ? [e.placement] : []));
    expect(shownBy(s.engine.arbiter({ type: 'set-position', at: s.t + 1, fen }))).toEqual([]);
    s.events.length = 0;
    s.dump();
    s.lift('a1');
    expect(shownBy(s.events)).toEqual([]);
    // Play went on without the arbiter's position: the record follows the board from the press.
    s.press('white');
    expect(shownBy(s.events)).toEqual([]);
    expect(s.engine.snapshot().moves).toEqual([expect.objectContaining({ san: '--', fenAfter: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/1NBQKBNR b - - 0 1' })]);
  });

  // Without a clock nothing presses: a board that went off the record while it was watched was
  // left waiting for a press that never comes, and every later move was lost.
  it('without a clock, an illegal move that stands: once the reply and the next move are seen, the record breaks after it and goes on; nothing is held against the player', () => {
    const s = new Script().setUp().move('e2', 'e4').move('e7', 'e5');
    // White's knight goes b1-b3 and nobody puts it right.
    s.move('b1', 'b3').move('d7', 'd6');
    expect(s.sans()).toEqual(['e4', 'e5']);
    s.move('d2', 'd4');
    const snap = s.engine.snapshot();
    expect(snap.moves.map((m) => m.san)).toEqual(['e4', 'e5', '--', 'd6', 'd4']);
    expect(snap.moves[2]).toMatchObject({ gap: { reason: 'unexplained' }, fenAfter: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/1N6/PPPP1PPP/R1BQKBNR b KQkq - 0 2' });
    expect(snap.incidents.map((i) => i.kind)).toEqual(['illegal-position']);
    expect(snap.incidents[0]!.message).toMatch(/white knight of b1 on b3, where no legal move takes it/);
    expect(snap.illegalCounts).toEqual({ white: 0, black: 0 });
    s.move('g8', 'f6').move('f1', 'c4');
    expect(s.sans().slice(3)).toEqual(['d6', 'd4', 'Nf6', 'Bc4']);
  });

  it('without a clock, a move out of turn: the record breaks at its own board with the other side to move, and that move and all after it are kept', () => {
    const s = new Script().setUp().move('e2', 'e4').move('e7', 'e5');
    // White to move, and Black moves again.
    s.move('d7', 'd6').move('d2', 'd4');
    const snap = s.engine.snapshot();
    expect(snap.moves.map((m) => m.san)).toEqual(['e4', 'e5', '--', 'd6', 'd4']);
    expect(snap.moves[2]).toMatchObject({ by: 'white', fenAfter: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2' });
    expect(snap.incidents.map((i) => i.message)).toEqual([expect.stringMatching(/play goes on from the record's board with black to move, where the record has white to move/)]);
    s.move('g8', 'f6');
    expect(s.sans().slice(3)).toEqual(['d6', 'd4', 'Nf6']);
  });

  it('a clock gone silent (its cable out, its battery flat) is no clock: an illegal move that stands then breaks the record as without one', () => {
    const s = new Script().setUp().play('e2e4', 'e7e5', 'g1f3', 'b8c6');
    // A running clock is read every second (the board's live updates)…
    for (let i = 0; i < 2; i++) {
      s.t += 1000;
      s.white -= 1000;
      s.clock();
    }
    // …and then not for 20 s: the players go on without it.
    s.t += 20_000;
    s.move('f1', 'c4').move('g8', 'f6');
    expect(s.sans()).toEqual(['e4', 'e5', 'Nf3', 'Nc6', 'Bc4', 'Nf6']);
    s.move('b1', 'b3').move('d7', 'd6').move('d2', 'd4');
    expect(s.sans().slice(6)).toEqual(['--', 'd6', 'd4']);
    expect(s.incidentKinds()).toEqual(['illegal-position']);
  });

  it('a clock read only at presses (a bus line polls it when a press is logged) is no silent clock however long a player thinks', () => {
    const s = new Script().setUp().play('e2e4', 'e7e5', 'g1f3', 'b8c6');
    // White thinks 20 s: nothing is read meanwhile, and the clock is not gone for that.
    s.t += 20_000;
    s.move('f1', 'c4').move('g8', 'f6');
    s.move('b1', 'b3').move('d7', 'd6').move('d2', 'd4');
    expect(s.sans()).toEqual(['e4', 'e5', 'Nf3', 'Nc6', 'Bc4', 'Nf6']);
    expect(s.incidentKinds()).toEqual([]);
  });

  it('without a clock, a piece put down wrong, the reply made, then the piece put right: both moves are recorded as the board shows them', () => {
    const s = new Script().setUp().move('e2', 'e4').move('e7', 'e5');
    s.move('b1', 'b3').move('d7', 'd6');
    expect(s.sans()).toEqual(['e4', 'e5']);
    s.move('b3', 'c3');
    expect(s.sans()).toEqual(['e4', 'e5', 'Nc3', 'd6']);
    s.move('g1', 'f3');
    expect(s.sans()).toEqual(['e4', 'e5', 'Nc3', 'd6', 'Nf3']);
    expect(s.incidentKinds()).toEqual([]);
  });

  it('without a clock, a piece misplaced and put right is no break, however long it takes', () => {
    const s = new Script().setUp().move('e2', 'e4').move('e7', 'e5');
    s.move('b1', 'b3');
    s.dump();
    s.move('b3', 'c3');
    expect(s.sans()).toEqual(['e4', 'e5', 'Nc3']);
    expect(s.incidentKinds()).toEqual([]);
  });
});
