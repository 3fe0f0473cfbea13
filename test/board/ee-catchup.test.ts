import { describe, expect, it } from 'vitest';
import { Chess } from 'chessops/chess';
import { parseSquare } from 'chessops/util';
import { parseSan } from 'chessops/san';
import { DgtDecoder, encodeCommand, type HostCommand } from '../../protocols/dgt/index.ts';
import { encodeEeprom, parseEeprom, type EepromEntry } from '../../protocols/dgt/eeprom.ts';
import { CATCH_UP_QUICK_GAP_MS, CATCH_UP_REST_GAP_MS, catchUpFromEeprom, spreadCatchUpTimes, type CatchUpAnchor, type CatchUpField } from '../../protocols/dgt/ee-catchup.ts';
import { PIECE, squareToField, type DgtField, type PieceCode } from '../../protocols/dgt/squares.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { EEPROM_SIZE } from '../../daemon/simulation/emulator/eeprom-log.ts';
import type { PhysicalAction } from '../../daemon/simulation/emulator/physical.ts';
import { standardStartBoard } from '../../daemon/simulation/emulator/tabletop.ts';
import { LONG_GAME, SHUFFLE_GAME, gameActions, moveActions } from './catchup-helpers.ts';
import { caughtUpEvents } from '../../daemon/board/catch-up-events.ts';
import type { ClockEvent } from '../../daemon/board/clock-sides.ts';

const f = (name: string): DgtField => squareToField(parseSquare(name)!);
const bytesOf = (cmds: HostCommand[]): Uint8Array => {
  const parts = cmds.map(encodeCommand);
  return Uint8Array.from(parts.flatMap((p) => [...p]));
};

/**
 * A host on the wire of an emulated board: it keeps the board from the dump and the field updates
 * it decodes, as a session does, and can stop listening (link gone) while the board plays on.
 */
class Table {
  readonly emu: BoardEmulator;
  private readonly decoder = new DgtDecoder();
  board: PieceCode[] = [];
  seen: { field: DgtField; piece: PieceCode; at: number }[] = [];
  lastAt = 0;
  private listening = false;
  now = 0;

  constructor(opts: { clock?: boolean } = {}) {
    this.emu = new BoardEmulator({ serial: '24680', clock: opts.clock ? { baseMs: 600_000, incrementMs: 0 } : null });
  }

  connect(): void {
    this.listening = true;
    this.emu.receive(bytesOf([{ type: 'reset' }, { type: 'send-board' }, { type: 'send-update-nice' }]), this.now);
    this.read();
  }

  private lost: 'link' | 'power' | 'host' = 'host';

  /**
   * The host loses the board: 'link', the serial link drops while the board keeps its power (it
   * logs on); 'power', the USB cable is pulled (the board is off, it logs nothing); 'host', the
   * host just stops reading (a daemon crash).
   */
  drop(how: 'link' | 'power' | 'host'): void {
    this.read();
    this.listening = false;
    this.lost = how;
    if (how === 'link') this.emu.act({ kind: 'link-down', at: this.now });
    if (how === 'power') this.emu.act({ kind: 'unplug', at: this.now });
  }

  /** The link (or the cable, and with it the power) is back. */
  plug(): void {
    this.emu.act({ kind: this.lost === 'power' ? 'plug' : 'link-up', at: (this.now += 1_000) });
  }

  act(actions: readonly PhysicalAction[]): void {
    for (const a of actions) {
      this.now = Math.max(this.now, a.at);
      this.emu.act(a);
      this.read();
    }
  }

  play(pos: Chess, sans: readonly string[], opts: { press?: boolean } = {}): void {
    const g = gameActions(pos, sans, this.now + 1_000, opts);
    this.act(g.actions);
    this.now = g.end;
  }

  anchor(recent = 16): CatchUpAnchor {
    return { board: this.board.slice(), recentFields: this.seen.slice(-recent).map(({ field, piece }) => ({ field, piece })), lastAt: this.lastAt };
  }

  /** Reconnects and catches up as the session does, taking the caught-up changes as seen. */
  reconnectAndCatchUp(): ReturnType<typeof catchUpFromEeprom> {
    const anchor = this.anchor();
    const { entries, dump } = this.download();
    const r = catchUpFromEeprom(anchor, entries, dump);
    if (r.ok) for (const x of r.value.fields) this.seen.push({ field: x.field, piece: x.piece, at: this.now });
    this.connect();
    return r;
  }

  /** SEND_EE_MOVES then SEND_BRD, as a host does after reconnecting; the real bytes, decoded. */
  download(): { entries: EepromEntry[]; dump: PieceCode[] } {
    this.emu.receive(bytesOf([{ type: 'send-ee-moves' }, { type: 'send-board' }]), (this.now += 100));
    let entries: EepromEntry[] = [];
    let dump: PieceCode[] = [];
    for (const { message } of this.decoder.push(this.emu.takeOutput())) {
      if (message.type === 'ee-moves') entries = message.entries;
      if (message.type === 'board-dump') dump = message.board;
    }
    return { entries, dump };
  }

  private read(): void {
    for (const chunk of this.emu.takeTimedOutput()) {
      if (!this.listening) continue;
      for (const { message } of this.decoder.push(chunk.bytes)) {
        if (message.type === 'board-dump') this.board = message.board.slice();
        if (message.type === 'field-update') {
          this.board[message.field] = message.piece;
          this.seen.push({ field: message.field, piece: message.piece, at: chunk.at });
        }
        this.lastAt = chunk.at;
      }
    }
  }
}

function applied(board: readonly PieceCode[], fields: readonly { field: DgtField; piece: PieceCode }[]): PieceCode[] {
  const out = board.slice();
  for (const x of fields) out[x.field] = x.piece;
  return out;
}

/** The changes one ply makes after `before` were played from the start. */
function changesAfterPly(before: readonly string[], san: string): { field: DgtField; piece: PieceCode }[] {
  const pos = Chess.default();
  for (const b of before) pos.play(parseSan(pos, b)!);
  return changesOf(pos, [san]);
}

/** The changes `sans` make on the board from `pos`, as a tidy player's hands make them. */
function changesOf(pos: Chess, sans: readonly string[]): { field: DgtField; piece: PieceCode }[] {
  const p = pos.clone();
  const emu = new BoardEmulator({ serial: '00001', clock: null });
  const out: { field: DgtField; piece: PieceCode }[] = [];
  let t = 0;
  // Put the position on a fresh board first, then record the moves' changes only.
  const start = emu.board();
  const want = new Array<PieceCode>(64).fill(PIECE.EMPTY);
  for (const [sq, piece] of p.board) want[squareToField(sq)] = ((piece.color === 'white' ? 0 : 6) + ['pawn', 'rook', 'knight', 'bishop', 'king', 'queen'].indexOf(piece.role) + 1) as PieceCode;
  for (let i = 0; i < 64; i++) if (start[i] !== want[i]) emu.act(want[i] === PIECE.EMPTY ? { kind: 'lift', at: t, field: i } : { kind: 'place', at: t, field: i, piece: want[i]! });
  for (const san of sans) {
    const m = moveActions(p, san, (t += 1_000), 300);
    for (const a of m.actions) {
      const before = emu.board();
      emu.act(a);
      const after = emu.board();
      for (let i = 0; i < 64; i++) if (before[i] !== after[i]) out.push({ field: i, piece: after[i]! });
    }
    t = m.end;
  }
  return out;
}

const strip = (fields: readonly CatchUpField[]) => fields.map(({ field, piece }) => ({ field, piece }));

describe('catchUpFromEeprom on a real emulated board log', () => {
  it('recovers a 34-ply outage with en passant, promotion, both castlings and captures, anchored', () => {
    const table = new Table();
    table.connect();
    const pos = Chess.default();
    table.play(pos, LONG_GAME.slice(0, 6));
    const anchor = table.anchor();
    const atOutage = pos.clone();
    table.drop('link');
    table.play(pos, LONG_GAME.slice(6));
    table.plug();
    const { entries, dump } = table.download();
    expect(dump).toEqual(table.emu.board());
    expect(dump).not.toEqual(anchor.board);
    const r = catchUpFromEeprom(anchor, entries, dump);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.how).toBe('anchored');
    expect(r.value.matched).toBe(anchor.recentFields.length);
    // Exactly the changes of the 34 missed plies, in order.
    expect(strip(r.value.fields)).toEqual(changesOf(atOutage, LONG_GAME.slice(6)));
    expect(applied(anchor.board, r.value.fields)).toEqual(dump);
  });

  it('a USB pull (power lost): the log holds no missed move, the power-up listing states the board found, later moves follow', () => {
    const table = new Table({ clock: true });
    table.connect();
    const pos = Chess.default();
    table.play(pos, LONG_GAME.slice(0, 8), { press: true });
    const anchor = table.anchor();
    table.drop('power');
    table.play(pos, LONG_GAME.slice(8, 14), { press: true });
    const found = table.emu.board();
    table.plug();
    // Powered up IDLE, nobody listening: the next move is logged (after the listing) but not sent.
    table.play(pos, LONG_GAME.slice(14, 15), { press: true });
    const { entries, dump } = table.download();
    const r = catchUpFromEeprom(anchor, entries, dump);
    expect(r).toMatchObject({ ok: true, value: { how: 'anchored', matched: 16 } });
    if (!r.ok) return;
    // The six plies made while it was off are one whole board, the listing's (squares it did not
    // name are empty); the ply after the power-up is changes again.
    expect(r.value.boards).toEqual([{ before: 0, board: found }]);
    expect(strip(r.value.fields)).toEqual(changesAfterPly(LONG_GAME.slice(0, 14), LONG_GAME[14]!));
    expect(applied(found, r.value.fields)).toEqual(dump);
    // The presses logged: the host's last ply's (after the last change it saw) and that ply's; the
    // six made while the board was off are not.
    expect(r.value.presses.map((p) => p.before)).toEqual([0, r.value.fields.length]);
    // Nor does anything logged before the listing tell the other side's time at the later press:
    // that side pressed while the board was off. The press still goes out (it tells who pressed),
    // with the last time seen of that side, marked partial: no move takes it as its reading.
    expect(r.value.poweredUp).toBe(true);
    expect(r.value.presses[1]!.otherMs).toBeNull();
    const stale: ClockEvent = { type: 'clock', at: 0, whiteMs: 299_000, blackMs: 298_000, running: 'white', whiteFlag: false, blackFlag: false };
    const events = caughtUpEvents(r.value, spreadCatchUpTimes(r.value.fields, 0, 60_000), { lastAt: 0, dumpAt: 60_000 }, 'left', stale);
    const clocks = events.filter((e) => e.type === 'clock');
    expect(clocks).toHaveLength(2);
    // The host's last ply's press: both times from the log.
    expect(clocks[0]).toMatchObject({ blackMs: r.value.presses[0]!.ms, whiteMs: r.value.presses[0]!.otherMs });
    expect(clocks[0]).not.toHaveProperty('partial');
    // The press after the listing: White's own time from the log, Black's the last seen, partial.
    expect(clocks[1]).toMatchObject({ whiteMs: r.value.presses[1]!.ms, blackMs: r.value.presses[0]!.ms, partial: true });
  });

  it('recovers moves made while the host was gone but the board stayed powered (daemon crash)', () => {
    const table = new Table({ clock: true });
    table.connect();
    const pos = Chess.default();
    table.play(pos, LONG_GAME.slice(0, 10), { press: true });
    const anchor = table.anchor();
    const atOutage = pos.clone();
    table.drop('host');
    table.play(pos, LONG_GAME.slice(10, 22), { press: true });
    const { entries, dump } = table.download();
    const r = catchUpFromEeprom(anchor, entries, dump);
    expect(r).toMatchObject({ ok: true, value: { how: 'anchored' } });
    if (!r.ok) return;
    expect(strip(r.value.fields)).toEqual(changesOf(atOutage, LONG_GAME.slice(10, 22)));
    // Every move after the first starts after a lever press, logged as a clock time.
    const pauses = r.value.fields.filter((x) => x.pause).length;
    expect(pauses).toBe(12);
    expect(entries.some((e) => e.type === 'clock')).toBe(true);
  });

  it('ends the catch-up at the dump when pieces moved while the log was being asked for', () => {
    const table = new Table({ clock: true });
    table.connect();
    const pos = Chess.default();
    table.play(pos, LONG_GAME.slice(0, 10), { press: true });
    const anchor = table.anchor();
    const atOutage = pos.clone();
    table.drop('host');
    table.play(pos, LONG_GAME.slice(10, 22), { press: true });
    // The reconnecting host has its dump; two more plies are played before the log is read.
    const decoder = new DgtDecoder();
    table.emu.takeOutput();
    table.emu.receive(bytesOf([{ type: 'send-board' }]), (table.now += 100));
    const dump = decoder.push(table.emu.takeOutput()).flatMap(({ message }) => (message.type === 'board-dump' ? [message.board] : []))[0]!;
    table.play(pos, LONG_GAME.slice(22, 24), { press: true });
    table.emu.receive(bytesOf([{ type: 'send-ee-moves' }]), (table.now += 100));
    const entries = decoder.push(table.emu.takeOutput()).flatMap(({ message }) => (message.type === 'ee-moves' ? message.entries : []));
    const r = catchUpFromEeprom(anchor, entries, dump);
    expect(r).toMatchObject({ ok: true, value: { how: 'anchored' } });
    if (!r.ok) return;
    // Exactly the changes up to the dump: the later two plies reach the host live.
    expect(strip(r.value.fields)).toEqual(changesOf(atOutage, LONG_GAME.slice(10, 22)));
    expect(applied(anchor.board, r.value.fields)).toEqual(dump);
  });

  it('picks the occurrence of a repeated position the host really stopped at', () => {
    const table = new Table();
    table.connect();
    const pos = Chess.default();
    // The host sees 1.e4 e5 2.Nf3 Nf6 3.Ng1 Ng8; the board then repeats 4.Nf3 Nf6 5.Ng1 Ng8 and goes on.
    table.play(pos, SHUFFLE_GAME.slice(0, 6));
    const anchor = table.anchor();
    const atOutage = pos.clone();
    table.drop('link');
    table.play(pos, SHUFFLE_GAME.slice(6));
    table.plug();
    const { entries, dump } = table.download();
    const r = catchUpFromEeprom(anchor, entries, dump);
    expect(r).toMatchObject({ ok: true, value: { how: 'anchored', matched: 12 } });
    if (!r.ok) return;
    // The later occurrence (after 5...Ng8) would also turn the board into the dump: the repetition
    // must not be skipped.
    expect(strip(r.value.fields)).toEqual(changesOf(atOutage, SHUFFLE_GAME.slice(6)));
    expect(r.value.fields).toHaveLength(4 * 2 + 2 + 2);
    // Without the host's fields, the shortest replay skips the repetition: why the anchor matters.
    const blind = catchUpFromEeprom({ ...anchor, recentFields: [] }, entries, dump);
    expect(blind).toMatchObject({ ok: true, value: { how: 'shortest' } });
    if (blind.ok) expect(blind.value.fields).toHaveLength(4);
  });

  it('steps over an earlier power-up listing the host never saw', () => {
    const table = new Table();
    table.connect();
    const pos = Chess.default();
    table.play(pos, SHUFFLE_GAME.slice(0, 4));
    // First outage, the cable pulled with nothing moved: the board powers up again (a listing in
    // its log), and the host reconnects without a catch-up.
    table.drop('power');
    table.plug();
    table.connect();
    table.play(pos, SHUFFLE_GAME.slice(4, 6)); // 3.Ng1 Ng8: 4 fields after the listing
    const anchor = table.anchor();
    table.drop('link');
    table.play(pos, SHUFFLE_GAME.slice(6, 8)); // 4.Nf3 Nf6 — the same 4 fields as 2.Nf3 Nf6 …
    table.play(pos, SHUFFLE_GAME.slice(8, 10)); // 5.Ng1 Ng8 — … and the same 4 as 3.Ng1 Ng8
    table.play(pos, SHUFFLE_GAME.slice(10, 11));
    table.plug();
    const { entries, dump } = table.download();
    const r = catchUpFromEeprom(anchor, entries, dump);
    expect(r).toMatchObject({ ok: true, value: { how: 'anchored' } });
    if (!r.ok) return;
    // 4 fields after the first listing plus 8 before it: longer than the later 4-field repeat.
    expect(r.value.matched).toBe(12);
    expect(r.value.fields).toHaveLength(10);
  });

  it("anchors a second outage across the first one's catch-up", () => {
    const table = new Table();
    table.connect();
    const pos = Chess.default();
    table.play(pos, SHUFFLE_GAME.slice(0, 2));
    table.drop('link');
    table.play(pos, SHUFFLE_GAME.slice(2, 4));
    table.plug();
    const first = table.reconnectAndCatchUp();
    expect(first).toMatchObject({ ok: true, value: { how: 'anchored' } });
    table.play(pos, SHUFFLE_GAME.slice(4, 5)); // 3.Ng1 live
    const anchor = table.anchor();
    const atOutage = pos.clone();
    table.drop('link');
    table.play(pos, SHUFFLE_GAME.slice(5, 11)); // 3...Ng8 4.Nf3 Nf6 5.Ng1 Ng8 6.Nc3
    table.plug();
    const { entries, dump } = table.download();
    const r = catchUpFromEeprom(anchor, entries, dump);
    // The host's fields run: live 1.e4 e5, caught-up 2.Nf3 Nf6, live 3.Ng1; in the log the
    // download tag lies between them.
    expect(r).toMatchObject({ ok: true, value: { how: 'anchored', matched: 10 } });
    if (r.ok) expect(strip(r.value.fields)).toEqual(changesOf(atOutage, SHUFFLE_GAME.slice(5, 11)));
    expect(entries.some((e) => e.type === 'tag' && e.tag === 'downloaded')).toBe(true);
  });

  it('anchors in a log that wrapped around (oldest entries overwritten)', () => {
    const table = new Table();
    table.connect();
    // Fidgeting with a knight until the log has wrapped more than once.
    const actions: PhysicalAction[] = [];
    let t = 1_000;
    for (let i = 0; i < 2_500; i++) {
      actions.push({ kind: 'lift', at: (t += 300), field: f('g1') }, { kind: 'place', at: (t += 300), field: f('g1'), piece: PIECE.WKNIGHT });
    }
    table.act(actions);
    table.now = t;
    expect(table.emu.eeprom()).toHaveLength(EEPROM_SIZE);
    const pos = Chess.default();
    table.play(pos, LONG_GAME.slice(0, 4));
    const anchor = table.anchor();
    const atOutage = pos.clone();
    table.drop('link');
    table.play(pos, LONG_GAME.slice(4, 20));
    table.plug();
    const { entries, dump } = table.download();
    const r = catchUpFromEeprom(anchor, entries, dump);
    expect(r).toMatchObject({ ok: true, value: { how: 'anchored' } });
    if (r.ok) expect(strip(r.value.fields)).toEqual(changesOf(atOutage, LONG_GAME.slice(4, 20)));
  });

  it('says why when the missed changes are older than the log', () => {
    const table = new Table();
    table.connect();
    const pos = Chess.default();
    table.play(pos, ['e4']);
    const anchor = table.anchor();
    table.drop('link');
    table.play(pos, ['e5']);
    // …then enough fidgeting to push 1...e5 out of the log.
    const actions: PhysicalAction[] = [];
    let t = table.now;
    for (let i = 0; i < 2_100; i++) {
      actions.push({ kind: 'lift', at: (t += 300), field: f('b1') }, { kind: 'place', at: (t += 300), field: f('b1'), piece: PIECE.WKNIGHT });
    }
    table.act(actions);
    table.plug();
    const { entries, dump } = table.download();
    const r = catchUpFromEeprom(anchor, entries, dump);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/overwritten|never logged/);
  });

  it('falls back to the shortest replay when the host fields are not in the log, and fails on a foreign board', () => {
    const table = new Table();
    table.connect();
    const pos = Chess.default();
    table.play(pos, LONG_GAME.slice(0, 4));
    const anchor = table.anchor();
    const atOutage = pos.clone();
    table.drop('link');
    table.play(pos, LONG_GAME.slice(4, 8));
    table.plug();
    const { entries, dump } = table.download();
    const foreignFields = [{ field: f('a4'), piece: PIECE.BQUEEN }];
    const r = catchUpFromEeprom({ ...anchor, recentFields: foreignFields }, entries, dump);
    expect(r).toMatchObject({ ok: true, value: { how: 'shortest', matched: 0 } });
    if (r.ok) expect(strip(r.value.fields)).toEqual(changesOf(atOutage, LONG_GAME.slice(4, 8)));

    // A host board this log never produced: a white queen on a5 that nothing removes.
    const foreign = anchor.board.slice();
    foreign[f('a5')] = PIECE.WQUEEN;
    const bad = catchUpFromEeprom({ ...anchor, board: foreign }, entries, dump);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/1 square/);
  });

  it('keeps a result piece put down while the host was away', () => {
    const table = new Table();
    table.connect();
    const pos = Chess.default();
    table.play(pos, LONG_GAME.slice(0, 2));
    const anchor = table.anchor();
    table.drop('link');
    table.play(pos, LONG_GAME.slice(2, 4));
    table.act([{ kind: 'place', at: table.now + 5_000, field: f('d4'), piece: PIECE.DRAW }]);
    table.plug();
    const { entries, dump } = table.download();
    expect(dump[f('d4')]).toBe(PIECE.DRAW);
    const r = catchUpFromEeprom(anchor, entries, dump);
    expect(r).toMatchObject({ ok: true, value: { how: 'anchored' } });
    if (r.ok) expect(strip(r.value.fields).at(-1)).toEqual({ field: f('d4'), piece: PIECE.DRAW });
  });
});

describe('catchUpFromEeprom on hand-made logs', () => {
  const start = standardStartBoard();
  const fu = (square: string, piece: PieceCode, quick = false): EepromEntry => ({ type: 'field-update', field: f(square), piece, quick });
  const e4: EepromEntry[] = [fu('e2', PIECE.EMPTY), fu('e4', PIECE.WPAWN, true)];
  const afterE4 = applied(start, [
    { field: f('e2'), piece: PIECE.EMPTY },
    { field: f('e4'), piece: PIECE.WPAWN },
  ]);

  it('an empty log: nothing to do when the boards agree, a clear failure when they do not', () => {
    const anchor: CatchUpAnchor = { board: start, recentFields: [], lastAt: 0 };
    expect(catchUpFromEeprom(anchor, [], start)).toEqual({ ok: true, value: { fields: [], presses: [], boards: [], how: 'shortest', matched: 0, poweredUp: false } });
    const r = catchUpFromEeprom(anchor, parseEeprom([0x6b]), afterE4);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/no field updates/);
  });

  it('ignores clock times, tags and unknown bytes for the board but keeps their order, and marks pauses', () => {
    const bytes = encodeEeprom([
      { type: 'tag', tag: 'beginpos' },
      ...e4,
      { type: 'clock', side: 'left', hours: 1, minutes: 29, seconds: 50 },
      { type: 'unknown', byte: 0x7d },
      fu('e7', PIECE.EMPTY),
      fu('e5', PIECE.BPAWN, true),
      { type: 'tag', tag: 'eof' },
    ]);
    const r = catchUpFromEeprom(
      { board: start, recentFields: [], lastAt: 0 },
      parseEeprom(bytes),
      applied(afterE4, [
        { field: f('e7'), piece: PIECE.EMPTY },
        { field: f('e5'), piece: PIECE.BPAWN },
      ]),
    );
    expect(r).toMatchObject({ ok: true, value: { how: 'shortest' } });
    if (!r.ok) return;
    expect(r.value.fields).toEqual([
      { field: f('e2'), piece: PIECE.EMPTY, quick: false, pause: true },
      { field: f('e4'), piece: PIECE.WPAWN, quick: true, pause: false },
      { field: f('e7'), piece: PIECE.EMPTY, quick: false, pause: true },
      { field: f('e5'), piece: PIECE.BPAWN, quick: true, pause: false },
    ]);
  });

  it('rejects boards that are not 64 piece codes, with the reason', () => {
    const anchor: CatchUpAnchor = { board: start.slice(0, 63), recentFields: [], lastAt: 0 };
    const r = catchUpFromEeprom(anchor, e4, afterE4);
    expect(r).toEqual({ ok: false, error: 'the host board has 63 squares, not 64' });
    const r2 = catchUpFromEeprom({ ...anchor, board: start }, e4, [...afterE4.slice(0, 63), 99 as PieceCode]);
    expect(r2.ok).toBe(false);
  });

  it('prefers the longest match of the host fields, then the latest', () => {
    // 1.e4, then g1-f3 and back twice; the host saw up to the second Nf3.
    const out = [fu('g1', PIECE.EMPTY), fu('f3', PIECE.WKNIGHT)];
    const back = [fu('f3', PIECE.EMPTY), fu('g1', PIECE.WKNIGHT)];
    const log = [...e4, ...out, ...back, ...out, ...back, ...out];
    const host = [...e4, ...out, ...back, ...out].map((e) => (e.type === 'field-update' ? { field: e.field, piece: e.piece } : { field: 0, piece: 0 as PieceCode }));
    const atF3 = applied(afterE4, [
      { field: f('g1'), piece: PIECE.EMPTY },
      { field: f('f3'), piece: PIECE.WKNIGHT },
    ]);
    const r = catchUpFromEeprom({ board: atF3, recentFields: host, lastAt: 0 }, log, atF3);
    // Anchored after the host's 6 fields: the board's later out-and-back is caught up even though
    // the boards already agree.
    expect(r).toMatchObject({ ok: true, value: { how: 'anchored', matched: 8 } });
    if (r.ok) expect(r.value.fields).toHaveLength(4);
    // With only the last two host fields both Nf3s match equally: the later one wins.
    const r2 = catchUpFromEeprom({ board: atF3, recentFields: host.slice(-2), lastAt: 0 }, log, atF3);
    expect(r2).toMatchObject({ ok: true, value: { how: 'anchored', matched: 2, fields: [] } });
  });
});

describe('spreadCatchUpTimes', () => {
  const field = (quick: boolean, pause = false) => ({ quick, pause });

  it('keeps quick steps under the engine release time and rests above it, inside the interval', () => {
    const fields = [field(false, true), field(true), field(true), field(true), field(false, true), field(false), field(true)];
    const lastAt = 10_000;
    const dumpAt = 70_000;
    const t = spreadCatchUpTimes(fields, lastAt, dumpAt);
    expect(t).toHaveLength(fields.length);
    const all = [lastAt, ...t, dumpAt];
    for (let i = 1; i < all.length; i++) expect(all[i]!).toBeGreaterThan(all[i - 1]!);
    expect(t[1]! - t[0]!).toBe(CATCH_UP_QUICK_GAP_MS);
    expect(t[3]! - t[0]!).toBeLessThan(250);
    expect(t[5]! - t[4]!).toBe(CATCH_UP_REST_GAP_MS);
    // The spare minute goes to the pauses: before the first change, at the lever press, before the dump.
    expect(t[0]! - lastAt).toBeGreaterThan(15_000);
    expect(t[4]! - t[3]!).toBeGreaterThan(15_000);
    expect(dumpAt - t[6]!).toBeGreaterThan(15_000);
    expect(t.every(Number.isInteger)).toBe(true);
  });

  it('without lever presses every rest shares the spare time', () => {
    const t = spreadCatchUpTimes([field(false), field(true), field(false), field(true)], 0, 10_000);
    expect(t[1]! - t[0]!).toBe(CATCH_UP_QUICK_GAP_MS);
    expect(t[2]! - t[1]!).toBeGreaterThan(2_000);
    expect(t[3]!).toBeLessThan(10_000);
  });

  it('shrinks every gap alike in a short interval, and ends before the dump when the clock went back', () => {
    const fields = [field(false), field(true), field(false), field(true)];
    const short = spreadCatchUpTimes(fields, 1_000, 1_100);
    const all = [1_000, ...short, 1_100];
    for (let i = 1; i < all.length; i++) expect(all[i]!).toBeGreaterThan(all[i - 1]!);
    const back = spreadCatchUpTimes(fields, 5_000, 4_000);
    expect(back.at(-1)!).toBeLessThan(4_000);
    for (let i = 1; i < back.length; i++) expect(back[i]!).toBeGreaterThan(back[i - 1]!);
    expect(spreadCatchUpTimes([], 0, 10)).toEqual([]);
  });
});
