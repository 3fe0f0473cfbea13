import { afterEach, describe, expect, it } from 'vitest';
import { DgtDecoder, type BoardMessage } from '../../protocols/dgt/index.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { EmulatorBinding, type EmulatedLine } from '../../daemon/simulation/emulator-binding.ts';
import { DGT_SERIAL_SETTINGS, type PortStream } from '../../daemon/transport/serial-transport.ts';
import { cmd } from './helpers.ts';

const lines: EmulatedLine[] = [];
afterEach(() => {
  for (const l of lines.splice(0)) l.close();
});

interface Host {
  port: PortStream;
  messages: BoardMessage[];
  /** Resolves once `n` messages have arrived (data events drive it: no timers). */
  next(n: number): Promise<BoardMessage[]>;
  closed: Promise<Error | null>;
  write(bytes: Uint8Array): Promise<void>;
}

function openHost(binding: EmulatorBinding, path: string): Promise<Host> {
  const port = binding.portFactory({ ...DGT_SERIAL_SETTINGS, path, autoOpen: false });
  const decoder = new DgtDecoder();
  const messages: BoardMessage[] = [];
  const waiters: (() => void)[] = [];
  port.on('data', (chunk: Buffer) => {
    for (const fr of decoder.push(new Uint8Array(chunk))) messages.push(fr.message);
    for (const w of waiters.splice(0)) w();
  });
  port.on('error', () => undefined);
  const closed = new Promise<Error | null>((resolve) => port.on('close', (e: Error | null) => resolve(e)));
  const next = (n: number) =>
    new Promise<BoardMessage[]>((resolve) => {
      const check = (): void => {
        if (messages.length >= n) resolve(messages.slice(0, n));
        else waiters.push(check);
      };
      check();
    });
  const write = (bytes: Uint8Array) => new Promise<void>((resolve, reject) => port.write(Buffer.from(bytes), (e) => (e ? reject(e) : resolve())));
  return new Promise((resolve, reject) => port.open((err) => (err ? reject(err) : resolve({ port, messages, next, closed, write }))));
}

describe('the emulator as a serialport binding', () => {
  it('host writes reach the emulated board and its answers come back through serialport’s own stream', async () => {
    const binding = new EmulatorBinding();
    let t = 0;
    const emu = new BoardEmulator({ serial: '10002' });
    const line = binding.plug('/dev/ttyEMU0', emu, { now: () => t, pumpEveryMs: null });
    lines.push(line);
    const host = await openHost(binding, '/dev/ttyEMU0');
    await host.write(Uint8Array.from([...cmd('send-serial'), ...cmd('send-version')]));
    expect(await host.next(2)).toEqual([
      { type: 'serial-number', serial: '10002' },
      { type: 'version', major: 1, minor: 8 },
    ]);
    await host.write(cmd('send-update-board'));
    t = 10;
    line.withDevice((d, at) => (d as BoardEmulator).act({ kind: 'lift', at, field: 52 }));
    expect((await host.next(3))[2]).toEqual({ type: 'field-update', field: 52, piece: 0 });
    expect(line.written.slice(0, cmd('send-serial').length)).toEqual([...cmd('send-serial')]);
    expect(await binding.list()).toEqual([expect.objectContaining({ path: '/dev/ttyEMU0' })]);
    host.port.close();
    expect(await host.closed).toBeNull();
  });

  it('pumps real time: UPDATE mode clock messages arrive without host traffic', async () => {
    const binding = new EmulatorBinding();
    lines.push(binding.plug('/dev/ttyEMU1', new BoardEmulator({ serial: '10003' }), { pumpEveryMs: 10 }));
    const host = await openHost(binding, '/dev/ttyEMU1');
    await host.write(cmd('send-update'));
    const msgs = await host.next(2);
    expect(msgs.map((m) => m.type)).toEqual(['clock-times', 'clock-times']);
    host.port.close();
  });

  it('a board pulled out closes the open port as disconnected, cannot be opened, and opens again once back', async () => {
    const binding = new EmulatorBinding();
    const line = binding.plug('/dev/ttyEMU2', new BoardEmulator({ serial: '10004' }), { now: () => 0, pumpEveryMs: null });
    lines.push(line);
    const host = await openHost(binding, '/dev/ttyEMU2');
    line.unplug();
    const why = await host.closed;
    expect(why?.message).toMatch(/EIO/);
    expect(await binding.list()).toEqual([]);
    await expect(openHost(binding, '/dev/ttyEMU2')).rejects.toThrow(/ENOENT/);
    line.plugIn();
    const again = await openHost(binding, '/dev/ttyEMU2');
    await again.write(cmd('send-serial'));
    expect(await again.next(1)).toEqual([{ type: 'serial-number', serial: '10004' }]);
    expect(line.opens).toBe(2);
    again.port.close();
  });

  it('noise put on the line reaches the host between the board’s frames', async () => {
    const binding = new EmulatorBinding();
    const line = binding.plug('/dev/ttyEMU3', new BoardEmulator({ serial: '10005' }), { now: () => 0, pumpEveryMs: null });
    lines.push(line);
    const host = await openHost(binding, '/dev/ttyEMU3');
    const bytes: number[] = [];
    host.port.on('data', (c: Buffer) => bytes.push(...c));
    line.inject([0x00, 0xff]);
    await host.write(cmd('send-serial'));
    await host.next(1);
    expect(bytes.slice(0, 2)).toEqual([0x00, 0xff]);
    host.port.close();
  });
});
