import { describe, expect, it } from 'vitest';
import { Chess } from 'chessops/chess';
import { parseFen } from 'chessops/fen';
import { parseSquare } from 'chessops/util';
import type { BoardEvent } from '../../protocols/board-events.ts';
import { DgtDecoder, encodeCommand, type HostCommand } from '../../protocols/dgt/index.ts';
import type { EepromEntry } from '../../protocols/dgt/eeprom.ts';
import { CATCH_UP_QUICK_GAP_MS, CATCH_UP_REST_GAP_MS, catchUpFromStart, fromStartCatchUpTimes, startOf, type CatchUpField } from '../../protocols/dgt/ee-catchup.ts';
import { PIECE, pieceToCode, squareToField, type DgtField, type PieceCode } from '../../protocols/dgt/squares.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { EEPROM_SIZE } from '../../daemon/simulation/emulator/eeprom-log.ts';
import type { PhysicalAction } from '../../daemon/simulation/emulator/physical.ts';
import { standardStartBoard } from '../../daemon/simulation/emulator/tabletop.ts';
import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import { LONG_GAME, gameActions } from './catchup-helpers.ts';

const f = (name: string): DgtField => squareToField(parseSquare(name)!);
const bytesOf = (cmds: HostCommand[]): Uint8Array => Uint8Array.from(cmds.flatMap((c) => [...encodeCommand(c)]));

/** A board nobody listens to: the players set it up and play; the host only comes at the end. */
class LoneBoard {
  readonly emu: BoardEmulator;
  now = 0;
  /** Mirror every field (63 - f): the board was put down turned round, White on the a8 side. */
  private readonly reversed: boolean;

  constructor(opts: { board?: PieceCode[]; reversed?: boolean; clock?: boolean } = {}) {
    this.reversed = opts.reversed ?? false;
    this.emu = new BoardEmulator({
      serial: '13579',
      clock: opts.clock ? { baseMs: 600_000, incrementMs: 0 } : null,
      ...(opts.board ? { board: opts.board } : {}),
    });
  }

  act(actions: readonly PhysicalAction[]): void {
    for (const a of actions) {
      const m = this.reversed && (a.kind === 'lift' || a.kind === 'place') ? { ...a, field: 63 - a.field } : a;
      this.now = Math.max(this.now, a.at);
      this.emu.act(m);
    }
    this.emu.takeOutput();
  }

  play(pos: Chess, sans: readonly string[], opts: { press?: boolean; stepMs?: number } = {}): void {
    const g = gameActions(pos, sans, this.now + 1_000, opts);
    this.act(g.actions);
    this.now = g.end;
  }

  /** Clears the board and sets `board` up, piece by piece, as players do between games. */
  setUp(board: readonly PieceCode[]): void {
    const have = this.emu.board();
    const actions: PhysicalAction[] = [];
    for (let i = 0; i < 64; i++) if (have[i] !== PIECE.EMPTY && have[i] !== board[i]) actions.push({ kind: 'lift', at: (this.now += 400), field: i });
    for (let i = 0; i < 64; i++) if (board[i] !== PIECE.EMPTY && have[i] !== board[i]) actions.push({ kind: 'place', at: (this.now += 400), field: i, piece: board[i]! });
    for (const a of actions) this.emu.act(a);
    this.emu.takeOutput();
  }

  /** What a host gets: the handshake dump, then the EEPROM log; real bytes, decoded. */
  download(between?: () => void): { entries: EepromEntry[]; dump: PieceCode[] } {
    const decoder = new DgtDecoder();
    let entries: EepromEntry[] = [];
    let dump: PieceCode[] = [];
    const read = (): void => {
      for (const { message } of decoder.push(this.emu.takeOutput())) {
        if (message.type === 'ee-moves') entries = message.entries;
        if (message.type === 'board-dump') dump = message.board;
      }
    };
    this.emu.receive(bytesOf([{ type: 'reset' }, { type: 'send-board' }]), (this.now += 100));
    read();
    between?.();
    this.emu.receive(bytesOf([{ type: 'send-ee-moves' }]), (this.now += 100));
    read();
    return { entries, dump };
  }
}

function boardOf(pos: Chess): PieceCode[] {
  const out = new Array<PieceCode>(64).fill(PIECE.EMPTY);
  for (const [sq, piece] of pos.board) out[squareToField(sq)] = pieceToCode(piece);
  return out;
}

function applied(board: readonly PieceCode[], fields: readonly { field: DgtField; piece: PieceCode }[]): PieceCode[] {
  const out = board.slice();
  for (const x of fields) out[x.field] = x.piece;
  return out;
}

/** What the session emits for a board met mid-game, fed to the engine: the moves it ends with. */
function engineMoves(start: PieceCode[], fields: readonly CatchUpField[], dump: PieceCode[], dumpAt = 1_000_000): { sans: string[]; incidents: string[]; kind: string | undefined; reversed: boolean } {
  const { startAt, times } = fromStartCatchUpTimes(fields, dumpAt);
  const events: BoardEvent[] = [
    { type: 'dump', at: startAt, board: start },
    ...fields.map((x, i): BoardEvent => ({ type: 'field', at: times[i]!, field: x.field, piece: x.piece })),
    { type: 'connection', at: dumpAt, connected: true },
    { type: 'dump', at: dumpAt, board: dump },
  ];
  const engine = new GameEngine({ rules: { edition: '2018', category: 'standard' } });
  for (const e of events) engine.push(e);
  const s = engine.snapshot();
  return { sans: s.moves.map((m) => m.san), incidents: s.incidents.map((i) => i.kind), kind: s.kind, reversed: s.reversed };
}

describe('catchUpFromStart: the game on a board the host never saw, from its EEPROM log', () => {
  it('recovers a whole game with captures, en passant, promotion and both castlings from the power-up listing', () => {
    const board = new LoneBoard({ clock: true });
    const pos = Chess.default();
    board.play(pos, LONG_GAME, { press: true });
    const { entries, dump } = board.download();
    expect(dump).toEqual(board.emu.board());
    expect(entries.some((e) => e.type === 'tag' && e.tag === 'powerup')).toBe(true);
    const r = catchUpFromStart(entries, dump);
    expect(r).toMatchObject({ ok: true, value: { base: 'listing', chess960Number: 518, reversed: false, after: 0 } });
    if (!r.ok) return;
    expect(r.value.start).toEqual(standardStartBoard());
    expect(applied(r.value.start, r.value.fields)).toEqual(dump);
    // Every move after the first begins after a lever press (a clock time in the log).
    expect(r.value.fields.filter((x) => x.pause)).toHaveLength(LONG_GAME.length - 1);
    const game = engineMoves(r.value.start, r.value.fields, dump);
    expect(game.sans).toEqual(LONG_GAME);
    expect(game.incidents).toEqual([]);
  });

  it('recovers a game on a board turned round (BEGINPOS_ROT, field 0 = h1)', () => {
    const board = new LoneBoard({ board: standardStartBoard().reverse(), reversed: true });
    const pos = Chess.default();
    board.play(pos, LONG_GAME.slice(0, 26));
    const { entries, dump } = board.download();
    expect(entries.some((e) => e.type === 'tag' && e.tag === 'beginpos-rot')).toBe(true);
    const r = catchUpFromStart(entries, dump);
    expect(r).toMatchObject({ ok: true, value: { reversed: true, chess960Number: 518 } });
    if (!r.ok) return;
    expect(r.value.start).toEqual(standardStartBoard().reverse());
    expect(applied(r.value.start, r.value.fields)).toEqual(dump);
    const game = engineMoves(r.value.start, r.value.fields, dump);
    expect(game.reversed).toBe(true);
    expect(game.sans).toEqual(LONG_GAME.slice(0, 26));
  });

  it('recovers a Chess960 game, which the board tags only as FOURROWS', () => {
    const sans = 'b3 b6 e4 e5 Nd3 Nd6 Ne3 f6 Nxe5 fxe5 Bxe5 Bxe4 Bxg7+ Rxg7'.split(' ');
    const pos = Chess.fromSetup(parseFen('bbnnrkrq/pppppppp/8/8/8/8/PPPPPPPP/BBNNRKRQ w EGeg - 0 1').unwrap()).unwrap();
    const start = boardOf(pos);
    const board = new LoneBoard({ board: start });
    board.play(pos, sans);
    const { entries, dump } = board.download();
    expect(entries.some((e) => e.type === 'tag' && e.tag === 'fourrows')).toBe(true);
    expect(entries.some((e) => e.type === 'tag' && (e.tag === 'beginpos' || e.tag === 'beginpos-rot'))).toBe(false);
    const r = catchUpFromStart(entries, dump);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.start).toEqual(start);
    expect(r.value.chess960Number).not.toBe(518);
    const game = engineMoves(r.value.start, r.value.fields, dump);
    expect(game.kind).toBe('chess960');
    expect(game.sans).toEqual(sans);
  });

  it('takes the last of several games in the log', () => {
    const board = new LoneBoard({ clock: true });
    const first = Chess.default();
    board.play(first, LONG_GAME.slice(0, 20), { press: true }); // with 9. gxh8=Q: an extra queen
    board.setUp(standardStartBoard());
    const second = Chess.default();
    const g2 = 'd4 Nf6 c4 e6 Nc3 Bb4 Qc2 O-O a3 Bxc3+ Qxc3 d5'.split(' ');
    board.play(second, g2, { press: true });
    board.setUp(standardStartBoard());
    const third = Chess.default();
    const g3 = LONG_GAME.slice(0, 9);
    board.play(third, g3, { press: true });
    const { entries, dump } = board.download();
    expect(entries.filter((e) => e.type === 'tag' && e.tag === 'beginpos')).toHaveLength(3);
    const r = catchUpFromStart(entries, dump);
    expect(r).toMatchObject({ ok: true, value: { base: 'listing' } });
    if (!r.ok) return;
    const game = engineMoves(r.value.start, r.value.fields, dump);
    expect(game.sans).toEqual(g3);
    expect(game.incidents).toEqual([]);
  });

  it('keeps the moves before knights that went out and came back (the start shown twice in one game)', () => {
    const board = new LoneBoard();
    const pos = Chess.default();
    const sans = ['Nf3', 'Nf6', 'Ng1', 'Ng8', 'Nc3', 'Nc6', 'Nb1', 'Nb8', ...LONG_GAME.slice(0, 12)];
    board.play(pos, sans);
    const { entries, dump } = board.download();
    const r = catchUpFromStart(entries, dump);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(engineMoves(r.value.start, r.value.fields, dump).sans).toEqual(sans);
  });

  it('replays from a BEGINPOS tag when the power-up listing was overwritten', () => {
    const board = new LoneBoard();
    const pos = Chess.default();
    board.play(pos, ['e4', 'e5', 'Nf3']);
    // Fidgeting with the knight until the log has wrapped: the power-up listing is gone.
    const fidget: PhysicalAction[] = [];
    for (let i = 0; i < 2_100; i++) fidget.push({ kind: 'lift', at: (board.now += 300), field: f('f3') }, { kind: 'place', at: (board.now += 300), field: f('f3'), piece: PIECE.WKNIGHT });
    board.act(fidget);
    board.setUp(standardStartBoard());
    const game = Chess.default();
    board.play(game, LONG_GAME.slice(0, 16));
    const { entries, dump } = board.download();
    expect(entries.some((e) => e.type === 'tag' && e.tag === 'powerup')).toBe(false);
    const r = catchUpFromStart(entries, dump);
    expect(r).toMatchObject({ ok: true, value: { base: 'tag' } });
    if (!r.ok) return;
    expect(engineMoves(r.value.start, r.value.fields, dump).sans).toEqual(LONG_GAME.slice(0, 16));
  });

  it('fails with the reason when the log holds no start position', () => {
    // Powered up in the middle of a game: the listing is known, but no start ever stood on it.
    const mid = Chess.default();
    new LoneBoard().play(mid, LONG_GAME.slice(0, 10));
    const board = new LoneBoard({ board: boardOf(mid) });
    board.play(mid, LONG_GAME.slice(10, 16));
    const a = board.download();
    const r = catchUpFromStart(a.entries, a.dump);
    expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/no start position/) });

    // A log that wrapped while a game went on: neither the listing nor a start tag is left.
    const long = new LoneBoard();
    const pos = Chess.default();
    long.play(pos, ['e4', 'e5', 'Nf3']);
    const fidget: PhysicalAction[] = [];
    for (let i = 0; i < 2_100; i++) fidget.push({ kind: 'lift', at: (long.now += 300), field: f('f3') }, { kind: 'place', at: (long.now += 300), field: f('f3'), piece: PIECE.WKNIGHT });
    long.act(fidget);
    long.play(pos, ['Nc6']);
    expect(long.emu.eeprom()).toHaveLength(EEPROM_SIZE);
    const b = long.download();
    expect(catchUpFromStart(b.entries, b.dump)).toMatchObject({ ok: false, error: expect.stringMatching(/neither a piece listing nor a start-position tag/) });

    // A log that does not lead to the dump (an update lost): said so, not guessed.
    const lossy = new LoneBoard();
    lossy.play(Chess.default(), LONG_GAME.slice(0, 6));
    const c = lossy.download();
    const wrongDump = c.dump.slice();
    wrongDump[f('a2')] = PIECE.EMPTY;
    expect(catchUpFromStart(c.entries, wrongDump)).toMatchObject({ ok: false, error: expect.stringMatching(/never gives the dump/) });
    expect(catchUpFromStart(c.entries, c.dump.slice(0, 10))).toMatchObject({ ok: false, error: expect.stringMatching(/10 squares/) });
    expect(catchUpFromStart([], c.dump)).toMatchObject({ ok: false });
  });

  it('stops at the dump: changes made while the log was being read come later, live', () => {
    const board = new LoneBoard();
    const pos = Chess.default();
    board.play(pos, LONG_GAME.slice(0, 8));
    // 5. gxh8=Q while the host asks for the log: three updates (h8 lifted, g7 lifted, queen on h8).
    const { entries, dump } = board.download(() => board.play(pos, LONG_GAME.slice(8, 9)));
    const r = catchUpFromStart(entries, dump);
    expect(r).toMatchObject({ ok: true, value: { after: 3 } });
    if (!r.ok) return;
    expect(applied(r.value.start, r.value.fields)).toEqual(dump);
    expect(engineMoves(r.value.start, r.value.fields, dump).sans).toEqual(LONG_GAME.slice(0, 8));
  });

  it('a dump that is itself a start: no changes', () => {
    const board = new LoneBoard();
    const { entries, dump } = board.download();
    expect(startOf(dump)).toEqual({ chess960Number: 518, reversed: false });
    expect(catchUpFromStart(entries, dump)).toMatchObject({ ok: true, value: { fields: [] } });
    expect(startOf(standardStartBoard().reverse())).toEqual({ chess960Number: 518, reversed: true });
    const noStart = standardStartBoard();
    noStart[f('e2')] = PIECE.EMPTY;
    expect(startOf(noStart)).toBeNull();
  });
});

describe('fromStartCatchUpTimes', () => {
  it('ends just before the dump with the catch-up gaps, the start first', () => {
    const fields = [
      { quick: false, pause: false },
      { quick: true, pause: false },
      { quick: true, pause: true },
      { quick: false, pause: false },
    ];
    const { startAt, times } = fromStartCatchUpTimes(fields, 10_000);
    const gaps = [times[0]! - startAt, ...times.slice(1).map((t, i) => t - times[i]!), 10_000 - times.at(-1)!];
    expect(gaps).toEqual([CATCH_UP_REST_GAP_MS, CATCH_UP_QUICK_GAP_MS, CATCH_UP_REST_GAP_MS, CATCH_UP_REST_GAP_MS, CATCH_UP_REST_GAP_MS]);
    expect(fromStartCatchUpTimes([], 500)).toEqual({ startAt: 500 - CATCH_UP_REST_GAP_MS, times: [] });
  });
});
