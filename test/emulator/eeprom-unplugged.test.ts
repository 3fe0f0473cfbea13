import { describe, expect, it } from 'vitest';
import { parseSquare } from 'chessops/util';
import { parseEeprom } from '../../protocols/dgt/eeprom.ts';
import { PIECE, squareToField } from '../../protocols/dgt/squares.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { ask, cmd } from './helpers.ts';

const f = (name: string): number => squareToField(parseSquare(name)!);

describe('EEPROM log while the cable is out', () => {
  it('logs field changes and lever presses as when plugged, and hands them over after the plug', () => {
    const emu = new BoardEmulator({ serial: '00271', clock: { baseMs: 60_000, incrementMs: 0 } });
    emu.act({ kind: 'press', at: 500, by: 'black' }); // White's clock starts: nothing halted, nothing logged
    emu.act({ kind: 'unplug', at: 800 });
    emu.act({ kind: 'lift', at: 1_000, field: f('e2') });
    emu.act({ kind: 'place', at: 1_100, field: f('e4'), piece: PIECE.WPAWN });
    emu.act({ kind: 'press', at: 3_500, by: 'white' });
    emu.act({ kind: 'lift', at: 6_000, field: f('e7') });
    const before = emu.eeprom().length;
    emu.act({ kind: 'plug', at: 7_000 });
    expect(emu.eeprom().length).toBeGreaterThan(before); // the plug is a power-up, logged too
    const [msg] = ask(emu, cmd('send-ee-moves'), 7_100);
    if (msg?.type !== 'ee-moves') throw new Error(`expected EE_MOVES, got ${msg?.type}`);
    const i = msg.entries.findIndex((e) => e.type === 'field-update' && e.field === f('e2') && e.piece === PIECE.EMPTY);
    expect(msg.entries.slice(i, i + 4)).toEqual([
      { type: 'field-update', piece: PIECE.EMPTY, field: f('e2'), quick: false },
      { type: 'field-update', piece: PIECE.WPAWN, field: f('e4'), quick: true },
      // White's time when the lever halted it: 60 s − 3 s.
      { type: 'clock', side: 'left', hours: 0, minutes: 0, seconds: 57 },
      { type: 'field-update', piece: PIECE.EMPTY, field: f('e7'), quick: false },
    ]);
    expect(msg.entries.at(-1)).toEqual({ type: 'tag', tag: 'eof' });
    expect(parseEeprom(emu.eeprom()).at(-1)).toEqual({ type: 'tag', tag: 'downloaded' });
  });
});
