import { describe, expect, it } from 'vitest';
import { PIECE } from '../../../protocols/dgt/squares.ts';
import { Script } from './script.ts';

const ITALIAN = ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4', 'g8f6'];

describe('engine: how hands make moves', () => {
  const captures: [string, (s: Script) => Script][] = [
    ['captured piece lifted first', (s) => s.lift('d5').lift('e4').place('d5', 'P')],
    ['capturer lifted first', (s) => s.lift('e4').lift('d5', 1500).place('d5', 'P')],
    ['captured square never seen empty', (s) => s.place('d5', 'P').lift('e4', 50)],
  ];
  it.each(captures)('capture: %s', (_name, hand) => {
    const s = new Script().setUp().play('e2e4', 'd7d5');
    hand(s).press('white');
    expect(s.sans()).toEqual(['e4', 'd5', 'exd5']);
    expect(s.ofType('move-amended')).toHaveLength(0);
  });

  it('a slide through empty squares: transient successors are amended, no incident', () => {
    const s = new Script().setUp().play('e2e4', 'a7a6');
    s.lift('d1').place('e2', 'Q', 40).lift('e2', 60).place('f3', 'Q', 40).lift('f3', 50).place('g4', 'Q', 60).press('white');
    expect(s.sans()).toEqual(['e4', 'a6', 'Qg4']);
    expect(s.incidentKinds()).toEqual([]);
  });

  it('a piece released on one square then moved on is flagged (Art 4.7)', () => {
    const s = new Script().setUp().play('e2e4', 'a7a6');
    s.lift('d1').place('f3', 'Q').lift('f3', 1200).place('h5', 'Q', 300).press('white');
    expect(s.sans()).toEqual(['e4', 'a6', 'Qh5']);
    expect(s.ofType('move-amended')).toEqual([expect.objectContaining({ ply: 3, previousSan: 'Qf3', san: 'Qh5' })]);
    expect(s.engine.snapshot().incidents).toEqual([expect.objectContaining({ kind: 'moved-after-release', releasedOn: 'f3', article: '4.7' })]);
  });

  it('a piece released, adjusted on its square while the opponent adjusts one of theirs, then moved on is still flagged (Art 4.7)', () => {
    const s = new Script().setUp().play('e2e4', 'a7a6');
    s.lift('d1').place('f3', 'Q').lift('f3', 1200).place('f3', 'Q', 200).lift('a6', 500).place('a6', 'p', 200);
    s.lift('f3', 800).place('h5', 'Q', 300).press('white');
    expect(s.sans()).toEqual(['e4', 'a6', 'Qh5']);
    expect(s.engine.snapshot().incidents).toEqual([expect.objectContaining({ kind: 'moved-after-release', releasedOn: 'f3', article: '4.7' })]);
  });

  it('a piece put down in a change read from the board log and moved on live is no 4.7: the log has the order, not the times', () => {
    const s = new Script().setUp().play('e2e4', 'a7a6');
    // Caught up from the log after an outage: the queen lifted and put on f3, times spread evenly.
    s.engine.push({ type: 'field', at: s.t + 2000, field: s.field('d1'), piece: 0, logged: true });
    s.engine.push({ type: 'field', at: s.t + 4000, field: s.field('f3'), piece: PIECE.WQUEEN, logged: true });
    s.t += 4000;
    // Back live: the player, still at the move, takes the queen on to h5 and presses.
    s.lift('f3', 300).place('h5', 'Q', 300).press('white');
    expect(s.sans()).toEqual(['e4', 'a6', 'Qh5']);
    expect(s.incidentKinds()).toEqual([]);
  });

  const castlings: [string, (s: Script) => Script, string[]][] = [
    ['king first', (s) => s.move('e1', 'g1').move('h1', 'f1'), []],
    ['both lifted, king first', (s) => s.lift('e1').lift('h1').place('g1', 'K').place('f1', 'R'), []],
    ['rook first', (s) => s.move('h1', 'f1').move('e1', 'g1'), ['rook-first-castling']],
    ['rook touched and put back, then king first', (s) => s.lift('h1').place('h1', 'R').move('e1', 'g1').move('h1', 'f1'), []],
  ];
  it.each(castlings)('castling %s', (_name, hand, incidents) => {
    const s = new Script().setUp().play(...ITALIAN);
    hand(s).press('white');
    expect(s.sans()).toEqual(['e4', 'e5', 'Nf3', 'Nc6', 'Bc4', 'Nf6', 'O-O']);
    expect(s.engine.snapshot().moves[6]!.uci).toBe('e1g1');
    expect(s.incidentKinds()).toEqual(incidents);
    if (incidents.length) expect(s.engine.snapshot().incidents[0]!.consequences).toEqual([{ kind: 'played-as-castling', san: 'O-O' }]);
  });

  const enPassant: [string, (s: Script) => Script][] = [
    ['pawn, then the captured pawn', (s) => s.move('e5', 'd6').lift('d5')],
    ['captured pawn first', (s) => s.lift('d5').move('e5', 'd6')],
    ['landing seen before the lift', (s) => s.place('d6', 'P').lift('e5', 40).lift('d5')],
  ];
  it.each(enPassant)('en passant: %s', (_name, hand) => {
    const s = new Script().setUp().play('e2e4', 'a7a6', 'e4e5', 'd7d5');
    hand(s).press('white');
    expect(s.sans()).toEqual(['e4', 'a6', 'e5', 'd5', 'exd6']);
  });

  const PROMO_FEN = '4k3/1P6/8/8/8/8/8/4K3 w - - 0 1';
  const promotions: [string, (s: Script) => Script, string][] = [
    ['new piece placed directly', (s) => s.lift('b7').place('b8', 'Q'), 'b8=Q+'],
    ['new piece first, then pawn off', (s) => s.place('b8', 'N').lift('b7'), 'b8=N'],
    ['pawn to the last rank, then swapped', (s) => s.move('b7', 'b8').lift('b8').place('b8', 'R'), 'b8=R+'],
    ['pawn replaced in one motion', (s) => s.move('b7', 'b8').place('b8', 'B', 30), 'b8=B'],
  ];
  it.each(promotions)('promotion: %s', (_name, hand, san) => {
    const s = new Script({ start: { fen: PROMO_FEN } }).setUp(PROMO_FEN);
    hand(s).press('white');
    expect(s.sans()).toEqual([san]);
    expect(s.incidentKinds()).toEqual([]);
  });

  it('pawn left on the last rank and clock pressed: queen, Art 7.5.2 incident', () => {
    const s = new Script({ start: { fen: PROMO_FEN } }).setUp(PROMO_FEN);
    s.move('b7', 'b8').press('white');
    expect(s.sans()).toEqual(['b8=Q+']);
    const inc = s.engine.snapshot().incidents;
    expect(inc).toEqual([expect.objectContaining({ kind: 'pawn-not-replaced', by: 'white', count: 1, square: 'b8' })]);
    expect(inc[0]!.consequences).toContainEqual({ kind: 'pawn-becomes-queen', square: 'b8' });
    // the pawn still standing there is the queen: Black's reply and the queen's next move are read
    s.move('e8', 'd7').press('black').lift('b8').place('b5', 'P').press('white');
    expect(s.sans()).toEqual(['b8=Q+', 'Kd7', 'Qb5+']);
  });

  it('the pawn lifted from the last rank to be replaced: a periodic dump meanwhile makes no other pawn the queen', () => {
    // Seed 15125: the dump read the pawn standing on h2 again while the b8 pawn was in the hand,
    // and that pawn became the queen; the real queen put on b8 then left the board out of step
    // with the record for the rest of the game.
    const fen = '4k3/1P6/8/8/8/8/7P/4K3 w - - 0 1';
    const s = new Script({ start: { fen } }).setUp(fen);
    s.move('b7', 'b8').press('white');
    expect(s.sans()).toEqual(['b8=Q+']);
    s.lift('b8').dump().place('b8', 'Q').move('e8', 'd7').press('black').move('h2', 'h4').press('white');
    expect(s.sans()).toEqual(['b8=Q+', 'Kd7', 'h4']);
    expect(s.engine.snapshot().incidents.map((i) => i.kind)).toEqual(['pawn-not-replaced']);
  });
});
