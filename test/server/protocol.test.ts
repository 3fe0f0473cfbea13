import { describe, expect, it } from 'vitest';
import { scopeKey } from '../../protocols/feed/messages.ts';
import { decodeClientMessage } from '../../protocols/feed/client-messages.ts';
import { ScopeStream } from '../../daemon/server/scope-stream.ts';
import { localSan } from '../../viewer/src/i18n.ts';

describe('feed protocol validation', () => {
  it('accepts the documented messages', () => {
    expect(decodeClientMessage('{"v":1,"type":"subscribe","scope":{"kind":"round","round":2},"since":{"epoch":"ab","seq":5}}')).toEqual({
      ok: true,
      value: { v: 1, type: 'subscribe', scope: { kind: 'round', round: 2 }, since: { epoch: 'ab', seq: 5 } },
    });
    expect(decodeClientMessage('{"v":1,"type":"ping","t":3}').ok).toBe(true);
    expect(scopeKey({ kind: 'game', gameId: 'r1-t4' })).toBe('game:r1-t4');
  });

  it('turns bad input into error values with reasons', () => {
    const bad: [string, string][] = [
      ['{oops', 'bad-json'],
      ['[1,2]', 'bad-message'],
      ['{"v":2,"type":"ping"}', 'unsupported-version'],
      ['{"v":1,"type":"dance"}', 'bad-message'],
      ['{"v":1,"type":"subscribe","scope":{"kind":"round","round":0}}', 'bad-message'],
      ['{"v":1,"type":"subscribe","scope":{"kind":"game"}}', 'bad-message'],
      ['{"v":1,"type":"subscribe","scope":{"kind":"tournament"},"since":{"seq":-1,"epoch":"x"}}', 'bad-message'],
      ['{"v":1,"type":"auth","token":5}', 'bad-message'],
    ];
    for (const [text, code] of bad) {
      const d = decodeClientMessage(text);
      expect(d.ok, text).toBe(false);
      if (!d.ok) expect(d.error.code, text).toBe(code);
    }
  });
});

describe('scope stream history', () => {
  it('returns exactly the missed deltas while they are kept, and nothing when they are not', () => {
    const s = new ScopeStream<unknown>('tournament', 'public', 4);
    for (let i = 0; i < 6; i++) s.append((seq) => `f${seq}`);
    expect(s.since(6)).toEqual([]);
    expect(s.since(3)?.map((d) => d.frame.toString())).toEqual(['f4', 'f5', 'f6']);
    expect(s.since(2)?.map((d) => d.seq)).toEqual([3, 4, 5, 6]);
    expect(s.since(1)).toBeUndefined();
    expect(s.since(7)).toBeUndefined();
  });
});

describe('move notation', () => {
  it('uses each language’s piece letters (FIDE Laws Appendix C) or figurines', () => {
    expect(localSan('Nxe5+', 'en', 'letters')).toBe('Nxe5+');
    expect(localSan('Nxe5+', 'sl', 'letters')).toBe('Sxe5+');
    expect(localSan('Qd1', 'sr', 'letters')).toBe('Dd1');
    expect(localSan('Rfe1', 'sk', 'letters')).toBe('Vfe1');
    expect(localSan('Bb5', 'sk', 'letters')).toBe('Sb5');
    expect(localSan('Nf3', 'sk', 'letters')).toBe('Jf3');
    expect(localSan('e8=Q#', 'sl', 'letters')).toBe('e8=D#');
    expect(localSan('O-O-O', 'sk', 'letters')).toBe('O-O-O');
    expect(localSan('Bxc3+', 'en', 'figurines')).toBe('♗xc3+');
  });
});

describe('PGN writer', () => {
  it('numbers a game that starts from a set-up position with Black to move, and tags the set-up', async () => {
    const { gameToPgn, formatClk } = await import('../../protocols/feed/pgn.ts');
    const startFen = 'r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 12';
    const pgn = gameToPgn({ id: 't', name: 'Test "Open"', site: null, startDate: '2026-01-02', endDate: null, timeControl: null, variant: 'standard', roundCount: 1 }, undefined, {
      id: 'g',
      round: 2,
      table: 7,
      status: 'finished',
      result: '1/2-1/2',
      ply: 2,
      fen: '',
      lastMove: null,
      clock: null,
      startFen,
      termination: 'agreement',
      incidents: [],
      white: { name: 'A', title: null, rating: null, federation: null, fideId: null },
      black: { name: 'B', title: 'IM', rating: 2400, federation: 'SVK', fideId: null },
      moves: [
        { ply: 1, san: 'Nf6', uci: 'g8f6', fenAfter: '', at: 0, clockMs: 3_723_000 },
        { ply: 2, san: 'Nc3', uci: 'b1c3', fenAfter: '', at: 0, clockMs: null },
      ],
    });
    expect(pgn).toContain('[Event "Test \\"Open\\""]');
    expect(pgn).toContain('[Site "?"]');
    expect(pgn).toContain('[Date "2026.01.02"]');
    expect(pgn).toContain('[Round "2.7"]');
    expect(pgn).toContain(`[SetUp "1"]\n[FEN "${startFen}"]`);
    expect(pgn).toContain('[Termination "normal"]\n[TerminationDetail "agreement"]');
    expect(pgn).toContain('[BlackFed "SVK"]');
    expect(pgn).not.toContain('WhiteElo');
    expect(pgn.endsWith('\n\n12... Nf6 { [%clk 1:02:03] } 13. Nc3 1/2-1/2\n')).toBe(true);
    expect(formatClk(59_999)).toBe('0:00:59');
  });

  it('says at the first move of an inferred span that its order is a guess, and what else fits; the PGN still reads back move for move', async () => {
    const { gameToPgn } = await import('../../protocols/feed/pgn.ts');
    const { parsePgn, startingPosition } = await import('chessops/pgn');
    const { parseSan } = await import('chessops/san');
    const span = {
      firstPly: 2,
      plies: 3,
      candidates: [
        ['e5', 'Nf3', 'Nc6'],
        ['Nc6', 'Nf3', 'e5'],
      ],
    };
    const sans = ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5'];
    const pgn = gameToPgn({ id: 't', name: 'T', site: null, startDate: '2026-01-02', endDate: null, timeControl: null, variant: 'standard', roundCount: 1 }, undefined, {
      id: 'g',
      round: 1,
      table: 1,
      status: 'live',
      result: '*',
      ply: 5,
      fen: '',
      lastMove: null,
      clock: null,
      startFen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
      termination: null,
      incidents: [],
      white: { name: 'A', title: null, rating: null, federation: null, fideId: null },
      black: { name: 'B', title: null, rating: null, federation: null, fideId: null },
      moves: sans.map((san, i) => ({ ply: i + 1, san, uci: '', fenAfter: '', at: 0, clockMs: null, ...(i >= 1 && i <= 3 ? { uncertain: span } : {}) })),
    });
    const game = parsePgn(pgn)[0]!;
    const nodes = [...game.moves.mainline()];
    expect(nodes.map((n) => n.san)).toEqual(sans);
    expect(nodes[1]!.comments).toEqual(['Plies 2-4 were not seen on the board; 2 move orders fit, this one is a guess. Also possible: Nc6 Nf3 e5']);
    expect(nodes.filter((n) => n.comments?.length).length).toBe(1);
    const pos = startingPosition(game.headers).unwrap();
    for (const n of nodes) pos.play(parseSan(pos, n.san)!);
    expect(pos.fullmoves).toBe(3);
  });
});
