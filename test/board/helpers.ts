import type { Timers } from '../../daemon/board/timers.ts';
import { mockBinding, mockPortFactory, type PortFactory, type PortStream } from '../../daemon/transport/serial-transport.ts';

/** Manually advanced time for the session's timers; I/O between steps runs on the real event loop. */
export class ManualTimers implements Timers {
  private t = 0;
  private seq = 0;
  private readonly queue = new Map<number, { at: number; fn: () => void }>();
  /** Called after time moved (the emulator follows the same clock). */
  onAdvance: (now: number) => void = () => {};

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.queue.set(id, { at: this.t + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.queue.delete(handle as number);
  }

  pending(): number {
    return this.queue.size;
  }

  /** Moves time forward in steps of at most `stepMs`, firing due timers and letting I/O settle. */
  async advance(ms: number, stepMs = 50): Promise<void> {
    const target = this.t + ms;
    while (this.t < target) {
      const next = Math.min(target, this.t + stepMs, this.nextDue() ?? Number.POSITIVE_INFINITY);
      this.t = Math.max(this.t, next);
      this.onAdvance(this.t);
      await settle();
      for (const [id, entry] of [...this.queue].sort((a, b) => a[1].at - b[1].at || a[0] - b[0])) {
        if (entry.at > this.t || !this.queue.has(id)) continue;
        this.queue.delete(id);
        entry.fn();
        await settle();
      }
    }
  }

  private nextDue(): number | null {
    let min: number | null = null;
    for (const { at } of this.queue.values()) if (min === null || at < min) min = at;
    return min;
  }
}

/** Lets promise chains, nextTicks and the mock binding's reads run. */
export async function settle(rounds = 8): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

/** The board side: BoardEmulator or EmulatedBus. */
export interface EmulatedDevice {
  receive(bytes: Uint8Array, at: number): void;
  advanceTo(at: number): void;
  takeOutput(): Uint8Array;
}

interface MockPortBinding {
  isOpen: boolean;
  write(buffer: Buffer): Promise<void>;
  emitData(data: Buffer): void;
  pendingRead: ((err?: Error) => void) | null;
}

let portCounter = 0;

/**
 * Puts an emulated board behind a @serialport/binding-mock port: host writes go to the emulator,
 * its output comes back as received data. The device can be removed (reads fail, opens fail)
 * and recreated, like a USB board being pulled and plugged back.
 */
export class EmulatedMockPort {
  readonly path = `/dev/ttyEMU${++portCounter}`;
  /** Every byte the host wrote, across connections. */
  readonly written: number[] = [];
  /** While set, host writes fail like a write to a vanished device. */
  failWrites = false;
  /** Rewrites output before it reaches the host (to inject corruption). */
  tamper: ((bytes: Uint8Array) => Uint8Array) | null = null;
  private present = true;
  private binding: MockPortBinding | null = null;
  private stream: PortStream | null = null;
  opens = 0;

  constructor(
    readonly device: EmulatedDevice,
    private readonly now: () => number,
  ) {
    mockBinding.createPort(this.path);
  }

  readonly factory: PortFactory = (options) => {
    // A removed device: opening fails the way the OS reports a missing node.
    const stream = mockPortFactory(this.present ? options : { ...options, path: `${options.path}-removed` });
    stream.on('open', () => {
      this.opens++;
      this.stream = stream;
      this.attach((stream as unknown as { port: MockPortBinding }).port);
    });
    return stream;
  };

  /** Lets emulated time pass and delivers whatever the board sent meanwhile. */
  tick(at: number): void {
    this.device.advanceTo(at);
    this.deliver();
  }

  /** Bytes on the line that the board did not send (noise, a half frame). */
  inject(bytes: ArrayLike<number>): void {
    if (this.binding?.isOpen) this.binding.emitData(Buffer.from(Array.from(bytes)));
  }

  /** The device node disappears: the pending read fails, further opens fail. */
  remove(): void {
    this.present = false;
    const binding = this.binding;
    this.binding = null;
    if (binding?.pendingRead) binding.pendingRead(new Error('EIO: device removed'));
    else (this.stream as unknown as { _disconnected?: (e: Error) => void })?._disconnected?.(new Error('EIO: device removed'));
  }

  recreate(): void {
    this.present = true;
  }

  private attach(binding: MockPortBinding): void {
    this.binding = binding;
    const write = binding.write.bind(binding);
    binding.write = async (buffer: Buffer) => {
      if (this.failWrites) throw new Error('EIO: write failed');
      await write(buffer);
      if (this.binding !== binding) return;
      this.written.push(...buffer);
      this.device.receive(new Uint8Array(buffer), this.now());
      this.deliver();
    };
  }

  private deliver(): void {
    let out = this.device.takeOutput();
    if (out.length === 0 || !this.binding?.isOpen) return;
    if (this.tamper) out = this.tamper(out);
    this.binding.emitData(Buffer.from(out));
  }
}
