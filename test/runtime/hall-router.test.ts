import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSquare } from 'chessops';
import { afterEach, describe, expect, it } from 'vitest';
import type { BoardEvent } from '../../protocols/board-events.ts';
import { PIECE, squareToField, type PieceCode } from '../../protocols/dgt/squares.ts';
import { standardStartBoard } from '../../daemon/simulation/emulator/tabletop.ts';
import { gameActionHandler, roundHandler } from '../../daemon/runtime/arbiter-actions.ts';
import { applyToGame } from '../../protocols/feed/apply.ts';
import { DerivedRows } from '../../daemon/runtime/derived-rows.ts';
import { storePairings } from '../../daemon/runtime/hall-pairings.ts';
import type { HallRouter } from '../../daemon/runtime/hall-router.ts';
import { hallRouter, newLiveSource, replayStore } from '../../daemon/runtime/store-replay.ts';
import { openStore, type Store } from '../../daemon/store/store.ts';
import { parseConfig, tournamentSetup, type BoardcastConfig } from '../../daemon/tournament/config.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function config(start: 'board' | 'arbiter'): BoardcastConfig {
  const c = parseConfig(
    {
      event: { name: 'router test' },
      rounds: { count: 4, start },
      timeControl: '90+30',
      tables: [
        { number: 1, board: '/dev/ttyUSB0' },
        { number: 2, board: '/dev/ttyUSB1' },
      ],
    },
    null,
    '/tmp',
  );
  if (!c.ok) throw new Error(c.error.messages.join('\n'));
  return c.value;
}

const field = (sq: string) => squareToField(parseSquare(sq)!);

/** One table's board as people handle it: every change is one field event, 400 ms apart. */
class Table {
  board: PieceCode[] = standardStartBoard();
  at = 1_000;
  readonly out: BoardEvent[] = [];
  dump(): this {
    this.out.push({ type: 'dump', at: (this.at += 400), board: this.board.slice() });
    return this;
  }
  set(sq: string, piece: PieceCode): this {
    this.board[field(sq)] = piece;
    this.out.push({ type: 'field', at: (this.at += 400), field: field(sq), piece });
    return this;
  }
  /** Plain moves "e2e4 e7e5 …" (lift, then place). */
  play(moves: string): this {
    for (const m of moves.split(' ')) {
      const piece = this.board[field(m.slice(0, 2))]!;
      this.set(m.slice(0, 2), PIECE.EMPTY).set(m.slice(2, 4), piece);
    }
    return this;
  }
  /** Puts every piece back to the start position, one square at a time (lifts first, then places). */
  reset(): this {
    const start = standardStartBoard();
    const squares = [...Array(64).keys()];
    for (const f of squares) if (this.board[f] !== PIECE.EMPTY && this.board[f] !== start[f]) this.setField(f, PIECE.EMPTY);
    for (const f of squares) if (this.board[f] !== start[f]) this.setField(f, start[f]!);
    return this;
  }
  private setField(f: number, piece: PieceCode): void {
    this.board[f] = piece;
    this.out.push({ type: 'field', at: (this.at += 400), field: f, piece });
  }
  take(): BoardEvent[] {
    return this.out.splice(0);
  }
}

const FOOLS_MATE = 'f2f3 e7e5 g2g4 d8h4';

describe("HallRouter, 'board' mode: a table's games follow its board", () => {
  it('keeps a finished game whole when the pieces are set up again one by one, and opens the next round', () => {
    const live = newLiveSource(config('board'));
    const router = hallRouter(config('board'), live);
    const t = new Table().dump().play(FOOLS_MATE);
    for (const e of t.take()) router.route(1, e);
    expect(live.game('r1-t1')).toMatchObject({ status: 'finished', result: '0-1', termination: 'checkmate', ply: 4 });

    for (const e of t.reset().take()) router.route(1, e);
    // Before the router opened the next game here, the old engine restarted inside the finished
    // game and took all four moves back.
    expect(live.game('r1-t1')!.moves.map((m) => m.san)).toEqual(['f3', 'e5', 'g4', 'Qh4#']);
    expect(live.game('r1-t1')!.result).toBe('0-1');
    expect(router.track(1).gameId).toBe('r2-t1');
    expect(live.game('r2-t1')).toMatchObject({ round: 2, status: 'live', ply: 0 });

    for (const e of t.play('e2e4').take()) router.route(1, e);
    expect(live.game('r2-t1')!.moves.map((m) => m.san)).toEqual(['e4']);
    expect(live.game('r1-t1')!.ply).toBe(4);
  });

  it('a game abandoned with moves and no result (resigned, pieces reset) keeps its moves; one move back to the start is a takeback', () => {
    const live = newLiveSource(config('board'));
    const router = hallRouter(config('board'), live);
    const t = new Table().dump().play('d2d4 g8f6 c2c4');
    for (const e of t.take()) router.route(1, e);
    for (const e of t.reset().take()) router.route(1, e);
    expect(live.game('r1-t1')).toMatchObject({ status: 'live', result: '*', ply: 3 });
    expect(router.track(1).gameId).toBe('r2-t1');

    const u = new Table().dump().play('e2e4');
    for (const e of u.take()) router.route(2, e);
    for (const e of u.play('e4e2').take()) router.route(2, e);
    expect(router.track(2).gameId).toBe('r1-t2');
    expect(live.game('r1-t2')!.ply).toBe(0);
  });
});

describe('a client following the feed', () => {
  it('ends with the same game as the server after an arbiter sets a position (new start FEN)', () => {
    const live = newLiveSource(config('board'));
    const router = hallRouter(config('board'), live);
    const t = new Table().dump().play('e2e4 c7c5 g1f3');
    for (const e of t.take()) router.route(1, e);
    const client = live.game('r1-t1')!;
    const off = live.subscribe((c) => applyToGame(client, c));
    const fen = client.fen;
    router.apply({ kind: 'game', table: 1, gameId: 'r1-t1', command: { type: 'set-position', at: t.at + 10, fen } });
    for (const e of t.play('d7d6').take()) router.route(1, e);
    off();
    const server = live.game('r1-t1')!;
    expect(server.startFen).toBe(fen);
    expect(server.moves.map((m) => m.san)).toEqual(['d6']);
    expect({ ...client, clock: null }).toEqual({ ...server, clock: null });
  });
});

describe("HallRouter, 'arbiter' mode: a round started late", () => {
  it('sees the moves made before the round start, from the last time the board showed the start position', () => {
    const cfg = config('arbiter');
    const live = newLiveSource(cfg);
    const router = hallRouter(cfg, live);
    // Yesterday's final position, then the set-up, then three plies before the arbiter starts the round.
    const t = new Table().dump().play('e2e4 e7e5 d1h5 b8c6');
    for (const e of t.reset().play('d2d4 d7d5 c2c4').take()) router.route(1, e);
    for (let i = 0; i < 5; i++) router.route(1, { type: 'clock', at: t.at + i, whiteMs: 5_000_000, blackMs: 5_000_000, running: 'black', whiteFlag: false, blackFlag: false });
    expect(router.track(1).sinceStart!.events.filter((e) => e.type === 'clock')).toHaveLength(1);
    router.apply({ kind: 'start-round', round: 1, tables: [1], at: t.at + 1000 });
    expect(live.game('r1-t1')!.moves.map((m) => m.san)).toEqual(['d4', 'd5', 'c4']);
    t.at += 2000;
    for (const e of t.play('d5c4').take()) router.route(1, e);
    expect(live.game('r1-t1')!.moves.map((m) => m.san)).toEqual(['d4', 'd5', 'c4', 'dxc4']);
  });
});

describe("rounds in 'arbiter' mode, recorded in a real store and replayed", () => {
  function hall() {
    const dir = mkdtempSync(join(tmpdir(), 'boardcast-router-'));
    dirs.push(dir);
    const opened = openStore(join(dir, 'boardcast.sqlite'));
    if (!opened.ok) throw new Error(opened.error.message);
    const store = opened.value;
    const cfg = config('arbiter');
    const tournamentId = store.upsertTournament(tournamentSetup(cfg));
    const player = (name: string) => ({ name, title: 'GM', rating: 2700, federation: 'SLO', fideId: null });
    for (const n of [1, 2]) {
      store.replacePairings(store.round(tournamentId, n)!.id, [
        { table: 1, white: player(`White ${n}.1`), black: player(`Black ${n}.1`) },
        { table: 2, white: player(`White ${n}.2`), black: player(`Black ${n}.2`) },
        // A table without a board: stored, not broadcast.
        { table: 9, white: player(`White ${n}.9`), black: player(`Black ${n}.9`) },
      ]);
    }
    store.replacePairings(store.round(tournamentId, 3)!.id, [{ table: 9, white: player('White 3.9'), black: player('Black 3.9') }]);
    const build = () => {
      const live = newLiveSource(cfg, store);
      const router = hallRouter(cfg, live, storePairings(store, tournamentId));
      const derived = new DerivedRows(store, (round) => store.round(tournamentId, round)?.id ?? null);
      const reconcile = (id: string) => {
        const g = live.game(id);
        if (g) expect(derived.reconcile(g, g.round - 1).problems).toEqual([]);
      };
      let clock = 10_000_000;
      const deps = { store, tournamentId, router, tables: [1, 2], reconcile, now: () => (clock += 1000) };
      return { live, router, reconcile, rounds: roundHandler(deps), games: gameActionHandler(deps) };
    };
    return { store, tournamentId, ...build(), rebuild: build };
  }

  /** What the daemon does with a board's events: store them, then route the committed ones. */
  function feed(store: Store, router: HallRouter, table: number, events: BoardEvent[], reconcile: (id: string) => void): void {
    const stored = store.appendRawEvents(events.map((event) => ({ tableNumber: table, boardSerial: null, monoMs: event.at, wallMs: event.at, event, raw: new Uint8Array(0) })));
    for (const e of stored) {
      const id = router.route(table, e.event!, e.id);
      if (id) reconcile(id);
    }
  }

  it('opens games only when the arbiter starts the round, ends them by mate, result or forfeit, closes rounds, and a rebuild from the store equals the live hall', () => {
    const h = hall();
    const t1 = new Table().dump();
    const t2 = new Table();
    t2.board[field('d1')] = PIECE.EMPTY; // a piece missing: table 2 never shows the start position
    t2.dump();
    feed(h.store, h.router, 1, t1.take(), h.reconcile);
    feed(h.store, h.router, 2, t2.take(), h.reconcile);
    expect(h.live.games(1)).toEqual([]);
    expect(h.router.track(1).gameId).toBeNull();

    expect(h.rounds(1, { kind: 'close', force: false, arbiter: 'IA Novak', reason: '' })).toMatchObject({ ok: false, error: { status: 409, code: 'round-not-started' } });
    expect(h.rounds(3, { kind: 'start', arbiter: 'IA Novak', reason: '' })).toMatchObject({ ok: false, error: { status: 409, code: 'no-boards' } });
    expect(h.rounds(4, { kind: 'start', arbiter: 'IA Novak', reason: '' })).toMatchObject({ ok: false, error: { status: 409, code: 'no-pairings' } });
    expect(h.rounds(5, { kind: 'start', arbiter: 'IA Novak', reason: '' })).toMatchObject({ ok: false, error: { status: 404 } });
    const started = h.rounds(1, { kind: 'start', arbiter: 'IA Novak', reason: 'round 1' });
    expect(started.ok && started.value.games.map((g) => [g.id, g.white.name, g.status])).toEqual([
      ['r1-t1', 'White 1.1', 'live'], // the board already showed the start position
      ['r1-t2', 'White 1.2', 'pending'],
    ]);
    expect(h.rounds(1, { kind: 'start', arbiter: 'IA Novak', reason: '' })).toMatchObject({ ok: false, error: { status: 409, code: 'round-not-upcoming' } });

    feed(h.store, h.router, 1, t1.play('e2e4 e7e5 g1f3').take(), h.reconcile);
    // The arbiter takes the last move back (reinstate after ply 2), the game goes on to a mate.
    expect(h.games('r1-t1', { kind: 'reinstate', ply: 2, arbiter: 'IA Novak', reason: 'illegal move noticed late' }).ok).toBe(true);
    expect(h.live.game('r1-t1')!.ply).toBe(2);
    feed(h.store, h.router, 1, t1.play('f3g1 d1h5 b8c6 f1c4 g8f6 h5f7').take(), h.reconcile);
    expect(h.live.game('r1-t1')).toMatchObject({ status: 'finished', result: '1-0', termination: 'checkmate', ply: 7 });

    expect(h.rounds(1, { kind: 'close', force: false, arbiter: 'IA Novak', reason: '' })).toMatchObject({
      ok: false,
      error: { status: 409, code: 'games-unfinished', message: expect.stringContaining('table(s) 2') },
    });
    // Black did not come to table 2: the arbiter scores it as a forfeit.
    expect(h.games('r1-t2', { kind: 'result', result: '1-0', arbiter: 'IA Novak', reason: 'forfeit' }).ok).toBe(true);
    expect(h.live.game('r1-t2')).toMatchObject({ status: 'finished', result: '1-0', termination: 'arbiter decision', ply: 0 });
    expect(h.rounds(1, { kind: 'close', force: false, arbiter: 'IA Novak', reason: 'round 1 over' }).ok).toBe(true);

    // Between rounds the pieces are set up again: recorded, but no game takes them.
    feed(h.store, h.router, 1, t1.reset().take(), h.reconcile);
    expect(h.router.track(1).gameId).toBeNull();
    expect(h.live.game('r1-t1')!.moves.map((m) => m.san)).toEqual(['e4', 'e5', 'Qh5', 'Nc6', 'Bc4', 'Nf6', 'Qxf7#']);

    const r2 = h.rounds(2, { kind: 'start', arbiter: 'IA Novak', reason: 'round 2' });
    expect(r2.ok && r2.value.games.map((g) => g.status)).toEqual(['live', 'pending']);
    feed(h.store, h.router, 1, t1.play('d2d4 d7d5').take(), h.reconcile);
    // A position the arbiter sets up (the game restarted from the position on the board).
    const fen = h.live.game('r2-t1')!.fen;
    expect(h.games('r2-t1', { kind: 'position', fen, arbiter: 'IA Novak', reason: 'restart from here' }).ok).toBe(true);
    feed(h.store, h.router, 1, t1.play('c2c4').take(), h.reconcile);
    expect(h.live.game('r2-t1')!.moves.map((m) => m.san)).toEqual(['c4']);
    expect(h.games('r2-t1', { kind: 'result', result: '1/2-1/2', arbiter: 'IA Novak', reason: 'agreed' }).ok).toBe(true);
    expect(h.rounds(2, { kind: 'close', force: true, arbiter: 'IA Novak', reason: 'table 2 adjourned' }).ok).toBe(true);

    const rounds = h.live.rounds().map((r) => [r.round, r.status, r.gameCount]);
    expect(rounds).toEqual([
      [1, 'finished', 2],
      [2, 'finished', 2],
      [3, 'upcoming', 0],
      [4, 'upcoming', 0],
    ]);

    // The store's rows say who decided.
    const row = (round: number, table: number) => h.store.gamesOfRound(h.store.round(h.tournamentId, round)!.id).find((g) => g.table === table)!;
    expect(row(1, 1)).toMatchObject({ result: '1-0', resultSource: 'engine', status: 'finished', ply: 7 });
    expect(row(1, 2)).toMatchObject({ result: '1-0', resultSource: 'arbiter', white: { name: 'White 1.2' } });
    expect(row(2, 1)).toMatchObject({ result: '1/2-1/2', resultSource: 'arbiter' });
    expect(h.store.round(h.tournamentId, 2)!.status).toBe('finished');

    // A restart: everything rebuilt from raw events and the audit trail is what the hall showed.
    const again = h.rebuild();
    replayStore(h.store, again.router, [1, 2]);
    for (const id of ['r1-t1', 'r1-t2', 'r2-t1', 'r2-t2']) {
      const { clock: _a, ...was } = h.live.game(id)!;
      const { clock: _b, ...now } = again.live.game(id)!;
      expect({ ...now, incidents: now.incidents.map((i) => i.kind) }).toEqual({ ...was, incidents: was.incidents.map((i) => i.kind) });
    }
    expect(again.live.rounds()).toEqual(h.live.rounds());
    expect(again.router.track(1).gameId).toBe('r2-t1');
  });
});
