import { describe, expect, it } from 'vitest';
import { BYTE_TIME_MS, SerialWire } from '../../daemon/simulation/emulator/wire.ts';

const bytes = (n: number, from = 0) => Uint8Array.from({ length: n }, (_, i) => (from + i) & 0xff);

describe('a serial line at 9600 baud', () => {
  it('delivers a byte only once its ten bits have crossed the line', () => {
    const wire = new SerialWire();
    wire.send([{ at: 100, bytes: bytes(3) }]);
    expect([...wire.arrived(100)]).toEqual([]);
    expect([...wire.arrived(100 + BYTE_TIME_MS * 0.9)]).toEqual([]);
    expect([...wire.arrived(100 + BYTE_TIME_MS)]).toEqual([0]);
    expect([...wire.arrived(100 + 3 * BYTE_TIME_MS)]).toEqual([1, 2]);
    expect(wire.pending).toBe(0);
  });

  it('takes 8.3 s for a full EEPROM log, and what is sent meanwhile arrives after it', () => {
    const wire = new SerialWire();
    const log = bytes(0x1f00);
    const clockReading = Uint8Array.of(0x8d, 0, 10, 1, 2, 3, 4, 5, 6, 7);
    wire.send([{ at: 0, bytes: log }]);
    wire.send([{ at: 1000, bytes: clockReading }]);
    const firstSecond = wire.arrived(1000);
    expect(firstSecond.length).toBe(960);
    const rest = wire.arrived(8000);
    expect(firstSecond.length + rest.length).toBeLessThan(0x1f00);
    expect(wire.idleAt).toBeCloseTo((0x1f00 + 10) * BYTE_TIME_MS, 6);
    const tail = wire.arrived(wire.idleAt);
    const all = [...firstSecond, ...rest, ...tail];
    expect(all.length).toBe(0x1f00 + 10);
    expect(all.slice(0, 0x1f00)).toEqual([...log]);
    expect(all.slice(0x1f00)).toEqual([...clockReading]);
  });

  it('starts a message when it is sent once the line is free', () => {
    const wire = new SerialWire();
    wire.send([{ at: 0, bytes: bytes(2) }]);
    wire.send([{ at: 500, bytes: bytes(2, 10) }]);
    expect([...wire.arrived(499)]).toEqual([0, 1]);
    expect([...wire.arrived(500 + BYTE_TIME_MS)]).toEqual([10]);
    expect(wire.idleAt).toBeCloseTo(500 + 2 * BYTE_TIME_MS, 6);
  });

  it('loses what is on the line when it is cut', () => {
    const wire = new SerialWire();
    wire.send([{ at: 0, bytes: bytes(100) }]);
    expect(wire.arrived(10 * BYTE_TIME_MS).length).toBe(10);
    wire.cut();
    expect(wire.pending).toBe(0);
    wire.send([{ at: 200, bytes: bytes(1, 7) }]);
    expect([...wire.arrived(200 + BYTE_TIME_MS)]).toEqual([7]);
  });
});
