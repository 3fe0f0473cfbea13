import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SerialPortStream } from '@serialport/stream';
import { hangupAwareBinding } from '../../daemon/transport/hangup-aware-binding.ts';
import { DgtDecoder, encodeCommand, type BoardMessage } from '../../protocols/dgt/index.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { PtyDevice } from '../../daemon/simulation/pty-board.ts';
import { PtyPair, SOCAT_MISSING } from '../../daemon/transport/pty.ts';

const dir = mkdtempSync(join(tmpdir(), 'boardcast-emu-'));
const devices: PtyDevice[] = [];
afterAll(async () => {
  await Promise.all(devices.map((d) => d.close()));
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The driver's side: a real serial port on the pty, decoded with the codec. It reads through the
 * daemon's hang-up-aware binding: with serialport's own, a read issued just after data arrived
 * never hears the pty's master close, and the port's close can wait for ever (this test once hung
 * for 180 s in a loaded CI run).
 */
async function host(path: string) {
  const port = new SerialPortStream({ path, baudRate: 9600, autoOpen: false, binding: hangupAwareBinding() });
  const decoder = new DgtDecoder();
  const messages: BoardMessage[] = [];
  port.on('data', (chunk: Buffer) => {
    for (const f of decoder.push(new Uint8Array(chunk))) messages.push(f.message);
  });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  const until = async (pred: () => boolean, what: string): Promise<void> => {
    const end = Date.now() + 10_000;
    while (!pred()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(messages)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const send = (bytes: Uint8Array) => new Promise<void>((r) => port.write(Buffer.from(bytes), () => port.drain(() => r())));
  const close = () => new Promise<void>((r) => (port.isOpen ? port.close(() => r()) : r()));
  return { port, messages, until, send, close };
}

describe('emulator over a real pseudo-terminal (socat)', () => {
  it('answers a command written by the host, and survives the host closing and reopening', async () => {
    const emu = new BoardEmulator({ serial: '20001' });
    const dev = new PtyDevice(emu, join(dir, 'board1'), join(dir, 'board1.emu'));
    devices.push(dev);
    const opened = await dev.open();
    expect(opened).toMatchObject({ ok: true });

    const h = await host(dev.hostPath);
    await h.send(encodeCommand({ type: 'send-serial' }));
    await h.until(() => h.messages.length >= 1, 'serial number');
    expect(h.messages[0]).toEqual({ type: 'serial-number', serial: '20001' });
    await h.close();

    const h2 = await host(dev.hostPath);
    await h2.send(encodeCommand({ type: 'send-version' }));
    await h2.until(() => h2.messages.length >= 1, 'version');
    expect(h2.messages[0]).toEqual({ type: 'version', major: 1, minor: 8 });
    await h2.close();
  });

  it('remove and recreate: the device vanishes and comes back at the same path, powered up again', async () => {
    const emu = new BoardEmulator({ serial: '20002' });
    const dev = new PtyDevice(emu, join(dir, 'board2'), join(dir, 'board2.emu'));
    devices.push(dev);
    expect(await dev.open()).toMatchObject({ ok: true });
    const h = await host(dev.hostPath);
    const closed = new Promise<void>((r) => h.port.once('close', () => r()));
    await h.send(encodeCommand({ type: 'send-update-board' }));
    // The command crosses the pseudo-terminal: wait for the emulator to have taken it.
    for (const until = Date.now() + 5_000; emu.mode !== 'update-board' && Date.now() < until;) await new Promise((r) => setTimeout(r, 5));
    expect(emu.mode).toBe('update-board');
    await dev.remove();
    await closed; // the driver sees its device go away
    expect(emu.connected).toBe(false);
    expect(await dev.recreate()).toMatchObject({ ok: true });
    expect(emu.mode).toBe('idle');
    const h2 = await host(dev.hostPath);
    await h2.send(encodeCommand({ type: 'send-board' }));
    await h2.until(() => h2.messages.length >= 1, 'board dump');
    expect(h2.messages[0]?.type).toBe('board-dump');
    await h2.close();
  });

  it('a missing socat is reported with the install hint', async () => {
    const pair = new PtyPair(join(dir, 'x'), join(dir, 'x.emu'), { socatPath: '/nonexistent/socat' });
    expect(await pair.start()).toEqual({ ok: false, error: SOCAT_MISSING });
  });
});
