import { describe, expect, it } from 'vitest';
import type { Chess } from 'chessops/chess';
import { parseSan } from 'chessops/san';
import type { BoardEvent } from '../../protocols/board-events.ts';
import { PIECE } from '../../protocols/dgt/squares.ts';
import { Tabletop } from '../../daemon/simulation/emulator/tabletop.ts';
import type { SourceGame } from '../../daemon/simulation/games/game.ts';
import { positionFromFen } from '../../daemon/simulation/games/pgn.ts';
import { randomGame } from '../../daemon/simulation/games/random.ts';
import { NOISE_MODELS, physicalBoard, playNoisy, sessionEvents, type NoiseModel, type NoisyScript } from '../../daemon/simulation/noisy-player/player.ts';

const GAMES: SourceGame[] = Array.from({ length: 24 }, (_, i) => randomGame(1000 + i, { chess960: i % 3 === 2 }));

function positionAfter(startFen: string, sans: string[]): Chess {
  const pos = positionFromFen(startFen);
  for (const san of sans) pos.play(parseSan(pos, san)!);
  return pos;
}

/** Boards the table shows at each clock press, in order (physical truth, not what is observed). */
function boardsAtPresses(script: NoisyScript): { by: string; board: number[] }[] {
  const t = new Tabletop({ board: script.board, clock: script.clock });
  const out: { by: string; board: number[] }[] = [];
  for (const a of script.actions) {
    t.apply(a);
    if (a.kind === 'press') out.push({ by: a.by, board: t.board() });
  }
  return out;
}

function finalBoard(script: NoisyScript): number[] {
  const t = new Tabletop({ board: script.board, clock: script.clock });
  for (const a of script.actions) t.apply(a);
  return t.board();
}

function scripts(model: NoiseModel, games = GAMES): NoisyScript[] {
  return games.map((g, i) => playNoisy(g, { model, seed: i }));
}

describe('playNoisy', () => {
  it('is deterministic in (game, model, seed)', () => {
    for (const model of NOISE_MODELS) {
      const a = playNoisy(GAMES[0]!, { model, seed: 5 });
      expect(playNoisy(GAMES[0]!, { model, seed: 5 })).toEqual(a);
    }
  });

  it('under every model ends with the intended final position on the board, at non-decreasing times', () => {
    for (const model of NOISE_MODELS) {
      for (const s of scripts(model)) {
        const want = physicalBoard(positionAfter(s.expected.startFen, s.expected.sans), s.reversed);
        expect(finalBoard(s), `${model} ${s.gameId}`).toEqual(want);
        for (let i = 1; i < s.actions.length; i++) expect(s.actions[i]!.at).toBeGreaterThanOrEqual(s.actions[i - 1]!.at);
      }
    }
  });

  it('clean play with a clock shows each intended position at each move-completing press', () => {
    for (const g of GAMES) {
      const s = playNoisy(g, { model: 'clean', seed: 1, clock: { baseMs: 600_000, incrementMs: 0 } });
      const presses = boardsAtPresses(s);
      // The first press only starts the clock.
      expect(presses).toHaveLength(g.moves.length + 1);
      const pos = positionFromFen(g.startFen);
      g.moves.forEach((m, i) => {
        pos.play(m);
        expect(presses[i + 1]!.board).toEqual(physicalBoard(pos, false));
      });
      expect(s.expected.sans).toEqual(g.sans);
      expect(s.expected.incidents).toEqual([]);
    }
  });

  it('clean play without a clock makes exactly two field changes per quiet move', () => {
    const s = playNoisy(GAMES[1]!, { model: 'clean', seed: 1, clock: null });
    expect(s.actions.some((a) => a.kind === 'press')).toBe(false);
    const fields = sessionEvents(s).filter((e) => e.type === 'field');
    expect(fields.length).toBeGreaterThanOrEqual(2 * GAMES[1]!.moves.length);
  });

  it('scan-order: a destination is seen occupied before its source is seen empty', () => {
    let seen = 0;
    for (const s of scripts('scan-order')) {
      const ev = sessionEvents(s).filter((e): e is Extract<BoardEvent, { type: 'field' }> => e.type === 'field');
      for (let i = 0; i + 1 < ev.length; i++) {
        const a = ev[i]!,
          b = ev[i + 1]!;
        if (a.piece !== PIECE.EMPTY && b.piece === PIECE.EMPTY && b.at - a.at <= 200) seen++;
      }
    }
    expect(seen).toBeGreaterThan(50);
  });

  it('capture-both-seen: the captured square changes piece without ever being seen empty', () => {
    let direct = 0;
    for (const s of scripts('capture-both-seen')) {
      const t = new Tabletop({ board: s.board });
      for (const a of s.actions) {
        const before = t.board();
        for (const e of t.apply(a)) if (e.type === 'field' && e.piece !== PIECE.EMPTY && before[e.field] !== PIECE.EMPTY) direct++;
      }
    }
    expect(direct).toBeGreaterThan(20);
  });

  it('slide: intermediate squares light up for 30–200 ms', () => {
    let flickers = 0;
    for (const s of scripts('slide')) {
      const ev = sessionEvents(s).filter((e): e is Extract<BoardEvent, { type: 'field' }> => e.type === 'field');
      for (let i = 0; i + 1 < ev.length; i++) {
        const a = ev[i]!,
          b = ev[i + 1]!;
        // A piece seen on a square and gone again within a hand's sweep (not a later move from it).
        if (a.field === b.field && a.piece !== PIECE.EMPTY && b.piece === PIECE.EMPTY && b.at - a.at < 300) {
          expect(b.at - a.at).toBeGreaterThanOrEqual(30);
          expect(b.at - a.at).toBeLessThanOrEqual(200);
          flickers++;
        }
      }
    }
    expect(flickers).toBeGreaterThan(20);
  });

  it('castle-rook-first: the rook leaves before the king, and the incident is expected', () => {
    let castles = 0;
    for (const s of scripts('castle-rook-first')) {
      const tb = new Tabletop({ board: s.board });
      for (let i = 0; i < s.actions.length; i++) {
        const a = s.actions[i]!;
        const piece = tb.board()[a.kind === 'lift' ? a.field : 0];
        tb.apply(a);
        if (a.kind === 'lift' && (piece === PIECE.WROOK || piece === PIECE.BROOK)) {
          const next = s.actions.slice(i + 1).find((x) => x.kind === 'lift');
          const nextPiece = next && next.kind === 'lift' ? tb.board()[next.field] : undefined;
          if (nextPiece === PIECE.WKING || nextPiece === PIECE.BKING) castles++;
        }
      }
      expect(s.expected.incidents.filter((x) => x.kind === 'rook-first-castling').length).toBeLessThanOrEqual(s.expected.sans.filter((x) => x.startsWith('O-O')).length);
      if (!s.gameId.endsWith('/960')) expect(s.expected.incidents.filter((x) => x.kind === 'rook-first-castling').length).toBe(s.expected.sans.filter((x) => x.startsWith('O-O')).length);
    }
    expect(castles).toBeGreaterThan(5);
  });

  it('moved-after-release: a piece rests 0.4–2 s on a square, then goes on, with the 4.7 incident expected', () => {
    let rests = 0;
    for (const s of scripts('moved-after-release')) {
      const ev = sessionEvents(s).filter((e): e is Extract<BoardEvent, { type: 'field' }> => e.type === 'field');
      for (let i = 0; i + 2 < ev.length; i++) {
        const [a, b] = [ev[i]!, ev[i + 1]!];
        // placed, lifted again after a rest, and the same piece placed elsewhere (after taking a victim off)
        const next = ev.slice(i + 2, i + 4).find((c) => c.piece !== PIECE.EMPTY);
        if (a.piece !== PIECE.EMPTY && b.field === a.field && b.piece === PIECE.EMPTY && b.at - a.at >= 400 && next?.piece === a.piece && next.field !== a.field) rests++;
      }
      const incidents = s.expected.incidents.filter((x) => x.kind === 'moved-after-release');
      for (const inc of incidents) expect(inc.ply).toBeGreaterThan(0);
    }
    const expected = scripts('moved-after-release').reduce((n, s) => n + s.expected.incidents.length, 0);
    expect(expected).toBeGreaterThan(10);
    expect(rests).toBeGreaterThanOrEqual(expected);
  });

  it('knock and hesitate: pieces leave their squares and come back before the press', () => {
    for (const model of ['knock', 'hesitate'] as const) {
      let knocks = 0;
      for (const s of scripts(model)) knocks += s.actions.filter((a) => a.kind === 'knock').length;
      // Every press still shows the intended position (checked move by move with a clock).
      for (const g of GAMES.slice(0, 6)) {
        const presses = boardsAtPresses(playNoisy(g, { model, seed: 9, clock: { baseMs: 600_000, incrementMs: 0 } }));
        const pos = positionFromFen(g.startFen);
        g.moves.forEach((m, i) => {
          pos.play(m);
          expect(presses[i + 1]!.board, `${model} ${g.id} ply ${i + 1}`).toEqual(physicalBoard(pos, false));
        });
      }
      if (model === 'knock') expect(knocks).toBeGreaterThan(20);
    }
  });

  it('sensor-flicker: a standing piece reads empty for 20–120 ms and comes back', () => {
    let flickers = 0;
    for (const s of scripts('sensor-flicker')) {
      const ev = sessionEvents(s).filter((e): e is Extract<BoardEvent, { type: 'field' }> => e.type === 'field');
      for (let i = 0; i + 1 < ev.length; i++) {
        const [a, b] = [ev[i]!, ev[i + 1]!];
        if (a.piece === PIECE.EMPTY && b.field === a.field && b.piece !== PIECE.EMPTY && b.at - a.at <= 120) {
          expect(b.at - a.at).toBeGreaterThanOrEqual(20);
          flickers++;
        }
      }
      expect(s.expected.incidents).toEqual([]);
    }
    expect(flickers).toBeGreaterThan(30);
  });

  it('blitz: short thinking, and some presses land after the opponent already lifted a piece', () => {
    let late = 0;
    for (const s of scripts('blitz')) {
      expect(s.clock).toEqual({ baseMs: 180_000, incrementMs: 2_000 });
      s.actions.forEach((a, i) => {
        const prev = s.actions[i - 1];
        if (a.kind === 'press' && prev?.kind === 'lift' && prev.at === a.at) late++;
      });
      expect(s.expected.incidents).toEqual([]);
    }
    expect(late).toBeGreaterThan(50);
  });

  it('reversed: Black’s pieces stand on the board’s ranks 1–2', () => {
    const s = playNoisy(GAMES[0]!, { model: 'reversed', seed: 3 });
    expect(s.reversed).toBe(true);
    expect(s.board.slice(48).every((p) => p >= PIECE.BPAWN && p <= PIECE.BQUEEN)).toBe(true);
    expect(s.board.slice(0, 16).every((p) => p >= PIECE.WPAWN && p <= PIECE.WQUEEN)).toBe(true);
  });

  it('disconnect: moves are made unseen, then the board re-dumps, with the incidents expected', () => {
    let dumps = 0;
    for (const s of scripts('disconnect')) {
      const ev = sessionEvents(s);
      const plugs = ev.filter((e) => e.type === 'connection' && e.connected).length;
      dumps += ev.filter((e) => e.type === 'dump').length - 1;
      expect(s.expected.incidents.filter((x) => x.kind === 'board-disconnected')).toHaveLength(plugs);
      expect(s.expected.incidents.filter((x) => x.kind === 'board-resynchronised')).toHaveLength(plugs);
      expect(s.expected.incidents.filter((x) => x.kind === 'missed-moves').length).toBeLessThanOrEqual(plugs);
    }
    expect(dumps).toBeGreaterThan(5);
  });

  it("a planned USB pull with a piece in the hand: the board powers up with the next mover's piece off the board, whatever order a live scan would see the move in", () => {
    for (const [i, game] of GAMES.entries()) {
      if (game.chess960) continue;
      const s = playNoisy(game, { model: 'mixed', seed: i, outage: { afterPly: 6, plies: 3, kind: 'power', pieceInHand: true } });
      const plug = s.actions.findIndex((a) => a.kind === 'plug');
      const t = new Tabletop({ board: s.board, clock: s.clock });
      for (const a of s.actions.slice(0, plug)) t.apply(a);
      // The board at power-up: the position before the next move, short of exactly one piece (the one in the hand).
      const before = physicalBoard(positionAfter(s.expected.startFen, s.expected.sans.slice(0, s.outage!.fromPly + s.outage!.plies)), s.reversed);
      const differ = before.flatMap((code, f) => (t.board()[f] === code ? [] : [f]));
      expect(differ, `${game.id}`).toHaveLength(1);
      expect(t.board()[differ[0]!], `${game.id}`).toBe(PIECE.EMPTY);
    }
  });

  it('takeback, illegal-completed, promotion-unreplaced and arbiter-reinstate inject what they claim', () => {
    const count = (model: NoiseModel, pick: (s: NoisyScript) => number): number => scripts(model).reduce((n, s) => n + pick(s), 0);
    expect(count('takeback', (s) => s.expected.takebacks.length)).toBeGreaterThan(10);
    expect(count('illegal-completed', (s) => s.expected.incidents.filter((i) => i.kind === 'illegal-move').length)).toBeGreaterThan(5);
    expect(count('arbiter-reinstate', (s) => s.arbiter.length)).toBeGreaterThan(5);
    for (const s of scripts('illegal-corrected')) expect(s.expected.incidents).toEqual([]);
    const promoting = GAMES.filter((g) => g.sans.some((x) => x.includes('=Q')));
    const unreplaced = scripts('promotion-unreplaced', promoting);
    expect(unreplaced.reduce((n, s) => n + s.expected.incidents.length, 0)).toBeGreaterThan(0);
    for (const s of unreplaced) {
      for (const inc of s.expected.incidents) {
        expect(inc.kind).toBe('pawn-not-replaced');
        // Reported at the promotion's own ply (1-based).
        expect(s.expected.sans[inc.ply - 1]).toMatch(/=Q/);
      }
    }
  });
});
