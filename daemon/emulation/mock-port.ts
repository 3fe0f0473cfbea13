import { SerialPortMock } from 'serialport';
import type { EmulatedDevice } from '../../protocols/emulator/script.ts';

/** The binding-level port the host's stream writes to; we play the device behind it. */
interface MockPortBindingLike {
  readonly isOpen: boolean;
  write(buffer: Buffer): Promise<void>;
  emitData(data: Buffer): void;
}

interface MockBindingLike {
  createPort(path: string, opt?: { echo?: boolean; record?: boolean }): void;
  open(options: { path: string } & Record<string, unknown>): Promise<unknown>;
}

type OpenHook = (port: MockPortBindingLike) => void;

/**
 * serialport's own mock binding instance. Importing '@serialport/binding-mock' from ESM loads a
 * second copy with its own port table (see daemon/transport/serial-transport.ts), so we go
 * through SerialPortMock.binding like the transport does.
 */
const defaultBinding = SerialPortMock.binding as unknown as MockBindingLike;

/** Per binding: path → hook called with each newly opened port. The binding's open is wrapped once. */
const hooks = new WeakMap<MockBindingLike, Map<string, OpenHook>>();

function hooksFor(binding: MockBindingLike): Map<string, OpenHook> {
  let map = hooks.get(binding);
  if (map) return map;
  const byPath = new Map<string, OpenHook>();
  map = byPath;
  hooks.set(binding, byPath);
  const open = binding.open.bind(binding);
  binding.open = async (options) => {
    const port = (await open(options)) as MockPortBindingLike;
    byPath.get(options.path)?.(port);
    return port;
  };
  return map;
}

export interface MockPortLinkOptions {
  /** Defaults to serialport's SerialPortMock.binding. */
  binding?: unknown;
  /** The emulator's clock in ms; default: real time since the link was made. */
  now?: () => number;
  /** Let emulated time pass on a real timer (periodic clock messages, delayed bus replies). Default true. */
  pumpEveryMs?: number | null;
}

/**
 * Puts an emulated board (or bus) behind a @serialport/binding-mock port: the port is created at
 * `path` (echo and recording off); whatever a host writes after opening it reaches
 * `device.receive`, and the device's output arrives at the host via `emitData`. Output produced
 * while no host has the port open goes nowhere, like a board talking to an unplugged cable.
 */
export class MockPortLink {
  private port: MockPortBindingLike | null = null;
  private readonly start = performance.now();
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private readonly hookMap: Map<string, OpenHook>;
  /** Every byte the host wrote, for tests. */
  readonly hostBytes: number[] = [];

  constructor(
    readonly device: EmulatedDevice,
    readonly path: string,
    opts: MockPortLinkOptions = {},
  ) {
    const binding = (opts.binding as MockBindingLike | undefined) ?? defaultBinding;
    this.now = opts.now ?? (() => performance.now() - this.start);
    binding.createPort(path, { echo: false, record: false });
    this.hookMap = hooksFor(binding);
    this.hookMap.set(path, (port) => this.attach(port));
    const every = opts.pumpEveryMs === undefined ? 20 : opts.pumpEveryMs;
    if (every !== null) {
      this.timer = setInterval(() => this.pump(), every);
      this.timer.unref();
    }
  }

  /** Brings emulated time up to now and delivers pending output. */
  pump(): void {
    this.device.advanceTo(this.now());
    this.flush();
  }

  /** Runs `fn` on the device at the current time (e.g. a physical action), then delivers output. */
  withDevice(fn: (device: EmulatedDevice, at: number) => void): void {
    const at = this.now();
    this.device.advanceTo(at);
    fn(this.device, at);
    this.flush();
  }

  get at(): number {
    return this.now();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.hookMap.delete(this.path);
    this.port = null;
  }

  private attach(port: MockPortBindingLike): void {
    this.port = port;
    const write = port.write.bind(port);
    port.write = async (buffer: Buffer) => {
      await write(buffer);
      if (this.port !== port) return;
      for (const b of buffer) this.hostBytes.push(b);
      this.device.receive(new Uint8Array(buffer), this.now());
      this.flush();
    };
  }

  private flush(): void {
    const bytes = this.device.takeOutput();
    const port = this.port;
    if (bytes.length === 0 || !port || !port.isOpen) return;
    port.emitData(Buffer.from(bytes));
  }
}
