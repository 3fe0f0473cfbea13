import { Chess } from 'chessops/chess';
import { parseFen } from 'chessops/fen';
import { makeSan, parseSan } from 'chessops/san';
import { describe, expect, it } from 'vitest';
import { searchJump, type JumpSearch, type JumpSearchOptions, type SearchResume } from '../../daemon/reconstruction/jump-search.ts';
import { randomGame } from '../../daemon/simulation/games/random.ts';
import { positionCodes } from '../../daemon/reconstruction/successors.ts';
import { sanLine } from './harness.ts';

/** The position after `sans` from the start, and the board `more` SANs later. */
function outage(sans: string[], more: string[]): { pos: Chess; target: Uint8Array } {
  const pos = Chess.default();
  for (const san of sans) pos.play(parseSan(pos, san)!);
  const after = pos.clone();
  for (const san of more) after.play(parseSan(after, san)!);
  return { pos, target: positionCodes(after) };
}

/** The engine's budget for one search (engine.ts JUMP_BUDGET). */
const BUDGET = 60_000;

describe('jump search', () => {
  it('finds an eight-ply outage of mostly independent moves within the budget, the moves played among the orders kept', () => {
    const truth = ['g5', 'Rh2', 'h6', 'e6', 'cxd4', 'Bxg5', 'f5', 'Qxd4'];
    const { pos, target } = outage(['b3', 'd5', 'e4', 'a5', 'a4', 'b5', 'd4', 'c5', 'e5', 'Bd7', 'h3'], truth);
    const r = searchJump(pos, target, { maxDepth: 8, budget: BUDGET, keep: 64, turnAfter: 'black' });
    expect(r.sequences.length).toBeGreaterThan(0);
    expect(r.sequences.every((s) => s.length === 8)).toBe(true);
    // Orders of one state are searched once, so the budget is not spent on the 576 orders of each.
    expect(r.nodes).toBeLessThan(BUDGET);
    const all = searchJump(pos, target, { maxDepth: 8, budget: 10 * BUDGET, keep: 10_000, turnAfter: 'black' });
    expect(all.sequences.map((s) => sanLine(pos, s))).toContain(truth.join(' '));
  });

  it('keeps every order of independent moves: a state that led somewhere is searched again by the next order', () => {
    // Three quiet moves a side that do not touch each other: 3! × 3! orders.
    const { pos, target } = outage([], ['a3', 'a6', 'b3', 'b6', 'c3', 'c6']);
    const r = searchJump(pos, target, { maxDepth: 6, budget: 1_000_000, keep: 100 });
    expect(r.more).toBe(false);
    const orders = new Set(r.sequences.map((s) => sanLine(pos, s)));
    expect(orders.size).toBe(36);
    expect(orders).toContain('a3 a6 b3 b6 c3 c6');
    expect(orders).toContain('c3 c6 b3 b6 a3 a6');
  });

  it('still finds castling and en passant where the board shows the king moved and a pawn lost: each changes more squares than two', () => {
    // Four plies changing ten squares: only a castling lets them.
    const castled = outage(['e4', 'e5', 'Nf3', 'Nc6', 'Bc4', 'Bc5'], ['O-O', 'Nf6', 'd3', 'd6']);
    const r1 = searchJump(castled.pos, castled.target, { maxDepth: 6, budget: BUDGET, keep: 8 });
    expect(r1.sequences.map((s) => sanLine(castled.pos, s))).toContain('O-O Nf6 d3 d6');
    // Three plies changing seven squares: only an en passant capture lets them.
    const passant = outage(['e4', 'a6', 'e5', 'd5'], ['exd6', 'Nf6', 'Nf3']);
    const r2 = searchJump(passant.pos, passant.target, { maxDepth: 6, budget: BUDGET, keep: 8 });
    expect(r2.sequences.map((s) => sanLine(passant.pos, s))).toEqual(['exd6 Nf6 Nf3']);
  });

  it('finds a tempo (a knight out and back) only when asked: the clock said whose turn it is and nothing shorter has that parity', () => {
    // Black's two knight moves show; White's two moves left no trace.
    const { pos, target } = outage(['e4', 'e5'], ['Nf3', 'Nc6', 'Ng1', 'Nf6']);
    expect(searchJump(pos, target, { maxDepth: 6, budget: BUDGET, keep: 64, turnAfter: 'white' }).sequences).toEqual([]);
    const r = searchJump(pos, target, { maxDepth: 6, budget: BUDGET, keep: 64, turnAfter: 'white', excursions: 1 });
    const found = r.sequences.map((s) => sanLine(pos, s));
    expect(found).toContain('Nf3 Nc6 Ng1 Nf6');
    // Out and back is all the detour allowed: the same piece, to the square it left.
    expect(found.every((line) => line.split(' ').length === 4)).toBe(true);
  });

  it('lets only the piece seen lifted make the detour when told which square the board saw empty', () => {
    // Black's two knight moves show; White's tempo could be any piece's out and back.
    const { pos, target } = outage(['e4', 'e5'], ['Bc4', 'Nc6', 'Bf1', 'Nf6']);
    const any = searchJump(pos, target, { minDepth: 4, maxDepth: 4, budget: BUDGET, keep: 64, turnAfter: 'white', excursions: 1 });
    expect(any.sequences.map((s) => sanLine(pos, s))).toContain('Nf3 Nc6 Ng1 Nf6');
    const f1 = 5;
    const seen = searchJump(pos, target, { minDepth: 4, maxDepth: 4, budget: BUDGET, keep: 64, turnAfter: 'white', excursions: 1, excursionFrom: new Set([f1]) });
    const found = seen.sequences.map((s) => sanLine(pos, s));
    expect(found).toContain('Bc4 Nc6 Bf1 Nf6');
    expect(found.length).toBeGreaterThan(0);
    expect(seen.sequences.every((moves) => moves.some((m) => m.from === f1))).toBe(true);
  });

  it('lets a pawn leave a square the board shows unchanged when a pawn of its own stands behind to step in (hxg5 then h3-h4)', () => {
    // Doubled h-pawns: the front one takes on g5 and the one behind steps up, so h4 reads as never
    // changed. Seen in an outage of eight plies with the f4 pawn in the capturer's hand.
    const pos = Chess.fromSetup(parseFen('rnb1k1nr/4b3/p1pp1p1p/2P3p1/pPB2p1P/R3P2P/3P4/1NBQK1NR w Kkq - 0 13').unwrap()).unwrap();
    const truth = ['hxg5', 'fxg5', 'h4', 'a5', 'd4'];
    const after = pos.clone();
    for (const san of truth) after.play(parseSan(after, san)!);
    const exact = searchJump(pos, positionCodes(after), { maxDepth: 5, budget: BUDGET, keep: 64 });
    expect(exact.sequences.map((s) => sanLine(pos, s))).toContain(truth.join(' '));
    const f4 = 29;
    const held = positionCodes(after);
    held[f4] = 0;
    const inHand = searchJump(pos, held, { minDepth: 1, maxDepth: 5, budget: BUDGET, keep: 64, pieceInHand: true });
    expect(inHand.inHand).toBe(f4);
    expect(inHand.sequences.map((s) => sanLine(pos, s))).toContain(truth.join(' '));
  });

  it('lets a promoted piece onto the square its pawn began on: a new piece there has not gone out and back', () => {
    // Seed 7052 (Chess960, castling rights gone): the g3 pawn takes on f2, promotes taking on g1,
    // and the new queen checks from g3.
    const pos = Chess.fromSetup(parseFen('r1bbrnnq/pk4p1/2p5/R7/4P1p1/BPP3pp/2K2Q1P/4RNN1 w - - 0 16').unwrap()).unwrap();
    const truth = ['Kd3', 'gxf2', 'Bb4', 'fxg1=Q', 'Rd5', 'Qg3+'];
    const after = pos.clone();
    for (const san of truth) after.play(parseSan(after, san)!);
    const r = searchJump(pos, positionCodes(after), { maxDepth: 6, budget: BUDGET, keep: 64 });
    expect(r.sequences.map((s) => sanLine(pos, s))).toContain(truth.join(' '));
  });
});

describe('jump search: moves that cannot bring the board nearer are not generated', () => {
  it('counts the moves it does not build as it did when it built every one: a nine-ply jump stops, and finds, where it did', () => {
    // Chess960, USB pulled for eight plies; Black's castling was the ninth, its rook in the hand
    // when the board came back. Qh1 takes on d5 and b7 and comes back to f3. The figures are those
    // of the search when every legal move was built and weighed (a4a8898): a budget is a number of
    // successors looked at, built or not, so it stops a search at the same place as before.
    const pos = Chess.fromSetup(parseFen('b1nrkbrq/2pn1p2/4p3/pp1pP1pp/P2P1PPP/1PP5/8/BNNRKBRQ b KQkq - 0 9').unwrap()).unwrap();
    const truth = ['Bb7', 'Qxd5', 'Bh6', 'Qxb7', 'Qxe5+', 'fxe5', 'c5', 'Qf3', 'O-O'];
    const after = pos.clone();
    for (const san of truth) after.play(parseSan(after, san)!);
    const target = positionCodes(after);
    const whole = searchJump(pos, target, { minDepth: 1, maxDepth: 9, budget: 1_700_000, keep: 8, turnAfter: after.turn });
    expect(whole.nodes).toBe(1_672_003);
    expect(whole.exhausted).toBe(false);
    expect(whole.more).toBe(true);
    const lines = whole.sequences.map((s) => sanLine(pos, s));
    expect(lines).toHaveLength(8);
    expect(lines[0]).toBe('c5 Qxd5 Bc6 Qxc6 Bh6 Qf3 Qxe5+ fxe5 O-O');
    expect(lines).toContain('c5 Qxd5 Bb7 Qxb7 Bh6 Qf3 Qxe5+ fxe5 O-O');
    // At the return's budget it runs out where it did, having found nothing.
    const cut = searchJump(pos, target, { minDepth: 1, maxDepth: 9, budget: 500_000, keep: 8, turnAfter: after.turn });
    expect(cut.nodes).toBe(500_001);
    expect(cut.exhausted).toBe(true);
    expect(cut.sequences).toEqual([]);
  });

  it('loses no sequence of up to three plies (where the search is complete): checked against every legal sequence played out', () => {
    const every = (p: Chess, target: Uint8Array, depth: number): string[] => {
      const lines: string[] = [];
      const walk = (q: Chess, sans: string[]): void => {
        if (sans.length === depth) {
          const codes = positionCodes(q);
          if (codes.every((c, i) => c === target[i])) lines.push(sans.join(' '));
          return;
        }
        for (const [from, dests] of q.allDests())
          for (const to of dests) {
            const promotions = q.board.getRole(from) === 'pawn' && (to >> 3 === 0 || to >> 3 === 7) ? (['queen', 'rook', 'bishop', 'knight'] as const) : [undefined];
            for (const promotion of promotions) {
              const move = promotion ? { from, to, promotion } : { from, to };
              const next = q.clone();
              const san = makeSan(next, move);
              next.play(move);
              walk(next, [...sans, san]);
            }
          }
      };
      walk(p.clone(), []);
      return lines.sort();
    };
    let compared = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const game = randomGame(seed, { chess960: seed % 2 === 0 });
      const pos = Chess.fromSetup(parseFen(game.startFen).unwrap()).unwrap();
      const at = 6 + ((seed * 7) % 24);
      if (game.sans.length < at + 3) continue;
      for (let i = 0; i < at; i++) pos.play(parseSan(pos, game.sans[i]!)!);
      for (const depth of [2, 3]) {
        const after = pos.clone();
        for (let i = at; i < at + depth; i++) after.play(parseSan(after, game.sans[i]!)!);
        const target = positionCodes(after);
        const r = searchJump(pos, target, { minDepth: depth, maxDepth: depth, budget: 10_000_000, keep: 100_000 });
        expect(r.more).toBe(false);
        expect(r.sequences.map((s) => sanLine(pos, s)).sort(), `seed ${seed}, ${depth} plies from ply ${at}`).toEqual(every(pos, target, depth));
        compared++;
      }
    }
    // Promotions (a pawn may fill a square waiting for a queen or a knight), en passant, checks.
    const races = Chess.fromSetup(parseFen('4k3/1P5P/8/3pP3/8/8/2p3p1/4K3 w - d6 0 1').unwrap()).unwrap();
    for (const line of [
      ['b8=N', 'g1=Q+', 'Kd2'],
      ['exd6', 'c1=R+', 'Ke2'],
      ['h8=Q+', 'Kd7', 'b8=N+'],
      ['exd6', 'g1=N'],
    ]) {
      const after = races.clone();
      for (const san of line) after.play(parseSan(after, san)!);
      const target = positionCodes(after);
      const r = searchJump(races, target, { minDepth: line.length, maxDepth: line.length, budget: 10_000_000, keep: 100_000 });
      const found = r.sequences.map((s) => sanLine(races, s)).sort();
      expect(found).toContain(line.join(' '));
      expect(found, line.join(' ')).toEqual(every(races, target, line.length));
      compared++;
    }
    expect(compared).toBeGreaterThan(20);
  });
});

/** A search in parts of `part` nodes, each going on from where the last stopped; and how many parts it took. */
function inParts(pos: Chess, target: Uint8Array, opts: Omit<JumpSearchOptions, 'budget'>, part: number): { result: JumpSearch; parts: number; nodes: number } {
  let resume: SearchResume | undefined;
  let parts = 0;
  let nodes = 0;
  for (;;) {
    const result = searchJump(pos, target, { ...opts, budget: part, ...(resume ? { resume } : {}) });
    parts++;
    nodes += result.nodes;
    if (!result.resume) return { result, parts, nodes };
    // Each part must get further than the last: going back down the path costs none of its nodes.
    if (parts > 200_000) throw new Error(`no end after ${parts} parts of ${part} nodes`);
    resume = result.resume;
  }
}

describe('jump search: a search too large for one event goes on where it stopped', () => {
  it('finds the same sequences in the same order, in parts of 100,000 nodes, as searched whole: a nine-ply jump', () => {
    const pos = Chess.fromSetup(parseFen('b1nrkbrq/2pn1p2/4p3/pp1pP1pp/P2P1PPP/1PP5/8/BNNRKBRQ b KQkq - 0 9').unwrap()).unwrap();
    const after = pos.clone();
    for (const san of ['Bb7', 'Qxd5', 'Bh6', 'Qxb7', 'Qxe5+', 'fxe5', 'c5', 'Qf3', 'O-O']) after.play(parseSan(after, san)!);
    const target = positionCodes(after);
    const opts = { minDepth: 9, maxDepth: 9, keep: 8, turnAfter: after.turn };
    const whole = searchJump(pos, target, { ...opts, budget: 10_000_000 });
    expect(whole.exhausted).toBe(false);
    expect(whole.resume).toBeUndefined();
    const { result, parts, nodes } = inParts(pos, target, opts, 100_000);
    expect(parts).toBeGreaterThan(10);
    expect(result.sequences.map((s) => sanLine(pos, s))).toEqual(whole.sequences.map((s) => sanLine(pos, s)));
    expect(result.more).toBe(whole.more);
    // Going back down the path each part stopped on is not counted again, and the subtrees on it
    // are not taken for dead ends (some of their sequences were found before): about one search's nodes.
    expect(nodes).toBeLessThanOrEqual(whole.nodes * 1.01);
  });

  it('gives what the whole search gives at any size of part: lengths from 2, with a piece out and back, through a hand', () => {
    let compared = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const game = randomGame(seed, { chess960: seed % 2 === 1 });
      const pos = Chess.fromSetup(parseFen(game.startFen).unwrap()).unwrap();
      const at = 8 + ((seed * 5) % 20);
      const plies = 4 + (seed % 3);
      if (game.sans.length < at + plies) continue;
      for (let i = 0; i < at; i++) pos.play(parseSan(pos, game.sans[i]!)!);
      const after = pos.clone();
      for (let i = at; i < at + plies; i++) after.play(parseSan(after, game.sans[i]!)!);
      const target = positionCodes(after);
      // The same board with a piece of the side to move in a hand: its first piece found.
      const short = target.slice();
      short[short.findIndex((code, sq) => code !== 0 && after.board.get(sq)?.color === after.turn && after.board.get(sq)?.role !== 'king')] = 0;
      const cases: [Uint8Array, Omit<JumpSearchOptions, 'budget'>][] = [
        [target, { minDepth: 2, maxDepth: plies, keep: 64 }],
        [target, { minDepth: plies + 1, maxDepth: plies + 1, keep: 64, excursions: 1 }],
        [short, { minDepth: 1, maxDepth: plies, keep: 64, pieceInHand: true }],
      ];
      for (const [board, opts] of cases) {
        const whole = searchJump(pos, board, { ...opts, budget: 10_000_000 });
        expect(whole.exhausted).toBe(false);
        const lines = (r: JumpSearch): unknown => ({ sequences: r.sequences.map((s) => sanLine(pos, s)), more: r.more, inHand: r.inHand });
        for (const part of [5, 400, 25_000]) {
          const { result } = inParts(pos, board, opts, part);
          expect(lines(result), `seed ${seed}, ${JSON.stringify(opts)}, parts of ${part}`).toEqual(lines(whole));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(50);
  });
});

describe("jump search: one board event's searches share a meter of nodes", () => {
  const truth = ['g5', 'Rh2', 'h6', 'e6', 'cxd4', 'Bxg5', 'f5', 'Qxd4'];
  const { pos, target } = outage(['b3', 'd5', 'e4', 'a5', 'a4', 'b5', 'd4', 'c5', 'e5', 'Bd7', 'h3'], truth);

  it('spends from the meter what the search used, and stops where the meter runs out before its own budget', () => {
    const meter = { left: 1_000_000 };
    const whole = searchJump(pos, target, { maxDepth: 8, budget: BUDGET, keep: 64, turnAfter: 'black', meter });
    expect(whole.sequences.length).toBeGreaterThan(0);
    expect(meter.left).toBe(1_000_000 - whole.nodes);
    const short = { left: 500 };
    const cut = searchJump(pos, target, { maxDepth: 8, budget: BUDGET, keep: 64, turnAfter: 'black', meter: short });
    expect(cut.exhausted).toBe(true);
    expect(cut.sequences).toEqual([]);
    expect(cut.nodes).toBeLessThanOrEqual(501);
    expect(short.left).toBe(0);
    // Spent: the next search of the same event finds nothing.
    expect(searchJump(pos, target, { maxDepth: 8, budget: BUDGET, keep: 64, turnAfter: 'black', meter: short }).sequences).toEqual([]);
  });
});
