import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chess } from 'chessops/chess';
import { parseFen } from 'chessops/fen';
import { parsePgn, startingPosition } from 'chessops/pgn';
import { parseSan } from 'chessops/san';
import type { GameState } from '../../protocols/feed/model.ts';
import { PIECE, squareToField } from '../../protocols/dgt/squares.ts';
import { startDaemon, type RunningDaemon } from '../../daemon/app/daemon.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import type { PhysicalAction } from '../../daemon/simulation/emulator/physical.ts';
import { PtyDevice } from '../../daemon/simulation/pty-board.ts';
import { parseConfig } from '../../daemon/tournament/config.ts';
import { moveActions } from '../board/catchup-helpers.ts';
import { eventually, getJson } from '../runtime/daemon-child.ts';
import { pgnExtract, skipWithoutPgnExtract } from '../pgn/pgn-extract.ts';
import { socatAvailable } from './socat.ts';

// Issue 9, "a gap never freezes the game", at a board without a clock: nothing presses, so the
// engine never hears that a move is complete. A knight put on b3 from b1 (no legal move takes it
// there) that nobody puts right, and play goes on: before session 19 the record waited on that
// board for a press that never comes, and every later move was lost. Read by the daemon over a
// real pseudo-terminal (socat), the API, the round PGN (chessops and pgn-extract) and the
// arbiter's accept-board.
const socat = socatAvailable('a board without a clock');
const TOKEN = 'clockless-arbiter-token';
const tokenBefore = process.env.BOARDCAST_ARBITER_TOKEN;
process.env.BOARDCAST_ARBITER_TOKEN = TOKEN;
const root = mkdtempSync(join(tmpdir(), 'boardcast-clockless-'));
let daemon: RunningDaemon | null = null;
let device: PtyDevice | null = null;
let board: BoardEmulator | null = null;

afterAll(async () => {
  if (tokenBefore === undefined) delete process.env.BOARDCAST_ARBITER_TOKEN;
  else process.env.BOARDCAST_ARBITER_TOKEN = tokenBefore;
  await daemon?.stop();
  await device?.close();
  rmSync(root, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function act(actions: readonly PhysicalAction[]): Promise<void> {
  for (const a of actions) {
    device!.withDevice((_d, at) => board!.act({ ...a, at }));
    await sleep(150);
  }
}

/** One legal move played by hand (no press: there is no clock); moveActions plays it on `pos`. */
async function play(pos: Chess, san: string): Promise<void> {
  await act(moveActions(pos, san, 0, 0).actions);
  await sleep(300);
}

const game = (): Promise<GameState> => getJson<GameState>(`${daemon!.url}/api/games/r1-t1`);
/** The game as an arbiter reads it: with its incidents. */
const arbiterGame = async (): Promise<GameState> => (await fetch(`${daemon!.url}/api/games/r1-t1`, { headers: { authorization: `Bearer ${TOKEN}` } })).json() as Promise<GameState>;

describe.skipIf(!socat)('a board without a clock, read by the daemon over a real pseudo-terminal', () => {
  beforeAll(async () => {
    board = new BoardEmulator({ serial: '42001', clock: null });
    device = new PtyDevice(board, join(root, 'board1'), join(root, 'board1.emu'));
    const opened = await device.open();
    if (!opened.ok) throw new Error(opened.error);
    const cfg = parseConfig(
      {
        event: { name: 'clockless' },
        rounds: { count: 1 },
        timeControl: '90+30',
        rules: { edition: '2018', category: 'standard' },
        httpPort: 0,
        dataDir: join(root, 'data'),
        tables: [{ number: 1, board: device.hostPath }],
      },
      null,
      root,
    );
    if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
    const started = await startDaemon({ config: cfg.value, log: createLogger({ write: () => {}, pretty: false }), port: 0, host: '127.0.0.1' });
    if (!started.ok) throw new Error(started.error);
    daemon = started.value;
    const live = async (): Promise<true | undefined> => ((await getJson<{ tables: { state: string }[] }>(`${daemon!.url}/health`)).tables[0]?.state === 'live' ? true : undefined);
    await eventually(live, 20_000, 'the board live');
  }, 60_000);

  it('an illegal move that stands: once the reply and the next move are seen the record breaks after it and goes on; the PGN stays valid and the arbiter accepts the board', async () => {
    const pos = Chess.default();
    await play(pos, 'e4');
    await play(pos, 'e5');
    await eventually(async () => ((await game()).ply === 2 ? true : undefined), 10_000, 'two plies');

    // White's knight b1-b3, and nobody puts it right.
    await act([
      { kind: 'lift', at: 0, field: squareToField(1) },
      { kind: 'place', at: 0, field: squareToField(17), piece: PIECE.WKNIGHT },
    ]);
    // Play goes on from the board as it stands, Black to move.
    const after = Chess.fromSetup(parseFen('rnbqkbnr/pppp1ppp/8/4p3/4P3/1N6/PPPP1PPP/R1BQKBNR b KQkq - 0 2').unwrap()).unwrap();
    for (const san of ['d6', 'd4', 'Nf6', 'Bc4']) await play(after, san);

    const g = await eventually(
      async () => {
        const s = await game();
        return s.moves.length === 7 ? s : undefined;
      },
      10_000,
      'the record to follow the board',
    );
    expect(g.moves.map((m) => m.san)).toEqual(['e4', 'e5', '--', 'd6', 'd4', 'Nf6', 'Bc4']);
    expect(g.moves[2]!.gap).toEqual({ reason: 'unexplained' });
    // The arbiter hears of the break alone: nothing is held against a player (no press completed
    // the knight's move, so it is no illegal move the engine can report).
    const incidents = (await arbiterGame()).incidents;
    expect(incidents.map((i) => i.kind)).toEqual(['illegal-position']);
    expect(incidents[0]!.message).toMatch(/white knight of b1 on b3, where no legal move takes it/);

    // The round PGN: the moves up to the break, the break and the moves since in a comment; every
    // consumer reads it.
    const pgn = await (await fetch(`${daemon!.url}/relay/round-1.pgn`)).text();
    const parsed = parsePgn(pgn);
    expect(parsed).toHaveLength(1);
    const sans = [...parsed[0]!.moves.mainline()].map((n) => n.san);
    expect(sans).toEqual(['e4', 'e5']);
    const replay = startingPosition(parsed[0]!.headers).unwrap();
    for (const san of sans) expect(replay.play(parseSan(replay, san)!)).toBeUndefined();
    expect(pgn).toContain('Position: rnbqkbnr/pppp1ppp/8/4p3/4P3/1N6/PPPP1PPP/R1BQKBNR b KQkq - 0 2. Moves since: 2... d6 3. d4 Nf6 4. Bc4');
    if (!skipWithoutPgnExtract) expect(pgnExtract(pgn)).toEqual({ diagnostics: '', games: 1 });

    // The arbiter lets the move stand (Laws 7.5.1): the break is accepted, the record continuous.
    const res = await fetch(`${daemon!.url}/api/arbiter/games/r1-t1/accept-board`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ ply: 3 }),
    });
    expect(res.status).toBe(200);
    await eventually(async () => ((await game()).moves[2]!.gap?.accepted === true ? true : undefined), 10_000, 'the break accepted');
  }, 90_000);
});
