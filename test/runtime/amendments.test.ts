import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSquare } from 'chessops';
import { afterEach, describe, expect, it } from 'vitest';
import type { BoardEvent } from '../../protocols/board-events.ts';
import { PIECE, squareToField, type PieceCode } from '../../protocols/dgt/squares.ts';
import { standardStartBoard } from '../../daemon/simulation/emulator/tabletop.ts';
import { gameActionHandler, gameAmendments, roundHandler } from '../../daemon/runtime/arbiter-actions.ts';
import { gameTimeline } from '../../daemon/runtime/timeline.ts';
import { parseArbiterAction, type ArbiterAction } from '../../daemon/runtime/arbiter.ts';
import { applyToGame } from '../../protocols/feed/apply.ts';
import { DerivedRows } from '../../daemon/runtime/derived-rows.ts';
import { storePairings } from '../../daemon/runtime/hall-pairings.ts';
import type { HallRouter } from '../../daemon/runtime/hall-router.ts';
import { hallRouter, newLiveSource, replayStore } from '../../daemon/runtime/store-replay.ts';
import { openStore, type Store } from '../../daemon/store/store.ts';
import { parseConfig, tournamentSetup } from '../../daemon/tournament/config.ts';
import type { GameState } from '../../protocols/feed/model.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const cfg = (() => {
  const c = parseConfig(
    {
      event: { name: 'amendments test' },
      rounds: { count: 2, start: 'arbiter' },
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
})();

const field = (sq: string) => squareToField(parseSquare(sq)!);

/** One table's board as people handle it: each lift and place one field event, a clock press after every move. */
class Table {
  board: PieceCode[] = standardStartBoard();
  at = 1_000;
  white = 5_400_000;
  black = 5_400_000;
  readonly out: BoardEvent[] = [];
  dump(): this {
    this.out.push({ type: 'dump', at: (this.at += 400), board: this.board.slice() });
    return this;
  }
  private set(sq: string, piece: PieceCode): void {
    this.board[field(sq)] = piece;
    this.out.push({ type: 'field', at: (this.at += 400), field: field(sq), piece });
  }
  /** Plain moves "e2e4 e7e5 …"; `rook` moves a castling rook too. */
  play(moves: string): this {
    let whiteToMove = this.out.filter((e) => e.type === 'clock').length % 2 === 0;
    for (const m of moves.split(' ')) {
      const [from, to, rookFrom, rookTo] = [m.slice(0, 2), m.slice(2, 4), m.slice(4, 6), m.slice(6, 8)];
      const piece = this.board[field(from)]!;
      this.set(from, PIECE.EMPTY);
      this.set(to, piece);
      if (rookFrom) {
        const rook = this.board[field(rookFrom)]!;
        this.set(rookFrom, PIECE.EMPTY);
        this.set(rookTo, rook);
      }
      if (whiteToMove) this.white -= 10_000;
      else this.black -= 10_000;
      this.out.push({ type: 'clock', at: (this.at += 100), whiteMs: this.white, blackMs: this.black, running: whiteToMove ? 'black' : 'white', whiteFlag: false, blackFlag: false });
      whiteToMove = !whiteToMove;
    }
    return this;
  }
  take(): BoardEvent[] {
    return this.out.splice(0);
  }
}

/** A hall on a real SQLite file: round 1 paired on tables 1 and 2, started by the arbiter. */
function hall() {
  const dir = mkdtempSync(join(tmpdir(), 'boardcast-amend-'));
  dirs.push(dir);
  const opened = openStore(join(dir, 'boardcast.sqlite'));
  if (!opened.ok) throw new Error(opened.error.message);
  const store = opened.value;
  const tournamentId = store.upsertTournament(tournamentSetup(cfg));
  const player = (name: string) => ({ name, title: null, rating: 2500, federation: 'SLO', fideId: null });
  store.replacePairings(store.round(tournamentId, 1)!.id, [
    { table: 1, white: player('Ana White'), black: player('Bor Black') },
    { table: 2, white: player('Cene White'), black: player('Dana Black') },
  ]);
  let clock = 10_000_000;
  const build = () => {
    const live = newLiveSource(cfg, store);
    const router = hallRouter(cfg, live, storePairings(store, tournamentId));
    const derived = new DerivedRows(store, (round) => store.round(tournamentId, round)?.id ?? null);
    const reconcile = (id: string, rederived?: boolean) => {
      const g = live.game(id);
      if (g) expect(derived.reconcile(g, g.round - 1, { rederived: rederived ?? false }).problems).toEqual([]);
    };
    const deps = { store, tournamentId, router, tables: [1, 2], reconcile, now: () => (clock += 1000) };
    return { live, router, reconcile, rounds: roundHandler(deps), handle: gameActionHandler(deps), list: gameAmendments(store, router) };
  };
  const h = { store, tournamentId, ...build() };
  const act = (gameId: string, kind: string, body: Record<string, unknown>) => {
    const parsed = parseArbiterAction(kind, { arbiter: 'IA Novak', ...body });
    if (!parsed.ok) throw new Error(parsed.error.message);
    return h.handle(gameId, parsed.value as ArbiterAction);
  };
  /** What a restart makes of the store. */
  const restarted = () => {
    const b = build();
    replayStore(store, b.router, [1, 2]);
    return b.live;
  };
  expect(h.rounds(1, { kind: 'start', arbiter: 'IA Novak', reason: 'round 1' }).ok).toBe(true);
  return { ...h, act, restarted };
}

function feed(store: Store, router: HallRouter, table: number, events: BoardEvent[], reconcile: (id: string) => void): void {
  const stored = store.appendRawEvents(events.map((event) => ({ tableNumber: table, boardSerial: null, monoMs: event.at, wallMs: event.at, event, raw: new Uint8Array(0) })));
  for (const e of stored) {
    const id = router.route(table, e.event!, e.id);
    if (id) reconcile(id);
  }
}

/** A game without the times that depend on when it was derived. */
const comparable = (g: GameState | undefined) => g && { ...g, clock: g.clock && { ...g.clock, readAt: 0 } };

describe('amendments with an audit trail, on a real store', () => {
  it('undoes a result: the game is derived again without it, the store row reopens, a restart gives the same; undoing the undo applies it again', () => {
    const h = hall();
    const t = new Table().dump();
    feed(h.store, h.router, 1, t.play('e2e4 e7e5 g1f3').take(), h.reconcile);
    // A client following the feed ends where the server is.
    const client = h.live.game('r1-t1')!;
    const off = h.live.subscribe((c) => c.gameId === 'r1-t1' && applyToGame(client, c));

    expect(h.act('r1-t1', 'result', { result: '1-0', reason: 'Black resigned' }).ok).toBe(true);
    expect(h.live.game('r1-t1')).toMatchObject({ status: 'finished', result: '1-0' });
    const setId = h.list('r1-t1')!.at(-1)!.id;
    expect(h.list('r1-t1')!.at(-1)).toMatchObject({ action: 'set-result', arbiter: 'IA Novak', reason: 'Black resigned', undone: false });

    const undone = h.act('r1-t1', 'undo', { amendment: setId, reason: 'wrong board: table 2 resigned' });
    expect(undone.ok && undone.value).toMatchObject({ status: 'live', result: '*', ply: 3 });
    expect(h.live.game('r1-t1')!.moves.map((m) => m.san)).toEqual(['e4', 'e5', 'Nf3']);
    expect(h.live.pgn('r1-t1')).toContain('[Result "*"]');
    const list = h.list('r1-t1')!;
    expect(list.find((a) => a.id === setId)).toMatchObject({ undone: true });
    const undoRow = list.at(-1)!;
    expect(undoRow).toMatchObject({ action: 'undo', undoes: setId, reason: 'wrong board: table 2 resigned', arbiter: 'IA Novak', undone: false });
    expect(typeof undoRow.at).toBe('number');
    const row = h.store.game(h.store.gameIdsAt(h.store.round(h.tournamentId, 1)!.id, 1)[0]!)!;
    expect(row).toMatchObject({ status: 'live', result: '*' });
    expect(comparable(client)).toEqual(comparable(h.live.game('r1-t1')));
    expect(comparable(h.restarted().game('r1-t1'))).toEqual(comparable(h.live.game('r1-t1')));

    // The board goes on after the undo.
    feed(h.store, h.router, 1, t.play('b8c6').take(), h.reconcile);
    expect(h.live.game('r1-t1')!.ply).toBe(4);

    // Refused: unknown, another game's, already undone.
    expect(h.act('r1-t1', 'undo', { amendment: 9999, reason: 'x' })).toMatchObject({ ok: false, error: { status: 409, code: 'no-such-amendment' } });
    expect(h.act('r1-t2', 'undo', { amendment: setId, reason: 'x' })).toMatchObject({ ok: false, error: { status: 409, code: 'other-game' } });
    expect(h.act('r1-t1', 'undo', { amendment: setId, reason: 'x' })).toMatchObject({ ok: false, error: { status: 409, code: 'already-undone' } });

    // Undo of the undo: the result stands again.
    expect(h.act('r1-t1', 'undo', { amendment: undoRow.id, reason: 'it was this board after all' }).ok).toBe(true);
    expect(h.live.game('r1-t1')).toMatchObject({ status: 'finished', result: '1-0' });
    expect(h.list('r1-t1')!.find((a) => a.id === setId)).toMatchObject({ undone: false });
    expect(comparable(client)).toEqual(comparable(h.live.game('r1-t1')));
    expect(comparable(h.restarted().game('r1-t1'))).toEqual(comparable(h.live.game('r1-t1')));
    off();
  });

  it('undoes a reinstate: the plies it took back are the game again, the board plays on, a restart agrees', () => {
    const h = hall();
    const t = new Table().dump();
    feed(h.store, h.router, 1, t.play('d2d4 d7d5 c2c4 e7e6').take(), h.reconcile);
    expect(h.act('r1-t1', 'reinstate', { ply: 2, reason: 'c4 was thought illegal' }).ok).toBe(true);
    expect(h.live.game('r1-t1')!.moves.map((m) => m.san)).toEqual(['d4', 'd5']);
    const id = h.list('r1-t1')!.at(-1)!.id;
    expect(h.act('r1-t1', 'undo', { amendment: id, reason: 'it was legal' }).ok).toBe(true);
    expect(h.live.game('r1-t1')!.moves.map((m) => m.san)).toEqual(['d4', 'd5', 'c4', 'e6']);
    feed(h.store, h.router, 1, t.play('b1c3').take(), h.reconcile);
    expect(h.live.game('r1-t1')!.moves.map((m) => m.san)).toEqual(['d4', 'd5', 'c4', 'e6', 'Nc3']);
    const storeId = h.store.gameIdsAt(h.store.round(h.tournamentId, 1)!.id, 1)[0]!;
    expect(h.store.moves(storeId).map((m) => m.san)).toEqual(['d4', 'd5', 'c4', 'e6', 'Nc3']);
    expect(comparable(h.restarted().game('r1-t1'))).toEqual(comparable(h.live.game('r1-t1')));
  });

  it('swaps colours in the read model and the PGN, after a restart too, and the undo swaps them back', () => {
    const h = hall();
    feed(h.store, h.router, 1, new Table().dump().play('d2d4 g8f6').take(), h.reconcile);
    expect(parseArbiterAction('swap-colours', {})).toMatchObject({ ok: false, error: { status: 400, message: expect.stringContaining('reason') as unknown } });
    const done = h.act('r1-t1', 'swap-colours', { reason: 'players sat at the wrong colours' });
    expect(done.ok && [done.value.white.name, done.value.black.name]).toEqual(['Bor Black', 'Ana White']);
    expect(h.live.pgn('r1-t1')).toContain('[White "Bor Black"]');
    expect(h.live.game('r1-t1')!.moves.map((m) => m.san)).toEqual(['d4', 'Nf6']);
    expect(h.restarted().game('r1-t1')).toMatchObject({ white: { name: 'Bor Black' }, black: { name: 'Ana White' } });
    const id = h.list('r1-t1')!.at(-1)!.id;
    expect(h.act('r1-t1', 'undo', { amendment: id, reason: 'they were right' }).ok).toBe(true);
    expect(h.live.game('r1-t1')).toMatchObject({ white: { name: 'Ana White' }, black: { name: 'Bor Black' } });
    expect(h.restarted().game('r1-t1')).toMatchObject({ white: { name: 'Ana White' }, black: { name: 'Bor Black' } });
  });

  it("corrects a clock reading as of a ply (its %clk) and as of now (the game's clock), replayed after a restart", () => {
    const h = hall();
    feed(h.store, h.router, 1, new Table().dump().play('e2e4 e7e5 g1f3').take(), h.reconcile);
    expect(h.live.game('r1-t1')!.moves[1]!.clockMs).toBe(5_390_000);
    expect(h.act('r1-t1', 'clock', { ply: 9, blackMs: 1, reason: 'x' })).toMatchObject({ ok: false, error: { status: 409, code: 'no-such-ply' } });
    expect(h.act('r1-t1', 'clock', { ply: 2, blackMs: 3_000_000, reason: 'clock was set wrong' }).ok).toBe(true);
    expect(h.live.game('r1-t1')!.moves[1]!.clockMs).toBe(3_000_000);
    expect(h.live.pgn('r1-t1')).toContain('e5 { [%clk 0:50:00]');
    expect(h.act('r1-t1', 'clock', { whiteMs: 4_000_000, blackMs: 3_000_000, reason: 'two minutes added' }).ok).toBe(true);
    expect(h.live.game('r1-t1')!.clock).toMatchObject({ whiteMs: 4_000_000, blackMs: 3_000_000 });
    const again = h.restarted().game('r1-t1')!;
    expect(again.moves[1]!.clockMs).toBe(3_000_000);
    expect(again.clock).toMatchObject({ whiteMs: 4_000_000, blackMs: 3_000_000 });
    expect(h.store.moves(h.store.gameIdsAt(h.store.round(h.tournamentId, 1)!.id, 1)[0]!)[1]!.clockMs).toBe(3_000_000);
  });

  it('marks a game Chess960 with its start position: derived again from that start, the PGN says so, after a restart too', () => {
    const h = hall();
    // The standard array played as Chess960 position 518.
    feed(h.store, h.router, 1, new Table().dump().play('e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1h1f1').take(), h.reconcile);
    expect(h.live.game('r1-t1')!.moves.at(-1)).toMatchObject({ san: 'O-O', uci: 'e1g1' });
    expect(parseArbiterAction('chess960', { position: 518, fen: 'x', reason: 'x' })).toMatchObject({ ok: false, error: { status: 400 } });
    expect(parseArbiterAction('chess960', { position: 518 })).toMatchObject({ ok: false, error: { status: 400 } });
    expect(h.act('r1-t1', 'chess960', { position: 518, reason: 'the pairing sheet says Chess960' }).ok).toBe(true);
    const g = h.live.game('r1-t1')!;
    expect(g.variant).toBe('chess960');
    expect(g.moves.map((m) => m.san)).toEqual(['e4', 'e5', 'Nf3', 'Nc6', 'Bc4', 'Nf6', 'O-O']);
    expect(g.moves.at(-1)!.uci).toBe('e1h1');
    expect(g.startFen).toBe('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1');
    expect(h.live.pgn('r1-t1')).toContain('[Variant "Chess960"]');
    expect(h.restarted().game('r1-t1')).toMatchObject({ variant: 'chess960', ply: 7 });
    // The other table is not touched; a start the board never showed leaves the game waiting for it.
    expect(h.live.game('r1-t2')!.variant).toBeUndefined();
    expect(h.act('r1-t1', 'chess960', { fen: 'bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1', reason: 'position 0 was drawn' }).ok).toBe(true);
    expect(h.live.game('r1-t1')).toMatchObject({ ply: 0, startFen: 'bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1' });
    const last = h.list('r1-t1')!.at(-1)!.id;
    expect(h.act('r1-t1', 'undo', { amendment: last, reason: 'no, it was 518' }).ok).toBe(true);
    expect(h.live.game('r1-t1')).toMatchObject({ ply: 7, variant: 'chess960' });
  });

  it("lists every decision in the game's replay timeline, whole-game ones and undos included, with who, why, its step and whether it was undone", () => {
    const h = hall();
    feed(h.store, h.router, 1, new Table().dump().play('e2e4 e7e5 g1f3 b8c6').take(), h.reconcile);
    expect(h.act('r1-t1', 'swap-colours', { reason: 'players sat the wrong way' }).ok).toBe(true);
    expect(h.act('r1-t1', 'clock', { ply: 2, blackMs: 5_000_000, reason: 'clock misread' }).ok).toBe(true);
    expect(h.act('r1-t1', 'result', { result: '1-0', reason: 'black resigned' }).ok).toBe(true);
    const result = h.list('r1-t1')!.at(-1)!.id;
    expect(h.act('r1-t1', 'undo', { amendment: result, reason: 'wrong game' }).ok).toBe(true);
    expect(h.act('r1-t1', 'chess960', { position: 518, reason: 'the pairing sheet says Chess960' }).ok).toBe(true);
    const tl = gameTimeline(h.store, cfg, 'r1-t1')!;
    expect(tl.amendments.map((a) => [a.action, a.by, a.reason, a.undone])).toEqual([
      ['swap-colours', 'IA Novak', 'players sat the wrong way', false],
      ['set-clock', 'IA Novak', 'clock misread', false],
      ['set-result', 'IA Novak', 'black resigned', true],
      ['undo', 'IA Novak', 'wrong game', false],
      ['chess960', 'IA Novak', 'the pairing sheet says Chess960', false],
    ]);
    expect(tl.amendments[0]!.text).toBe("the players' colours swapped");
    expect(tl.amendments[2]!.text).toBe('result 1-0');
    expect(tl.amendments[2]!.undoneBy).toBe(tl.amendments[3]!.id);
    expect(tl.amendments[3]!.text).toBe(`amendment #${result} undone`);
    expect(tl.amendments[4]!.text).toMatch(/^Chess960 from rnbqkbnr\//);
    // All were taken after the game's last event: at its last event step (the undone result's own step is gone).
    const lastEvent = tl.steps.filter((st) => st.kind === 'event').at(-1)!.index;
    for (const a of tl.amendments) expect(a.step).toBeGreaterThanOrEqual(lastEvent);
    // The other table's game has none.
    expect(gameTimeline(h.store, cfg, 'r1-t2')!.amendments).toEqual([]);
  });
});
