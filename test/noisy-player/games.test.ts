import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SHARED_GAMES_DIR, sharedDataPresent } from '../shared-data.ts';
import { Chess } from 'chessops/chess';
import { makeFen, parseFen } from 'chessops/fen';
import { makeSanAndPlay } from 'chessops/san';
import { loadPgn } from '../../daemon/simulation/games/pgn.ts';
import { chess960Fen, randomGame } from '../../daemon/simulation/games/random.ts';
import { Prng } from '../../daemon/simulation/games/prng.ts';

const GAMES_DIR = SHARED_GAMES_DIR;

describe('Prng', () => {
  it('is reproducible from its seed and differs between seeds', () => {
    const a = new Prng(7),
      b = new Prng(7),
      c = new Prng(8);
    const xs = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(xs);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
  });
});

describe('chess960Fen', () => {
  it('numbers 518 as the standard position and gives 960 distinct legal starts', () => {
    expect(chess960Fen(518)).toBe('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1');
    const seen = new Set<string>();
    for (let n = 0; n < 960; n++) {
      const fen = chess960Fen(n);
      const back = fen.split('/')[7]!.split(' ')[0]!;
      const k = back.indexOf('K');
      expect(back.indexOf('R')).toBeLessThan(k);
      expect(back.lastIndexOf('R')).toBeGreaterThan(k);
      const bishops = [...back].flatMap((p, i) => (p === 'B' ? [i % 2] : []));
      expect(bishops.sort((a, b) => a - b)).toEqual([0, 1]);
      expect(Chess.fromSetup(parseFen(fen).unwrap()).isOk).toBe(true);
      seen.add(fen);
    }
    expect(seen.size).toBe(960);
  });
});

describe('randomGame', () => {
  it('is a reproducible legal game whose SANs replay from its start', () => {
    for (const seed of [1, 2, 3, 99]) {
      for (const chess960 of [false, true]) {
        const g = randomGame(seed, { chess960 });
        expect(randomGame(seed, { chess960 })).toEqual(g);
        expect(g.moves.length).toBeLessThanOrEqual(120);
        const pos = Chess.fromSetup(parseFen(g.startFen).unwrap()).unwrap();
        g.moves.forEach((m, i) => {
          expect(pos.isLegal(m)).toBe(true);
          expect(makeSanAndPlay(pos, m)).toBe(g.sans[i]);
        });
      }
    }
  });

  it('over a batch contains castling on both wings, en passant and every promotion piece', () => {
    const seen = { 'O-O': 0, 'O-O-O': 0, ep: 0, '=Q': 0, '=R': 0, '=B': 0, '=N': 0, 960: 0 };
    for (let seed = 0; seed < 200; seed++) {
      const g = randomGame(seed, { chess960: seed % 4 === 3 });
      const pos = Chess.fromSetup(parseFen(g.startFen).unwrap()).unwrap();
      g.moves.forEach((m, i) => {
        const san = g.sans[i]!;
        if (san.startsWith('O-O-O')) seen['O-O-O']++;
        else if (san.startsWith('O-O')) seen['O-O']++;
        if (pos.board.get(m.from)?.role === 'pawn' && m.to === pos.epSquare) seen.ep++;
        for (const p of ['=Q', '=R', '=B', '=N'] as const) if (san.includes(p)) seen[p]++;
        if (g.chess960 && san.startsWith('O-O')) seen[960]++;
        pos.play(m);
      });
    }
    for (const [feature, count] of Object.entries(seen)) expect(count, feature).toBeGreaterThan(5);
  });
});

describe('loadPgn', () => {
  it('reads mainlines, Chess960 set-ups and reports unplayable games as problems', () => {
    const text = `[Event "x"]\n[Variant "fischerandom"]\n[SetUp "1"]\n[FEN "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"]\n\n1. Nd3 (1. e4) Nd6 2. g3 g6 *\n\n[Event "y"]\n\n1. e4 e5 2. Ke3 *\n`;
    const { games, problems } = loadPgn(text, 't.pgn');
    expect(games).toHaveLength(1);
    expect(games[0]!.chess960).toBe(true);
    expect(games[0]!.sans).toEqual(['Nd3', 'Nd6', 'g3', 'g6']);
    expect(problems).toEqual([{ id: 't.pgn#2', reason: 'ply 3: cannot play Ke3' }]);
  });

  it.skipIf(!sharedDataPresent(GAMES_DIR, 'shared games'))(`loads every shared game (${GAMES_DIR})`, () => {
    let total = 0;
    for (const f of readdirSync(GAMES_DIR).filter((n) => n.endsWith('.pgn'))) {
      const { games, problems } = loadPgn(readFileSync(`${GAMES_DIR}/${f}`, 'utf8'), f);
      expect(problems).toEqual([]);
      total += games.length;
      for (const g of games) expect(makeFen(Chess.fromSetup(parseFen(g.startFen).unwrap()).unwrap().toSetup())).toBe(g.startFen);
    }
    expect(total).toBe(366);
  });
});
