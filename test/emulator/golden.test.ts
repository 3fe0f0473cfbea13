import { describe, expect, it } from 'vitest';
import { encodeBusCommand } from '../../protocols/dgt/bus.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { EmulatedBus } from '../../daemon/simulation/emulator/emulated-bus.ts';
import { parseScriptFile } from '../../daemon/simulation/script-file.ts';
import { clockCmd, cmd, hex } from './helpers.ts';

/** Exact bytes, worked out by hand from dgtbrd.h, for the answers not pinned elsewhere. */
describe('golden bytes', () => {
  const updating = () => {
    const emu = new BoardEmulator({ serial: '00100', clock: { baseMs: 60_000, incrementMs: 0 } });
    emu.receive(cmd('send-update-nice'), 0);
    emu.advanceTo(300);
    emu.takeOutput();
    return emu;
  };

  it('clock ACK for BEEP: ack0 0x10, ack1 0x0b, marker nibbles 0x0a in bytes 3 and 6', () => {
    const emu = updating();
    emu.receive(clockCmd({ type: 'beep', units: 1 }), 300);
    expect(hex(emu.takeOutput())).toBe('8d 00 0a 0a 10 0b 0a 00 00 00');
  });

  it('button PLUS: ack1 0x88 carries its top bit in byte 6 bit 5, ack3 0x32', () => {
    const emu = updating();
    emu.pressButton('plus', 400);
    expect(hex(emu.takeOutput())).toBe('8d 00 0a 0a 10 08 2a 00 32 00');
  });

  it('SETNRUN outside what the clock accepts (short content) is an error ACK, ack0 0x40', () => {
    const emu = updating();
    emu.receive(Uint8Array.of(0x2b, 0x04, 0x03, 0x0a, 0x01, 0x00), 400);
    expect(hex(emu.takeOutput())).toBe('8d 00 0a 0a 40 0a 0a 00 00 00');
  });

  it('a clock frame with a wrong size byte is not a clock command: its bytes are dropped one by one, no ACK', () => {
    const emu = updating();
    // size 2 < 3: 2b is dropped, then 02 03 0b 00 start nothing (as the codec's CommandDecoder reads it)
    emu.receive(Uint8Array.of(0x2b, 0x02, 0x03, 0x0b, 0x00), 400);
    expect(hex(emu.takeOutput())).toBe('');
    expect(emu.counters.junkBytes).toBe(5);
    expect(emu.beepMs).toBe(0);
  });

  it('field update and battery status', () => {
    const emu = updating();
    emu.act({ kind: 'lift', at: 500, field: 52 });
    expect(hex(emu.takeOutput())).toBe('8e 00 05 34 00');
    emu.receive(cmd('send-battery'), 500);
    expect(hex(emu.takeOutput())).toBe('a0 00 0c 64 7f 7f 00 00 00 00 00 00');
  });

  it('EE_MOVES of a board with one piece: NOP×3, POWERUP, the piece, EOF', () => {
    const board = new Array(64).fill(0);
    board[60] = 5; // white king on e1
    const emu = new BoardEmulator({ serial: '00100', board });
    emu.receive(cmd('send-ee-moves'), 0);
    expect(hex(emu.takeOutput())).toBe('8f 00 0a 7f 7f 7f 6a 45 3c 6b');
  });

  it('bus VERSION reply with checksum', () => {
    const emu = new BoardEmulator({ serial: '00100', busMode: true });
    emu.receive(encodeBusCommand({ type: 'send-version' }, 100), 0);
    expect(hex(emu.takeOutput())).toBe('89 00 08 00 64 01 08 7e');
  });
});

describe('one host write mixing single-board and bus commands', () => {
  // 4d SEND_VERSION; 87 00 64 6b PING 100 (switches to bus mode, not answered); 83 00 a SEND_CHANGES
  // cut short by the next id byte; 87 00 64 6b PING 100 (answered); 82 00 64 67 SEND_BRD with a bad
  // checksum (66 is right); 8c 00 64 70 an id dgtbrd.h does not define; 45 RETURN_SERIALNR (back
  // to single-board mode, answered).
  const burst = '4d 87 00 64 6b 83 00 87 00 64 6b 82 00 64 67 8c 00 64 70 45';
  const expected = '93 00 05 01 08 87 00 06 00 64 71 91 00 08 30 30 31 30 30';
  const bytes = Uint8Array.from(burst.split(' ').map((b) => Number.parseInt(b, 16)));

  it('in one read: each command handled in its mode, problems counted', () => {
    const emu = new BoardEmulator({ serial: '00100' });
    emu.receive(bytes, 0);
    expect(hex(emu.takeOutput())).toBe(expected);
    expect(emu.busMode).toBe(false);
    expect(emu.counters).toEqual({ junkBytes: 2, badChecksums: 1, lostWhileUnplugged: 0 });
  });

  it('byte by byte: the same answers', () => {
    const emu = new BoardEmulator({ serial: '00100' });
    for (const b of bytes) emu.receive(Uint8Array.of(b), 0);
    expect(hex(emu.takeOutput())).toBe(expected);
    expect(emu.counters).toEqual({ junkBytes: 2, badChecksums: 1, lostWhileUnplugged: 0 });
  });
});

describe('EmulatedBus collisions', () => {
  it('two boards in the same ping slot collide: counted, and the later reply waits for the wire', () => {
    // 100 and 111 are both slot 1 (address % 11)
    const line = new EmulatedBus([100, 111].map((a) => new BoardEmulator({ serial: String(a).padStart(5, '0'), busMode: true })));
    line.receive(encodeBusCommand({ type: 'ping' }, 0), 0);
    line.advanceTo(2000);
    const out = line.takeTimedOutput();
    expect(out.map((c) => c.at)).toEqual([100, 100 + 6 * (10_000 / 9600)]);
    expect(line.collisions).toBe(1);
  });
});

describe('script files', () => {
  it('reads an action array or a {board, clock, actions} object, skipping bad actions with a reason', () => {
    expect(parseScriptFile('[{"kind":"lift","at":5,"field":12}]')).toEqual({ ok: true, value: { script: { actions: [{ kind: 'lift', at: 5, field: 12 }] }, skipped: [] } });
    const r = parseScriptFile(
      JSON.stringify({
        clock: { baseMs: 1000, incrementMs: 0 },
        actions: [
          { kind: 'press', at: 1, by: 'white' },
          { kind: 'place', at: 2, field: 70, piece: 1 },
          { kind: 'button', at: 3, button: 'ok' },
          { kind: 'clock-adjust', at: 4, by: 'black', ms: 120_000 },
          { kind: 'clock-adjust', at: 5, by: 'black' },
        ],
      }),
    );
    expect(r).toMatchObject({
      ok: true,
      value: { script: { clock: { baseMs: 1000, incrementMs: 0 }, actions: [{ kind: 'press' }, { kind: 'button' }, { kind: 'clock-adjust', by: 'black', ms: 120_000 }] } },
    });
    expect(r.ok && r.value.skipped.length).toBe(2);
    expect(r.ok && r.value.skipped[0]).toBe('action 1: {"kind":"place","at":2,"field":70,"piece":1}');
    expect(r.ok && r.value.skipped[1]).toMatch(/^action 4: /);
    expect(parseScriptFile('nope')).toMatchObject({ ok: false });
    expect(parseScriptFile('{"x":1}')).toEqual({ ok: false, error: 'expected an array of actions or an object with "actions"' });
  });
});
