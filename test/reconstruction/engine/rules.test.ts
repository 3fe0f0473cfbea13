import { describe, expect, it } from 'vitest';
import type { Consequence, RulesConfig } from '../../../daemon/reconstruction/game-events.ts';
import { PIECE } from '../../../protocols/dgt/squares.ts';
import { Script } from './script.ts';

/**
 * White plays the illegal Nb1-b3 and presses, `times` times; each time the knight goes back and the
 * clock is handed back to White (a lever already down reports nothing, so that press is Black's).
 */
function illegalMoves(rules: RulesConfig, times: number, fen?: string): Script {
  const s = new Script({ rules, ...(fen ? { start: { fen } } : {}) }).setUp(fen);
  const [a, b] = fen ? ['a1', 'b2'] : ['b1', 'b3'];
  for (let i = 0; i < times; i++) s.move(a, b).press('white').move(b, a).press('black');
  return s;
}

const penalties: [RulesConfig, number, Consequence['kind'][], number?][] = [
  [{ edition: '2018', category: 'standard' }, 1, ['position-reinstated', 'time-added'], 120_000],
  [{ edition: '2018', category: 'standard' }, 2, ['position-reinstated', 'game-lost']],
  [{ edition: '2018', category: 'rapid' }, 1, ['position-reinstated', 'time-added', 'arbiter-decides'], 120_000],
  [{ edition: '2018', category: 'blitz' }, 1, ['position-reinstated', 'time-added', 'arbiter-decides'], 60_000],
  [{ edition: '2018', category: 'blitz' }, 2, ['position-reinstated', 'game-lost', 'arbiter-decides']],
  [{ edition: '2009', category: 'standard' }, 2, ['position-reinstated', 'time-added'], 120_000],
  [{ edition: '2009', category: 'standard' }, 3, ['position-reinstated', 'game-lost']],
  [{ edition: '2009', category: 'rapid' }, 1, ['claim-required', 'position-reinstated', 'time-added'], 120_000],
  [{ edition: '2009', category: 'blitz' }, 1, ['position-reinstated', 'claim-required', 'win-claimable']],
  [{ edition: '1997', category: 'standard' }, 1, ['position-reinstated', 'arbiter-decides']],
  [{ edition: '1997', category: 'blitz' }, 1, ['position-reinstated', 'claim-required', 'win-claimable']],
];

describe('engine: illegal moves (Art 7.5) under each edition and category', () => {
  it.each(penalties)('%o, illegal move #%i', (rules, n, kinds, ms) => {
    const s = illegalMoves(rules, n);
    const inc = s.engine.snapshot().incidents.filter((i) => i.kind === 'illegal-move');
    expect(inc).toHaveLength(n);
    const last = inc[n - 1]!;
    expect(last).toMatchObject({ kind: 'illegal-move', by: 'white', count: n });
    expect(last.consequences.map((c) => c.kind)).toEqual(kinds);
    const added = last.consequences.find((c) => c.kind === 'time-added');
    if (ms !== undefined) expect(added).toEqual({ kind: 'time-added', to: 'black', ms });
    const lost = last.consequences.find((c) => c.kind === 'game-lost');
    if (lost) expect(lost).toEqual({ kind: 'game-lost', loser: 'white', result: '0-1' });
    // play goes on from the reinstated position
    s.play('e2e4');
    expect(s.sans()).toEqual(['e4']);
  });

  it('an illegal move that stands in blitz: the opponent moves on and presses, the game goes on, the arbiter sees it', () => {
    const s = new Script({ rules: { edition: '2018', category: 'blitz' } }).setUp();
    s.move('b1', 'b3').press('white');
    expect(s.incidentKinds()).toEqual(['illegal-move']);
    // Nobody put it right: Black replies on the board as it stands and presses.
    s.move('e7', 'e5').press('black');
    const snap = s.engine.snapshot();
    expect(snap.incidents.map((i) => i.kind)).toEqual(['illegal-move', 'illegal-position']);
    expect(snap.incidents[1]!.message).toMatch(/^The illegal move stood and play went on: the record breaks after ply 0/);
    expect(snap.illegalCounts).toEqual({ white: 1, black: 0 });
    expect(snap.moves).toEqual([expect.objectContaining({ san: '--', gap: { reason: 'illegal-move-stood' }, fenAfter: 'rnbqkbnr/pppp1ppp/8/4p3/8/1N6/PPPPPPPP/R1BQKBNR w KQkq - 0 2' })]);
    // The game goes on and is recorded from the board.
    s.play('e2e4', 'g8f6');
    expect(s.sans()).toEqual(['--', 'e4', 'Nf6']);
    expect(s.engine.snapshot().illegalCounts).toEqual({ white: 1, black: 0 });
    // The arbiter lets it stand (A.4.2 / B.3): the break is marked accepted.
    expect(s.engine.arbiter({ type: 'accept-board', at: s.t + 1, ply: 1 })).toEqual([expect.objectContaining({ type: 'move-amended', gap: { reason: 'illegal-move-stood', accepted: true } })]);
  });

  it('an illegal move corrected before the clock press is no incident', () => {
    const s = new Script().setUp().move('b1', 'b3').move('b3', 'c3').press('white');
    expect(s.sans()).toEqual(['Nc3']);
    expect(s.incidentKinds()).toEqual([]);
  });

  it('an illegal move corrected after the press straight into a legal move', () => {
    const s = new Script().setUp().play('e2e4').move('d8', 'd5').press('black').move('d5', 'd8').move('d7', 'd5').press('black');
    expect(s.sans()).toEqual(['e4', 'd5']);
    expect(s.incidentKinds()).toEqual(['illegal-move']);
  });

  it('a draw instead of a loss when the opponent cannot mate (7.5.5)', () => {
    const fen = '4k3/8/8/8/8/8/8/R3K3 w - - 0 1';
    const s = illegalMoves({ edition: '2018', category: 'standard' }, 2, fen);
    expect(s.engine.snapshot().incidents[1]!.consequences).toContainEqual({ kind: 'game-drawn', reason: 'opponent-cannot-checkmate' });
  });

  it('starting a stopped clock is no press without a move, whoever starts it', () => {
    const s = new Script().setUp().press('white').move('e2', 'e4');
    expect(s.incidentKinds()).toEqual([]);
    expect(s.sans()).toEqual(['e4']);
  });

  it("a press read only after the opponent's reply, for a move made since the opponent's last press, is no press without a move", () => {
    // Black moves and presses, but the reading of that press is lost on the line; White replies at
    // once, and the next reading shows Black's press. Black's clock ran from White's press on, and
    // Black moved meanwhile: the lever was pressed for that move.
    const s = new Script().setUp().play('e2e4');
    s.move('e7', 'e5');
    s.running = 'white';
    s.move('g1', 'f3');
    s.t += 400;
    s.clock();
    expect(s.incidentKinds()).toEqual([]);
    expect(s.sans()).toEqual(['e4', 'e5', 'Nf3']);
    // White's press completes Nf3 as usual. e5 has no reading: its press was read only after
    // White's clock had run, and White's time in that reading is not the one at the press.
    s.press('white');
    expect(s.engine.snapshot().moves.map((m) => m.clockAfter !== undefined)).toEqual([true, false, true]);
  });

  it('a clock press without a move (7.5.3) counts with illegal moves', () => {
    const s = new Script().setUp().play('e2e4');
    s.press('black', 100);
    s.running = null;
    s.clock();
    s.move('b1', 'b3').press('white').move('b3', 'b1');
    const inc = s.engine.snapshot().incidents;
    expect(inc.map((i) => [i.kind, 'count' in i ? i.count : 0])).toEqual([['clock-without-move', 1]]);
    expect(inc[0]!.article).toContain('7.5.3');
  });

  it("a press on a board where every piece of the presser's stands where the record has it is no illegal move of theirs, whatever else appeared", () => {
    // White's pawn of d5 is lifted, the black pawn it took is put back there, and a white pawn
    // appears on e3: no black piece left a square, so nothing Black did shows. Black presses.
    const s = new Script().setUp().play('e2e4', 'd7d5', 'e4d5');
    s.lift('d5').place('d5', 'p').place('e3', 'P').press('black');
    expect(s.incidentKinds()).toEqual([]);
    expect(s.engine.snapshot().illegalCounts).toEqual({ white: 0, black: 0 });
  });

  it("a press on a board that differs only where the opponent's pieces stand is no illegal move of the player who pressed", () => {
    // Black's e-pawn goes back to e6 (taken back, knocked) and White presses: nothing White did
    // shows on the board.
    const s = new Script().setUp().play('e2e4', 'e7e5', 'g1f3', 'b8c6');
    s.move('e5', 'e6').press('white');
    expect(s.incidentKinds()).toEqual([]);
    // Put right, and play goes on.
    s.move('e6', 'e5').play('f1c4');
    expect(s.sans()).toEqual(['e4', 'e5', 'Nf3', 'Nc6', 'Bc4']);
    expect(s.incidentKinds()).toEqual([]);
  });
  it("a press on a board with the opponent's piece on a square the record has otherwise is no illegal move of the player who pressed: the record breaks", () => {
    // White's rook goes to h3 through its own h2 pawn, and Black's knight of c6 is found on c5
    // (knocked over and stood up again): no move of White's puts a Black piece anywhere.
    const s = new Script().setUp().play('e2e4', 'e7e5', 'g1f3', 'b8c6');
    s.move('h1', 'h3').move('c6', 'c5').press('white');
    const snap = s.engine.snapshot();
    expect(snap.illegalCounts).toEqual({ white: 0, black: 0 });
    expect(snap.incidents.map((i) => i.kind)).toEqual(['illegal-position']);
    // The break names the squares its board differs on, in its data as in its message.
    expect(snap.incidents[0]).toMatchObject({
      message: expect.stringContaining('it differs on h1 h3 c5 c6'),
      differences: [
        { square: 'h1', expected: PIECE.WROOK, seen: PIECE.EMPTY },
        { square: 'h3', expected: PIECE.EMPTY, seen: PIECE.WROOK },
        { square: 'c5', expected: PIECE.EMPTY, seen: PIECE.BKNIGHT },
        { square: 'c6', expected: PIECE.BKNIGHT, seen: PIECE.EMPTY },
      ],
    });
    expect(snap.moves.at(-1)).toMatchObject({ san: '--', gap: { reason: 'unexplained' } });
    // The game goes on from the board and is recorded.
    s.play('g8f6');
    expect(s.sans()).toEqual(['e4', 'e5', 'Nf3', 'Nc6', '--', 'Nf6']);
  });

  it("a piece of the opponent's put down in the instant of the press is their next move under way: the illegal move pressed for is still the presser's", () => {
    const s = new Script({ rules: { edition: '2018', category: 'blitz' } }).setUp().play('e2e4', 'e7e5', 'g1f3', 'b8c6');
    // White's rook through its own h2 pawn; Black's knight lands on f6 50 ms before White's press
    // is read, g8 not yet seen empty (the board logs squares in its own order).
    s.move('h1', 'h3').place('f6', 'n').press('white', 50);
    expect(s.engine.snapshot().incidents).toEqual([expect.objectContaining({ kind: 'illegal-move', by: 'white', count: 1 })]);
  });
});

describe('engine: end of game and draws', () => {
  it('checkmate ends the game (5.1.1)', () => {
    const s = new Script().setUp().play('f2f3', 'e7e5', 'g2g4', 'd8h4');
    expect(s.ofType('game-ended')).toEqual([expect.objectContaining({ result: '0-1', termination: 'checkmate', ply: 4 })]);
    expect(s.sans()[3]).toBe('Qh4#');
  });

  it('stalemate ends the game (5.2.1)', () => {
    const fen = '7k/8/6Q1/8/8/8/8/K7 w - - 0 1';
    const s = new Script({ start: { fen } }).setUp(fen).play('g6f7');
    expect(s.ofType('game-ended')).toEqual([expect.objectContaining({ result: '1/2-1/2', termination: 'stalemate' })]);
  });

  it('insufficient material ends the game', () => {
    const fen = '4k3/8/8/8/8/8/3r4/4K3 w - - 0 1';
    const s = new Script({ start: { fen } }).setUp(fen).play('e1d2');
    expect(s.ofType('game-ended')).toEqual([expect.objectContaining({ termination: 'insufficient-material' })]);
  });

  it('threefold is claimable, fivefold ends the game (9.2, 9.6.1)', () => {
    const s = new Script().setUp();
    for (let i = 0; i < 4; i++) s.play('g1f3', 'g8f6', 'f3g1', 'f6g8');
    const claims = s.ofType('claimable');
    expect(claims[0]).toMatchObject({ reason: 'threefold-repetition', ply: 8 });
    expect(s.ofType('game-ended')).toEqual([expect.objectContaining({ termination: 'fivefold-repetition', ply: 16 })]);
    expect(s.ofType('takeback')).toHaveLength(0);
  });

  it('fifty moves claimable, seventy-five end the game (9.3, 9.6.2)', () => {
    const fen = '4k3/8/8/8/8/8/8/R3K2R w - - 98 80';
    const s = new Script({ start: { fen } }).setUp(fen).play('a1a2', 'e8d8');
    expect(s.ofType('claimable')).toEqual([expect.objectContaining({ reason: 'fifty-moves', ply: 2 })]);
    const fen75 = '4k3/8/8/8/8/8/8/R3K2R w - - 149 80';
    const t = new Script({ start: { fen: fen75 } }).setUp(fen75).play('a1a2');
    expect(t.ofType('game-ended')).toEqual([expect.objectContaining({ termination: 'seventy-five-moves' })]);
  });

  it.each([
    [0x0d, '1/2-1/2'],
    [0x0e, '1-0'],
    [0x0f, '0-1'],
  ] as const)('result piece %i on the board: %s', (code, result) => {
    const s = new Script().setUp().play('e2e4', 'e7e5').place('e4', code);
    expect(s.ofType('game-ended')).toEqual([expect.objectContaining({ result, termination: 'result-pieces' })]);
  });

  it('the arbiter sets a result', () => {
    const s = new Script().setUp().play('e2e4');
    const ev = s.engine.arbiter({ type: 'set-result', at: 99_000, result: '1-0' });
    expect(ev).toEqual([expect.objectContaining({ type: 'game-ended', result: '1-0', termination: 'arbiter' })]);
    expect(s.engine.snapshot().result).toEqual({ result: '1-0', termination: 'arbiter', ply: 1 });
  });
});
