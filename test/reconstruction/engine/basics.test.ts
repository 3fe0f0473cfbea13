import { describe, expect, it } from 'vitest';
import { Script } from './script.ts';

describe('engine: start and ordinary moves', () => {
  it('recognises the standard start and makes moves with no debounce', () => {
    const s = new Script().setUp();
    expect(s.ofType('game-started')).toEqual([expect.objectContaining({ kind: 'standard', reversed: false, fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' })]);
    s.lift('e2');
    expect(s.ofType('move-made')).toHaveLength(0);
    const before = s.events.length;
    s.place('e4', 'P');
    // the very event that completes the move produces move-made
    expect(s.events.slice(before).map((e) => e.type)).toEqual(['move-made']);
    s.press('white');
    expect(s.ofType('move-confirmed')).toEqual([expect.objectContaining({ ply: 1, by: 'clock' })]);
    s.play('e7e5', 'g1f3', 'b8c6', 'f1b5');
    expect(s.sans()).toEqual(['e4', 'e5', 'Nf3', 'Nc6', 'Bb5']);
    const m = s.engine.snapshot().moves[0]!;
    expect(m).toMatchObject({ ply: 1, by: 'white', uci: 'e2e4', confirmed: true });
    expect(m.clockAfter).toEqual({ whiteMs: 300_000, blackMs: 300_000 });
  });

  it('confirms a move when the opponent moves without a clock press', () => {
    const s = new Script().setUp().move('d2', 'd4').move('d7', 'd5');
    expect(s.ofType('move-confirmed')).toEqual([expect.objectContaining({ ply: 1, by: 'opponent-moved' })]);
  });

  it('ignores a piece lifted and put back, and a knocked piece put back (Art 7.4)', () => {
    const s = new Script().setUp().lift('g1').place('g1', 'N').lift('d1').place('d1', 'Q').move('e2', 'e4');
    expect(s.sans()).toEqual(['e4']);
    expect(s.ofType('takeback')).toHaveLength(0);
  });

  it('recognises a board set up reversed and mirrors every field', () => {
    const s = new Script({}, true).setUp();
    expect(s.ofType('game-started')[0]).toMatchObject({ kind: 'standard', reversed: true });
    s.play('e2e4', 'c7c5');
    expect(s.sans()).toEqual(['e4', 'c5']);
    expect(s.engine.snapshot().orientation).toBe('black');
  });

  it('starts from an arbiter position', () => {
    const fen = '4k3/8/8/8/8/8/4P3/4K3 w - - 0 1';
    const s = new Script({ start: { fen } }).setUp(fen).play('e2e4');
    expect(s.ofType('game-started')[0]).toMatchObject({ kind: 'arbiter-position', fen });
    expect(s.sans()).toEqual(['e4']);
  });

  it('never throws on garbage', () => {
    const s = new Script().setUp();
    const e = s.engine;
    expect(() => e.push({ type: 'field', at: 1, field: 99, piece: 3 as never })).not.toThrow();
    expect(() => e.push({ type: 'dump', at: 1, board: [1, 2] as never })).not.toThrow();
    expect(e.arbiter({ type: 'set-position', at: 2, fen: 'garbage' })[0]).toMatchObject({ type: 'incident' });
  });
});

describe('engine: events and snapshot are plain JSON', () => {
  it('round-trips every event and the snapshot through JSON unchanged', () => {
    const s = new Script().setUp().play('e2e4', 'e7e5').move('b1', 'b3').press('white').move('b3', 'b1').press('black');
    s.play('g1f3').unplug().move('b8', 'c6').move('f1', 'c4').plug();
    const snap = s.engine.snapshot();
    expect(JSON.parse(JSON.stringify(s.events))).toEqual(s.events);
    expect(JSON.parse(JSON.stringify(snap))).toEqual(snap);
    expect(snap.moves.map((m) => m.san)).toEqual(['e4', 'e5', 'Nf3', 'Nc6', 'Bc4']);
    expect(snap.illegalCounts).toEqual({ white: 1, black: 0 });
    // the snapshot is a copy: changing it does not change the engine
    snap.moves.pop();
    expect(s.engine.snapshot().moves).toHaveLength(5);
  });

  it('withdraws an automatic result when its move is amended before the clock press', () => {
    // Fool's mate position, Black's queen first lands on h4 (mate), then is moved on to g5.
    const s = new Script().setUp().play('f2f3', 'e7e5', 'g2g4');
    s.lift('d8').place('h4', 'q').lift('h4', 1000).place('g5', 'q', 400);
    expect(s.ofType('game-ended')).toEqual([expect.objectContaining({ termination: 'checkmate' })]);
    expect(s.ofType('result-withdrawn')).toEqual([expect.objectContaining({ ply: 4 })]);
    expect(s.sans()).toEqual(['f3', 'e5', 'g4', 'Qg5']);
    expect(s.engine.snapshot().result).toBeUndefined();
    expect(s.incidentKinds()).toEqual(['moved-after-release']);
  });
});

describe('engine: never throws', () => {
  it('survives 20 000 random events after a real start (fields, dumps, clocks, links, arbiter)', () => {
    const s = new Script().setUp().play('e2e4', 'e7e5');
    let x = 12345;
    const rnd = (n: number): number => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return (x >>> 8) % n;
    };
    const e = s.engine;
    let t = s.t;
    expect(() => {
      for (let i = 0; i < 20_000; i++) {
        t += rnd(3) * 100;
        const k = rnd(100);
        if (k < 80) e.push({ type: 'field', at: t, field: rnd(64), piece: rnd(16) as never });
        else if (k < 83) e.push({ type: 'dump', at: t, board: Array.from({ length: 64 }, () => rnd(13)) as never });
        else if (k < 95) e.push({ type: 'clock', at: t, whiteMs: 1000, blackMs: 1000, running: (['white', 'black', null] as const)[rnd(3)]!, whiteFlag: false, blackFlag: false });
        else if (k < 98) e.push({ type: 'connection', at: t, connected: rnd(2) === 0 });
        else e.arbiter({ type: 'reinstate', at: t, ply: rnd(5) - 1 });
      }
    }).not.toThrow();
    expect(e.snapshot().started).toBe(true);
  });
});
