import { describe, expect, it } from 'vitest';
import { parseSquare } from 'chessops/util';
import { parseEeprom, type EepromEntry } from '../../protocols/dgt/eeprom.ts';
import { PIECE, squareToField } from '../../protocols/dgt/squares.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { ask, cmd } from './helpers.ts';

const f = (name: string): number => squareToField(parseSquare(name)!);

/** The log's entries from the last POWERUP on (the power-up listing and what followed). */
function sinceLastPowerUp(entries: readonly EepromEntry[]): EepromEntry[] {
  const i = entries.findLastIndex((e) => e.type === 'tag' && e.tag === 'powerup');
  return entries.slice(i);
}

/** One ply out of the start: 1.e4, White pressing 3 s later. */
function e4(emu: BoardEmulator, from: number): void {
  emu.act({ kind: 'lift', at: from, field: f('e2') });
  emu.act({ kind: 'place', at: from + 100, field: f('e4'), piece: PIECE.WPAWN });
  emu.act({ kind: 'press', at: from + 2_500, by: 'white' });
}

describe('the two kinds of outage, as a real board lives them', () => {
  it('link lost, board powered: field changes and lever presses logged as when linked, handed over afterwards', () => {
    const emu = new BoardEmulator({ serial: '00271', clock: { baseMs: 60_000, incrementMs: 0 } });
    emu.act({ kind: 'press', at: 500, by: 'black' }); // White's clock starts: nothing halted, nothing logged
    emu.act({ kind: 'link-down', at: 800 });
    expect(emu.connected).toBe(false);
    expect(emu.powered).toBe(true);
    e4(emu, 1_000);
    emu.act({ kind: 'lift', at: 6_000, field: f('e7') });
    const before = emu.eeprom().length;
    emu.act({ kind: 'link-up', at: 7_000 });
    // The board never lost its power: no power-up, nothing new in the log.
    expect(emu.eeprom()).toHaveLength(before);
    const [msg] = ask(emu, cmd('send-ee-moves'), 7_100);
    if (msg?.type !== 'ee-moves') throw new Error(`expected EE_MOVES, got ${msg?.type}`);
    const i = msg.entries.findIndex((e) => e.type === 'field-update' && e.field === f('e2') && e.piece === PIECE.EMPTY);
    expect(msg.entries.slice(i)).toEqual([
      { type: 'field-update', piece: PIECE.EMPTY, field: f('e2'), quick: false },
      { type: 'field-update', piece: PIECE.WPAWN, field: f('e4'), quick: true },
      // White's time when the lever halted it: 60 s − 3 s (3.5 s shown rounded up, as the face does).
      { type: 'clock', side: 'left', hours: 0, minutes: 0, seconds: 57 },
      { type: 'field-update', piece: PIECE.EMPTY, field: f('e7'), quick: false },
      { type: 'tag', tag: 'eof' },
    ]);
    expect(parseEeprom(emu.eeprom()).at(-1)).toEqual({ type: 'tag', tag: 'downloaded' });
  });

  it('link lost, board powered: it keeps its mode and streams again as soon as the link is back', () => {
    const emu = new BoardEmulator({ serial: '00272' });
    ask(emu, cmd('send-update-nice'), 0);
    emu.act({ kind: 'link-down', at: 100 });
    emu.act({ kind: 'lift', at: 200, field: f('g1') });
    expect(emu.takeOutput()).toHaveLength(0);
    emu.act({ kind: 'link-up', at: 300 });
    expect(emu.mode).toBe('update-nice');
    emu.act({ kind: 'place', at: 400, field: f('f3'), piece: PIECE.WKNIGHT });
    expect(ask(emu, new Uint8Array(), 400)).toEqual([{ type: 'field-update', field: f('f3'), piece: PIECE.WKNIGHT }]);
  });

  it('USB cable pulled: the board is off, logs nothing of the moves made meanwhile, and powers up IDLE with a listing', () => {
    const emu = new BoardEmulator({ serial: '00273', clock: { baseMs: 60_000, incrementMs: 0 } });
    ask(emu, cmd('send-update-nice'), 0);
    emu.act({ kind: 'press', at: 500, by: 'black' });
    emu.act({ kind: 'unplug', at: 800 });
    emu.takeOutput();
    expect(emu.powered).toBe(false);
    const before = emu.eeprom().length;
    e4(emu, 1_000);
    expect(emu.eeprom()).toHaveLength(before);
    emu.act({ kind: 'plug', at: 7_000 });
    expect(emu.mode).toBe('idle');
    const entries = parseEeprom(emu.eeprom());
    const listing = sinceLastPowerUp(entries);
    // POWERUP, then every piece found in field order: the pawn on e4, none on e2; no clock time.
    expect(listing[0]).toEqual({ type: 'tag', tag: 'powerup' });
    const listed = listing.filter((e) => e.type === 'field-update');
    expect(listed).toHaveLength(32);
    expect(listed.some((e) => e.type === 'field-update' && e.field === f('e4') && e.piece === PIECE.WPAWN)).toBe(true);
    expect(listed.some((e) => e.type === 'field-update' && e.field === f('e2'))).toBe(false);
    expect(entries.slice(0, entries.length - listing.length).some((e) => e.type === 'clock')).toBe(false);
    // The clock ran on its own batteries: White's press still counted.
    expect(emu.clockDisplay()).toEqual({ kind: 'times' });
    const clock = ask(emu, cmd('send-clock'), 7_000).at(-1);
    expect(clock).toMatchObject({ type: 'clock-times', status: { running: true, rightToMove: true } });
  });

  it('power lost with the serial link kept open: the host sees no close, the board comes back IDLE and silent', () => {
    const emu = new BoardEmulator({ serial: '00274' });
    ask(emu, cmd('send-update-nice'), 0);
    emu.act({ kind: 'power-off', at: 100 });
    expect(emu.linked).toBe(true);
    expect(emu.connected).toBe(false);
    emu.act({ kind: 'lift', at: 200, field: f('e2') });
    emu.act({ kind: 'place', at: 300, field: f('e4'), piece: PIECE.WPAWN });
    emu.act({ kind: 'power-on', at: 1_000 });
    expect(emu.connected).toBe(true);
    expect(emu.mode).toBe('idle');
    // Idle: a move is logged but not sent…
    emu.act({ kind: 'lift', at: 2_000, field: f('e7') });
    expect(ask(emu, new Uint8Array(), 2_000)).toEqual([]);
    const after = sinceLastPowerUp(parseEeprom(emu.eeprom()));
    expect(after.at(-1)).toEqual({ type: 'field-update', field: f('e7'), piece: PIECE.EMPTY, quick: false });
    // …yet the board answers a dump request, piece in hand and all.
    const [dump] = ask(emu, cmd('send-board'), 2_100);
    if (dump?.type !== 'board-dump') throw new Error('no dump');
    expect(dump.board[f('e4')]).toBe(PIECE.WPAWN);
    expect(dump.board[f('e7')]).toBe(PIECE.EMPTY);
  });
});
