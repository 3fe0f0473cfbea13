import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedDataPresent } from '../shared-data.ts';
import { describe, expect, it } from 'vitest';
import { loadPgn } from '../../daemon/simulation/games/pgn.ts';
import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import { observe } from '../../daemon/simulation/emulator/tabletop.ts';
import type { PhysicalAction } from '../../daemon/simulation/emulator/physical.ts';
import { PIECE } from '../../protocols/dgt/squares.ts';
import { demoGame, demoPairings, resultPieceActions, SHARED_GAMES_DIR, type GameSource } from '../../daemon/runtime/demo-games.ts';
import type { SourceGame } from '../../daemon/simulation/games/game.ts';
import type { GameEvent } from '../../daemon/reconstruction/game-events.ts';

const TATA = join(SHARED_GAMES_DIR, 'tatamast22.pgn');
const shared = sharedDataPresent(TATA, 'demo PGN tests on real games');

const TC = { baseSeconds: 5400, incrementSeconds: 30 } as Parameters<typeof demoGame>[6];

/** Every game event of a demo script run through the real reconstruction engine, as a board session would see it. */
function engineEvents(game: SourceGame): GameEvent[] {
  const { script } = demoGame({ kind: 'files', dir: '', games: [game] }, 1, 1, 0, 'clean', 1, TC);
  const engine = new GameEngine({ rules: { edition: '2018', category: 'standard' } });
  const acts = script.actions.filter((a): a is PhysicalAction => a.kind !== 'button');
  const evs = [{ type: 'dump' as const, at: 0, board: script.board.slice() }, ...observe(acts, { board: script.board, clock: script.clock })];
  return evs.flatMap((ev) => engine.push(ev));
}

describe.skipIf(!shared)('real PGN scores keep their players and result', () => {
  const loaded = shared ? loadPgn(readFileSync(TATA, 'utf8'), TATA) : { games: [], problems: [] };

  it('carries names, titles, ratings, FIDE ids, Result and the other tags', () => {
    expect(loaded.problems).toEqual([]);
    const g = loaded.games.find((x) => x.tags?.['White'] === 'Duda, Jan-Krzysztof' && x.tags?.['Black'] === 'Shankland, Sam')!;
    expect(g).toBeDefined();
    expect(g.players!.white).toMatchObject({ name: 'Duda, Jan-Krzysztof', title: 'GM', federation: null });
    expect(g.players!.white.rating).toBe(Number(g.tags!['WhiteElo']));
    expect(g.players!.white.fideId).toBe(Number(g.tags!['WhiteFideId']));
    expect(g.players!.black.name).toBe('Shankland, Sam');
    expect(g.players!.black.rating).toBeGreaterThan(2000);
    expect(g.result).toBe(g.tags!['Result']);
    expect(['1-0', '0-1', '1/2-1/2']).toContain(g.result);
    expect(g.tags!['Event']).toBeTruthy();
    expect(g.tags!['Date']).toBeTruthy();
  });

  it('demo pairings name the players of the score each emulated table plays', () => {
    const source: GameSource = { kind: 'files', dir: TATA, games: loaded.games };
    const lookup = demoPairings(source, 8, 1);
    // Table 3's first game is the corpus' third, its second game the eleventh.
    expect(lookup(1, 3)?.white.name).toBe(loaded.games[2]!.players!.white.name);
    expect(lookup(2, 3)?.black.name).toBe(loaded.games[10]!.players!.black.name);
    expect(lookup(1, 9)).toBeUndefined();
    expect(lookup(0, 1)).toBeUndefined();
  });

  it('a drawn game without mate ends on the board with the draw piece, as result-pieces', () => {
    const g = loaded.games.find((x) => x.tags?.['White'] === 'Duda, Jan-Krzysztof' && x.tags?.['Black'] === 'Shankland, Sam')!;
    const acts = resultPieceActions(g, 1000);
    expect(acts).toHaveLength(2);
    expect(acts[0]).toMatchObject({ kind: 'place', piece: PIECE.DRAW });
    expect(acts[1]).toMatchObject({ kind: 'lift', field: (acts[0] as { field: number }).field });
    const evs = engineEvents(g);
    expect(evs.filter((e) => e.type === 'move-made')).toHaveLength(g.moves.length);
    expect(evs.find((e) => e.type === 'game-ended')).toMatchObject({ result: '1/2-1/2', termination: 'result-pieces' });
  });

  it('a decisive game that ended by resignation ends with its PGN result', () => {
    const resigned = loaded.games.find((x) => (x.result === '1-0' || x.result === '0-1') && resultPieceActions(x, 0).length > 0)!;
    expect(resigned).toBeDefined();
    const evs = engineEvents(resigned);
    expect(evs.find((e) => e.type === 'game-ended')).toMatchObject({ result: resigned.result, termination: 'result-pieces' });
  });
});

describe('result pieces for generated scores', () => {
  const fool: SourceGame = {
    id: 'fool',
    chess960: false,
    startFen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
    moves: [],
    sans: [],
  };

  it('a score without a result, or ending in mate, needs no result piece', async () => {
    const { parseSan } = await import('chessops/san');
    const { positionFromFen } = await import('../../daemon/simulation/games/pgn.ts');
    const pos = positionFromFen(fool.startFen);
    const mate = { ...fool, moves: [] as SourceGame['moves'], result: '0-1' as const };
    for (const san of ['f3', 'e5', 'g4', 'Qh4#']) {
      const m = parseSan(pos, san)!;
      mate.moves.push(m as SourceGame['moves'][number]);
      pos.play(m);
    }
    expect(resultPieceActions(fool, 0)).toEqual([]);
    expect(resultPieceActions(mate, 0)).toEqual([]);
    expect(engineEvents(mate).find((e) => e.type === 'game-ended')).toMatchObject({ result: '0-1', termination: 'checkmate' });
  });

  it('a resignation after two moves puts the white-wins piece on e4 when empty', async () => {
    const { parseSan } = await import('chessops/san');
    const { positionFromFen } = await import('../../daemon/simulation/games/pgn.ts');
    const pos = positionFromFen(fool.startFen);
    const g = { ...fool, id: 'resign', moves: [] as SourceGame['moves'], result: '1-0' as const };
    for (const san of ['d4', 'd5']) {
      const m = parseSan(pos, san)!;
      g.moves.push(m as SourceGame['moves'][number]);
      pos.play(m);
    }
    const acts = resultPieceActions(g, 500);
    expect(acts[0]).toEqual({ kind: 'place', at: 4500, field: 36, piece: PIECE.WHITE_WINS });
    expect(engineEvents(g).find((e) => e.type === 'game-ended')).toMatchObject({ result: '1-0', termination: 'result-pieces' });
  });
});
