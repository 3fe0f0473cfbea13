import { afterEach, describe, expect, it } from 'vitest';
import { SerialTransport, type PortStream } from '../../daemon/transport/serial-transport.ts';
import { mockBinding as MockBinding, mockPortFactory, settle } from './helpers.ts';

interface MockPortBinding {
  openOptions: Record<string, unknown>;
  recording: Buffer;
  emitData(data: Buffer): void;
}

/** The binding-level port under a transport's stream, to play the device side. */
function bindingOf(streams: PortStream[]): MockPortBinding {
  const stream = streams.at(-1) as unknown as { port: MockPortBinding };
  return stream.port;
}

describe('SerialTransport over the mock binding', () => {
  afterEach(() => MockBinding.reset());

  const recordingFactory = () => {
    const streams: PortStream[] = [];
    const factory = (o: Parameters<typeof mockPortFactory>[0]) => {
      const s = mockPortFactory(o);
      streams.push(s);
      return s;
    };
    return { streams, factory };
  };

  it('opens at 9600 8N1 without flow control, writes, receives and closes once', async () => {
    MockBinding.createPort('/dev/ttyFAKE0', { record: true });
    const { streams, factory } = recordingFactory();
    const t = new SerialTransport('/dev/ttyFAKE0', factory);
    const chunks: number[][] = [];
    const closes: (Error | null)[] = [];
    t.on('data', (c) => chunks.push([...c]));
    t.on('close', (r) => closes.push(r));
    await t.open();
    const binding = bindingOf(streams);
    expect(binding.openOptions).toMatchObject({ baudRate: 9600, dataBits: 8, stopBits: 1, parity: 'none', rtscts: false, xon: false, xoff: false });
    await t.write(Uint8Array.of(0x40, 0x42));
    expect([...binding.recording]).toEqual([0x40, 0x42]);
    binding.emitData(Buffer.from([0x8e, 0x00, 0x05, 0x1c, 0x01]));
    for (let i = 0; i < 50 && chunks.flat().length < 5; i++) await settle(1);
    expect(chunks.flat()).toEqual([0x8e, 0x00, 0x05, 0x1c, 0x01]);
    await t.close();
    await t.close();
    expect(closes).toEqual([null]);
    await expect(t.write(Uint8Array.of(0x40))).rejects.toThrow(/not open/);
  });

  it('reports a failed open as a rejected promise, not a crash', async () => {
    const t = new SerialTransport('/dev/ttyMISSING', mockPortFactory);
    await expect(t.open()).rejects.toThrow(/does not exist/);
  });

  it('reports a read error (device gone) as close with the reason', async () => {
    MockBinding.createPort('/dev/ttyFAKE1');
    const { streams, factory } = recordingFactory();
    const t = new SerialTransport('/dev/ttyFAKE1', factory);
    const closed = new Promise<Error | null>((resolve) => t.on('close', resolve));
    await t.open();
    t.on('data', () => {});
    const binding = bindingOf(streams) as unknown as { pendingRead: ((err?: Error) => void) | null };
    // The stream starts reading once data is wanted: wait for its read to be pending.
    for (let i = 0; i < 50 && typeof binding.pendingRead !== 'function'; i++) await settle(1);
    expect(binding.pendingRead).toBeTypeOf('function');
    binding.pendingRead?.(new Error('EIO: device removed'));
    const reason = await closed;
    expect(reason?.message).toMatch(/device removed/);
  });
});
