import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { startDaemon, type RunningDaemon } from '../../daemon/app/daemon.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import type { GameEvent } from '../../daemon/reconstruction/game-events.ts';
import { parseConfig } from '../../daemon/tournament/config.ts';
import type { BoardEvent } from '../../protocols/board-events.ts';
import type { TableConnection } from '../../protocols/feed/hall.ts';
import { Chess } from 'chessops/chess';
import { MemoryLiveSource } from '../../daemon/runtime/memory-live-source.ts';
import { PIECE, pieceToCode, squareToField, type PieceCode } from '../../protocols/dgt/squares.ts';
import { eventually, getJson } from './daemon-child.ts';

const TOKEN = 'engine-fault-token';
const tokenBefore = process.env.BOARDCAST_ARBITER_TOKEN;
process.env.BOARDCAST_ARBITER_TOKEN = TOKEN;
afterAll(() => {
  if (tokenBefore === undefined) delete process.env.BOARDCAST_ARBITER_TOKEN;
  else process.env.BOARDCAST_ARBITER_TOKEN = tokenBefore;
});

const root = mkdtempSync(join(tmpdir(), 'boardcast-engine-fault-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/**
 * An engine that throws is a fault in boardcast: this injects one (the engine's own code is not
 * touched) and holds the daemon to keeping it to its game, live and in a restart's replay.
 */
function throwOnce(when: (calls: number, ev: BoardEvent) => boolean): { faulted: () => boolean } {
  // The engine's own push, taken before the spy stands in for it.
  const push = (Object.getOwnPropertyDescriptor(GameEngine.prototype, 'push') as { value: (this: GameEngine, ev: BoardEvent) => GameEvent[] }).value;
  let calls = 0;
  let faulted = false;
  vi.spyOn(GameEngine.prototype, 'push').mockImplementation(function (this: GameEngine, ev: BoardEvent) {
    calls++;
    if (!faulted && when(calls, ev)) {
      faulted = true;
      throw new Error('injected engine fault');
    }
    return push.call(this, ev);
  });
  return { faulted: () => faulted };
}

describe("a game's engine that throws", () => {
  const cfg = parseConfig({ event: { name: 'faults' }, rounds: { count: 1 }, timeControl: '90+30', dataDir: join(root, 'data'), emulate: { count: 2 } }, null, root);
  if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
  const lines: string[] = [];
  const start = async (): Promise<RunningDaemon> => {
    const started = await startDaemon({ config: cfg.value, log: createLogger({ write: (_level, line) => lines.push(line), pretty: false }), port: 0, host: '127.0.0.1', pace: 20, viewer: false });
    if (!started.ok) throw new Error(started.error);
    return started.value;
  };
  const health = (d: RunningDaemon) => getJson<{ ok: boolean; tables: TableConnection[] }>(`${d.url}/health`);
  const faultLines = (): Record<string, unknown>[] =>
    lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.message === "a game's engine failed (a fault in boardcast): the event is stored, the other games go on");

  it('is kept to its game: the other table plays on, /health counts it, the log has it, and a restart whose replay throws still serves', async () => {
    // Live: the 40th board event any engine is given throws.
    throwOnce((calls) => calls === 40);
    const d = await start();
    const faulty = await eventually(
      async () => {
        const h = await health(d);
        return h.tables.find((t) => t.engineFaults > 0);
      },
      15_000,
      'a table with an engine fault',
    );
    expect(faulty.engineFaults).toBe(1);
    const other = (await health(d)).tables.find((t) => t.table !== faulty.table)!;
    expect(other.engineFaults).toBe(0);
    expect(faultLines()).toEqual([expect.objectContaining({ level: 'error', gameId: faulty.gameId, error: 'injected engine fault', stack: expect.stringContaining('injected engine fault') })]);
    // Both games go on after it: the batch the fault was in did not take the other table's events with it.
    const plies = (id: string | null): number => d.live.game(id!)!.moves.length;
    const before = { faulty: plies(faulty.gameId), other: plies(other.gameId) };
    await eventually(async () => (plies(faulty.gameId) > before.faulty + 2 && plies(other.gameId) > before.other + 2) || undefined, 20_000, 'both games to record more moves');
    expect((await health(d)).ok).toBe(true);
    await d.stop();
    vi.restoreAllMocks();

    // A restart replays the store: its first event throws. The daemon starts and serves all the same.
    lines.length = 0;
    const replay = throwOnce((calls) => calls === 1);
    const again = await start();
    expect(replay.faulted()).toBe(true);
    const after = await health(again);
    expect(after.ok).toBe(true);
    expect(after.tables.map((t) => t.engineFaults).sort((a, b) => a - b)).toEqual([0, 1]);
    expect(faultLines()).toHaveLength(1);
    await again.stop();
  }, 60_000);

  it("answers an arbiter's decision it threw on with 500 engine-fault, the amendment recorded, and the game goes on", async () => {
    const d = await start();
    const game = d.live.games(1)![0]!.id;
    vi.spyOn(GameEngine.prototype, 'arbiter').mockImplementationOnce(() => {
      throw new Error('injected engine fault');
    });
    const post = (path: string, body: unknown): Promise<Response> =>
      fetch(`${d.url}/api/arbiter/games/${game}/${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const res = await post('result', { result: '1-0', reason: 'White resigned' });
    expect(res.status).toBe(500);
    const { error: body } = (await res.json()) as { error: { code: string; message: string } };
    expect(body.code).toBe('engine-fault');
    const id = Number(/amendment (\d+) is recorded/.exec(body.message)?.[1]);
    expect(id).toBeGreaterThan(0);
    // The amendment is there for the arbiter to see and undo; the daemon and the game go on.
    const amendments = (await (await fetch(`${d.url}/api/arbiter/games/${game}/amendments`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { id: number }[];
    expect(amendments.map((a) => a.id)).toContain(id);
    expect((await health(d)).tables.find((t) => t.gameId === game)!.engineFaults).toBe(1);
    const ok = await post('result', { result: '1-0', reason: 'White resigned' });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { result: string }).result).toBe('1-0');
    await d.stop();
  }, 60_000);
});

describe('the read model over an engine step that throws', () => {
  const player = { name: 'P', title: null, rating: null, federation: null, fideId: null };
  const live = (): MemoryLiveSource =>
    new MemoryLiveSource({
      tournament: { id: 't', name: 'Faults', site: null, startDate: null, endDate: null, timeControl: '5400+30', variant: 'standard', roundCount: 1 },
      rounds: [{ round: 1, date: null, startsAt: null, status: 'live', gameCount: 1 }],
      games: [{ id: 'g', round: 1, table: 1, white: player, black: player, engine: { rules: { edition: '2018', category: 'standard' }, chess960: false } }],
      eventTime: true,
    });
  const start = (): PieceCode[] => {
    const board = new Array<PieceCode>(64).fill(PIECE.EMPTY);
    for (const [sq, piece] of Chess.default().board) board[squareToField(sq)] = pieceToCode(piece);
    return board;
  };

  it('publishes nothing of a step that threw before deriving anything: never the step before it again', () => {
    const source = live();
    source.push('g', { type: 'dump', at: 1_000, board: start() });
    source.push('g', { type: 'field', at: 2_000, field: squareToField(12), piece: PIECE.EMPTY });
    expect(source.push('g', { type: 'field', at: 2_100, field: squareToField(28), piece: PIECE.WPAWN }).map((c) => c.kind)).toContain('move');
    vi.spyOn(GameEngine.prototype, 'push').mockImplementationOnce(() => {
      throw new Error('injected engine fault');
    });
    // Black lifts e7: the engine throws at once.
    expect(source.push('g', { type: 'field', at: 3_000, field: squareToField(52), piece: PIECE.EMPTY })).toEqual([]);
    expect(source.engineFaults).toEqual([{ gameId: 'g', on: 'field', error: 'injected engine fault' }]);
    expect(source.faultsOf('g')).toBe(1);
    expect(source.game('g')!.moves.map((m) => m.san)).toEqual(['e4']);
  });

  it('counts a fault of the replay behind a game it adopts (an undo, a catch-up), once however often it is met', () => {
    const source = live();
    source.push('g', { type: 'dump', at: 1_000, board: start() });
    const replay = (): MemoryLiveSource => {
      const scratch = live();
      scratch.push('g', { type: 'dump', at: 1_000, board: start() });
      vi.spyOn(GameEngine.prototype, 'push').mockImplementationOnce(() => {
        throw new Error('injected engine fault');
      });
      scratch.push('g', { type: 'field', at: 2_000, field: squareToField(12), piece: PIECE.EMPTY });
      return scratch;
    };
    expect(source.faultsOf('g')).toBe(0);
    source.adopt(replay(), 'g');
    expect(source.faultsOf('g')).toBe(1);
    // The same replay again (another undo): still the one fault.
    source.adopt(replay(), 'g');
    expect(source.faultsOf('g')).toBe(1);
  });

  it("publishes what a step derived before it threw: the engine's state already holds it", () => {
    const source = live();
    source.push('g', { type: 'dump', at: 1_000, board: start() });
    source.push('g', { type: 'field', at: 2_000, field: squareToField(12), piece: PIECE.EMPTY });
    source.push('g', { type: 'field', at: 2_100, field: squareToField(28), piece: PIECE.WPAWN });
    source.push('g', { type: 'field', at: 3_000, field: squareToField(52), piece: PIECE.EMPTY });
    // The engine derives e5 from Black's pawn put down, then throws.
    const push = (Object.getOwnPropertyDescriptor(GameEngine.prototype, 'push') as { value: (this: GameEngine, ev: BoardEvent) => GameEvent[] }).value;
    vi.spyOn(GameEngine.prototype, 'push').mockImplementationOnce(function (this: GameEngine, ev: BoardEvent) {
      push.call(this, ev);
      throw new Error('injected engine fault');
    });
    const changes = source.push('g', { type: 'field', at: 3_100, field: squareToField(36), piece: PIECE.BPAWN });
    expect(changes.map((c) => c.kind)).toContain('move');
    expect(source.game('g')!.moves.map((m) => m.san)).toEqual(['e4', 'e5']);
    expect(source.faultsOf('g')).toBe(1);
  });
});
