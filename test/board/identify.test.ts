import { describe, expect, it } from 'vitest';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { identifyBoard } from '../../daemon/board/identify.ts';
import { SerialTransport } from '../../daemon/transport/serial-transport.ts';
import { EmulatedMockPort, ManualTimers, mockPortFactory } from './helpers.ts';

describe('identifyBoard', () => {
  it('reads serial, long serial and version from a DGT board without changing its mode', async () => {
    const timers = new ManualTimers();
    const emulator = new BoardEmulator({ serial: '24680', version: { major: 1, minor: 12 } });
    const port = new EmulatedMockPort(emulator, () => timers.now());
    const result = await identifyBoard(new SerialTransport(port.path, port.factory), { timers });
    expect(result).toEqual({ path: port.path, dgt: true, serial: '24680', longSerial: '0000024680', version: { major: 1, minor: 12 } });
    expect(port.written).toEqual([0x45, 0x55, 0x4d]);
    expect(emulator.mode).toBe('idle');
  });

  it('says why a port is not a DGT board: silence until the timeout, or no such device', async () => {
    const timers = new ManualTimers();
    const silent = new BoardEmulator({ serial: '1' });
    silent.act({ kind: 'unplug', at: 0 });
    const port = new EmulatedMockPort(silent, () => timers.now());
    const pending = identifyBoard(new SerialTransport(port.path, port.factory), { timers, timeoutMs: 1_000 });
    await timers.advance(1_100);
    expect(await pending).toMatchObject({ dgt: false, reason: expect.stringMatching(/no DGT answer within 1000 ms/) });
    const missing = await identifyBoard(new SerialTransport('/dev/ttyNOPE', mockPortFactory), { timers });
    expect(missing).toMatchObject({ dgt: false, reason: expect.stringMatching(/cannot open/) });
  });
});
