import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chess } from 'chessops/chess';
import { parseFen } from 'chessops/fen';
import { parsePgn, startingPosition } from 'chessops/pgn';
import { parseSan } from 'chessops/san';
import { PIECE, squareToField } from '../../protocols/dgt/squares.ts';
import { eventually } from '../runtime/daemon-child.ts';
import { pgnExtract, skipWithoutPgnExtract } from '../pgn/pgn-extract.ts';
import { oneBoardDaemon, type OneBoardDaemon } from './one-board-daemon.ts';
import { socatAvailable } from './socat.ts';

// Issue 9, "a gap never freezes the game", at a board without a clock: nothing presses, so the
// engine never hears that a move is complete. A knight put on b3 from b1 (no legal move takes it
// there) that nobody puts right, and play goes on: before session 19 the record waited on that
// board for a press that never comes, and every later move was lost. Read by the daemon over a
// real pseudo-terminal (socat), the API, the round PGN (chessops and pgn-extract) and the
// arbiter's accept-board.
const socat = socatAvailable('a board without a clock');
let t: OneBoardDaemon | null = null;

afterAll(async () => {
  await t?.close();
});

describe.skipIf(!socat)('a board without a clock, read by the daemon over a real pseudo-terminal', () => {
  beforeAll(async () => {
    t = await oneBoardDaemon({ name: 'clockless', serial: '42001', clock: null });
  }, 60_000);

  it('an illegal move that stands: once the reply and the next move are seen the record breaks after it and goes on; the PGN stays valid and the arbiter accepts the board', async () => {
    const pos = Chess.default();
    await t!.play(pos, 'e4');
    await t!.play(pos, 'e5');
    await eventually(async () => ((await t!.game()).ply === 2 ? true : undefined), 10_000, 'two plies');

    // White's knight b1-b3, and nobody puts it right.
    await t!.act([
      { kind: 'lift', at: 0, field: squareToField(1) },
      { kind: 'place', at: 0, field: squareToField(17), piece: PIECE.WKNIGHT },
    ]);
    // Play goes on from the board as it stands, Black to move.
    const after = Chess.fromSetup(parseFen('rnbqkbnr/pppp1ppp/8/4p3/4P3/1N6/PPPP1PPP/R1BQKBNR b KQkq - 0 2').unwrap()).unwrap();
    for (const san of ['d6', 'd4', 'Nf6', 'Bc4']) await t!.play(after, san);

    const g = await eventually(
      async () => {
        const s = await t!.game();
        return s.moves.length === 7 ? s : undefined;
      },
      10_000,
      'the record to follow the board',
    );
    expect(g.moves.map((m) => m.san)).toEqual(['e4', 'e5', '--', 'd6', 'd4', 'Nf6', 'Bc4']);
    expect(g.moves[2]!.gap).toEqual({ reason: 'unexplained' });
    // The arbiter hears of the break alone: nothing is held against a player (no press completed
    // the knight's move, so it is no illegal move the engine can report).
    const incidents = (await t!.arbiterGame()).incidents;
    expect(incidents.map((i) => i.kind)).toEqual(['illegal-position']);
    expect(incidents[0]!.message).toMatch(/white knight of b1 on b3, where no legal move takes it/);

    // The round PGN: the moves up to the break, the break and the moves since in a comment; every
    // consumer reads it.
    const pgn = await (await fetch(`${t!.daemon.url}/relay/round-1.pgn`)).text();
    const parsed = parsePgn(pgn);
    expect(parsed).toHaveLength(1);
    const sans = [...parsed[0]!.moves.mainline()].map((n) => n.san);
    expect(sans).toEqual(['e4', 'e5']);
    const replay = startingPosition(parsed[0]!.headers).unwrap();
    for (const san of sans) expect(replay.play(parseSan(replay, san)!)).toBeUndefined();
    expect(pgn).toContain('Position: rnbqkbnr/pppp1ppp/8/4p3/4P3/1N6/PPPP1PPP/R1BQKBNR b KQkq - 0 2. Moves since: 2... d6 3. d4 Nf6 4. Bc4');
    if (!skipWithoutPgnExtract) expect(pgnExtract(pgn)).toEqual({ diagnostics: '', games: 1 });

    // The arbiter lets the move stand (Laws 7.5.1): the break is accepted, the record continuous.
    const res = await t!.arbiterPost('accept-board', { ply: 3 });
    expect(res.status).toBe(200);
    await eventually(async () => ((await t!.game()).moves[2]!.gap?.accepted === true ? true : undefined), 10_000, 'the break accepted');
  }, 90_000);
});
