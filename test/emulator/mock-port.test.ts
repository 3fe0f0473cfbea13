import { afterEach, describe, expect, it } from 'vitest';
import { SerialPortMock } from 'serialport';
import { DgtDecoder, type BoardMessage } from '../../protocols/dgt/index.ts';
import { BoardEmulator } from '../../protocols/emulator/board-emulator.ts';
import { MockPortLink } from '../../daemon/emulation/mock-port.ts';
import { cmd } from './helpers.ts';

const links: MockPortLink[] = [];
afterEach(() => {
  for (const l of links.splice(0)) l.close();
  (SerialPortMock.binding as unknown as { reset(): void }).reset();
});

function openHost(path: string): Promise<{ port: SerialPortMock; messages: BoardMessage[]; next(n: number): Promise<BoardMessage[]> }> {
  const port = new SerialPortMock({ path, baudRate: 9600, autoOpen: false });
  const decoder = new DgtDecoder();
  const messages: BoardMessage[] = [];
  const waiters: (() => void)[] = [];
  port.on('data', (chunk: Buffer) => {
    for (const fr of decoder.push(new Uint8Array(chunk))) messages.push(fr.message);
    for (const w of waiters.splice(0)) w();
  });
  const next = (n: number) =>
    new Promise<BoardMessage[]>((resolve, reject) => {
      const timeout = setTimeout(() => reject(new Error(`only ${messages.length} messages`)), 5000);
      const check = () => {
        if (messages.length >= n) {
          clearTimeout(timeout);
          resolve(messages.slice(0, n));
        } else waiters.push(check);
      };
      check();
    });
  return new Promise((resolve, reject) => port.open((err) => (err ? reject(err) : resolve({ port, messages, next }))));
}

describe('MockPortLink: the emulator behind @serialport/binding-mock', () => {
  it('host writes reach the emulator and its answers come back as data', async () => {
    let t = 0;
    const emu = new BoardEmulator({ serial: '10002' });
    links.push(new MockPortLink(emu, '/dev/ttyEMU0', { now: () => t, pumpEveryMs: null }));
    const host = await openHost('/dev/ttyEMU0');
    await new Promise<void>((r) => host.port.write(Buffer.concat([Buffer.from(cmd('send-serial')), Buffer.from(cmd('send-version'))]), () => r()));
    expect(await host.next(2)).toEqual([
      { type: 'serial-number', serial: '10002' },
      { type: 'version', major: 1, minor: 8 },
    ]);
    t = 10;
    host.port.write(Buffer.from(cmd('send-update-board')));
    await new Promise((r) => setTimeout(r, 20));
    links[0]!.withDevice((d, at) => (d as BoardEmulator).act({ kind: 'lift', at, field: 52 }));
    expect((await host.next(3))[2]).toEqual({ type: 'field-update', field: 52, piece: 0 });
    host.port.close();
  });

  it('pumps real time: UPDATE mode clock messages arrive without host traffic', async () => {
    const emu = new BoardEmulator({ serial: '10003' });
    links.push(new MockPortLink(emu, '/dev/ttyEMU1', { pumpEveryMs: 10 }));
    const host = await openHost('/dev/ttyEMU1');
    host.port.write(Buffer.from(cmd('send-update')));
    const msgs = await host.next(2);
    expect(msgs.map((m) => m.type)).toEqual(['clock-times', 'clock-times']);
    host.port.close();
  });
});
