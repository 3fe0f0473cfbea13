// The package's ESM entry ships no types; its CommonJS one does (types only, nothing is loaded).
import type { BindingInterface, BindingPortInterface, OpenOptions, PortInfo, PortStatus } from '@serialport/bindings-interface' with { 'resolution-mode': 'require' };
import { SerialPortStream } from '@serialport/stream';
import type { EmulatedDevice } from './emulator/script.ts';
import type { PortFactory } from '../transport/serial-transport.ts';

/** Why a read or write failed: serialport's stream ignores `canceled` ones (the port was closed). */
class BindingError extends Error {
  constructor(
    message: string,
    readonly canceled = false,
  ) {
    super(message);
  }
}

export interface EmulatedLineOptions {
  /** The emulator's clock in ms; default: real time since the line was plugged in. */
  now?: () => number;
  /** Let emulated time pass on a real timer (periodic clock messages, delayed bus replies); null: only when asked. Default 20. */
  pumpEveryMs?: number | null;
}

/**
 * One emulated device behind a serial path, as the host's serial port sees it: whatever the host
 * writes reaches `device.receive`, the device's output arrives as received bytes. It can be pulled
 * out (an open port's read fails as a vanished USB device does, and opening fails) and plugged
 * back, and noise can be put on the line.
 */
export class EmulatedLine {
  /** Every byte the host wrote, across connections. */
  readonly written: number[] = [];
  /** While set, host writes fail like a write to a vanished device. */
  failWrites = false;
  /** Rewrites output before it reaches the host (to inject corruption). */
  tamper: ((bytes: Uint8Array) => Uint8Array) | null = null;
  /** How many times a host opened the port. */
  opens = 0;
  private port: EmulatorPort | null = null;
  private present = true;
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;

  constructor(
    readonly path: string,
    readonly device: EmulatedDevice,
    private readonly binding: EmulatorBinding,
    opts: EmulatedLineOptions = {},
  ) {
    const start = performance.now();
    this.now = opts.now ?? (() => performance.now() - start);
    const every = opts.pumpEveryMs === undefined ? 20 : opts.pumpEveryMs;
    if (every !== null) {
      this.timer = setInterval(() => this.pump(), every);
      this.timer.unref();
    }
  }

  /** The emulator's time now. */
  get at(): number {
    return this.now();
  }

  /** Whether the device is plugged in (its path exists). */
  get plugged(): boolean {
    return this.present;
  }

  /** Brings emulated time up to now and delivers pending output. */
  pump(): void {
    this.device.advanceTo(this.now());
    this.deliver();
  }

  /** Brings emulated time to `at` (a test's own clock) and delivers pending output. */
  tick(at: number): void {
    this.device.advanceTo(at);
    this.deliver();
  }

  /** Runs `fn` on the device at the current time (e.g. a physical action), then delivers output. */
  withDevice(fn: (device: EmulatedDevice, at: number) => void): void {
    const at = this.now();
    this.device.advanceTo(at);
    fn(this.device, at);
    this.deliver();
  }

  /** Bytes on the line that the device did not send (noise, a half frame). */
  inject(bytes: ArrayLike<number>): void {
    this.port?.receive(Uint8Array.from(Array.from(bytes)));
  }

  /** The device node disappears: an open port's read fails, further opens fail. */
  unplug(): void {
    this.present = false;
    const port = this.port;
    this.port = null;
    port?.vanish();
  }

  /** The device node is back (the host must open it again). */
  plugIn(): void {
    this.present = true;
  }

  /** Removes the line from its binding for good. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unplug();
    this.binding.remove(this.path);
  }

  /** @internal The binding opened a port on this line. */
  attach(port: EmulatorPort): void {
    if (!this.present) throw new BindingError(`ENOENT: no such file or directory, open '${this.path}'`);
    this.port?.vanish();
    this.port = port;
    this.opens++;
  }

  /** @internal The host closed its port. */
  detach(port: EmulatorPort): void {
    if (this.port === port) this.port = null;
  }

  /** @internal The host wrote `bytes`. */
  hostWrote(port: EmulatorPort, bytes: Uint8Array): void {
    if (this.failWrites || this.port !== port) throw new BindingError('EIO: write failed');
    this.written.push(...bytes);
    this.device.receive(bytes, this.now());
    this.deliver();
  }

  private deliver(): void {
    let out = this.device.takeOutput();
    if (out.length === 0 || !this.port) return;
    if (this.tamper) out = this.tamper(out);
    this.port.receive(out);
  }
}

/** An open port on an emulated line: reads wait for the device's bytes. */
class EmulatorPort implements BindingPortInterface {
  isOpen = true;
  /** The device went away under the open port (unlike a close by the host, this is an error). */
  private vanished = false;
  private readonly inbox: Uint8Array[] = [];
  private pending: { buffer: Buffer; offset: number; length: number; resolve: (r: { buffer: Buffer; bytesRead: number }) => void; reject: (e: Error) => void } | null = null;

  constructor(
    readonly openOptions: Required<OpenOptions>,
    private readonly line: EmulatedLine,
  ) {}

  /** Bytes arriving from the device side. */
  receive(bytes: Uint8Array): void {
    if (!this.isOpen || this.vanished || bytes.length === 0) return;
    this.inbox.push(bytes);
    this.serve();
  }

  /** The device vanished under the open port: the pending read fails as a real one does (EIO). */
  vanish(): void {
    this.vanished = true;
    const p = this.pending;
    this.pending = null;
    p?.reject(new BindingError('EIO: device removed'));
  }

  read(buffer: Buffer, offset: number, length: number): Promise<{ buffer: Buffer; bytesRead: number }> {
    if (!this.isOpen) return Promise.reject(new BindingError('Port is not open', true));
    if (this.vanished) return Promise.reject(new BindingError('EIO: device removed'));
    if (this.pending) return Promise.reject(new Error('a read is already pending'));
    return new Promise((resolve, reject) => {
      this.pending = { buffer, offset, length, resolve, reject };
      this.serve();
    });
  }

  async write(buffer: Buffer): Promise<void> {
    if (!this.isOpen) throw new BindingError('Port is not open', true);
    if (this.vanished) throw new BindingError('EIO: device removed');
    this.line.hostWrote(this, new Uint8Array(buffer));
  }

  async close(): Promise<void> {
    if (!this.isOpen) {
      this.line.detach(this);
      return;
    }
    this.isOpen = false;
    this.line.detach(this);
    const p = this.pending;
    this.pending = null;
    p?.reject(new BindingError('Port is closed', true));
  }

  async update(): Promise<void> {}
  async set(): Promise<void> {}
  async get(): Promise<PortStatus> {
    return { cts: true, dsr: true, dcd: true };
  }
  async getBaudRate(): Promise<{ baudRate: number }> {
    return { baudRate: this.openOptions.baudRate };
  }
  async flush(): Promise<void> {
    this.inbox.length = 0;
  }
  async drain(): Promise<void> {}

  /** Hands queued bytes to the pending read, on a later tick as a real port would. */
  private serve(): void {
    if (!this.pending || this.inbox.length === 0) return;
    const p = this.pending;
    this.pending = null;
    setImmediate(() => {
      let n = 0;
      while (n < p.length && this.inbox.length > 0) {
        const chunk = this.inbox[0]!;
        const take = Math.min(chunk.length, p.length - n);
        p.buffer.set(chunk.subarray(0, take), p.offset + n);
        n += take;
        if (take === chunk.length) this.inbox.shift();
        else this.inbox[0] = chunk.subarray(take);
      }
      p.resolve({ buffer: p.buffer, bytesRead: n });
    });
  }
}

/**
 * A serialport binding (`BindingInterface`) whose ports are emulated DGT boards and bus lines:
 * the host's real serial transport, stream and codec run unchanged on top of it. The embedded
 * default's emulated tables and the tests use it; `list()` shows the plugged-in lines.
 */
export class EmulatorBinding implements BindingInterface<EmulatorPort> {
  private readonly lines = new Map<string, EmulatedLine>();

  /** Plugs `device` in at `path` (replacing whatever was there). */
  plug(path: string, device: EmulatedDevice, opts: EmulatedLineOptions = {}): EmulatedLine {
    this.lines.get(path)?.close();
    const line = new EmulatedLine(path, device, this, opts);
    this.lines.set(path, line);
    return line;
  }

  /** @internal */
  remove(path: string): void {
    this.lines.delete(path);
  }

  async list(): Promise<PortInfo[]> {
    return [...this.lines.values()]
      .filter((l) => l.plugged)
      .map((l) => ({ path: l.path, manufacturer: 'boardcast emulator', serialNumber: undefined, pnpId: undefined, locationId: undefined, productId: undefined, vendorId: undefined }));
  }

  async open(options: OpenOptions): Promise<EmulatorPort> {
    const line = this.lines.get(options.path);
    if (!line || !line.plugged) throw new BindingError(`ENOENT: no such file or directory, open '${options.path}'`);
    const full: Required<OpenOptions> = { dataBits: 8, lock: true, stopBits: 1, parity: 'none', rtscts: false, xon: false, xoff: false, xany: false, hupcl: true, ...options };
    const port = new EmulatorPort(full, line);
    line.attach(port);
    return port;
  }

  /** Port streams on this binding, for a SerialTransport. */
  readonly portFactory: PortFactory = (options) => new SerialPortStream<EmulatorBinding>({ ...options, binding: this as EmulatorBinding });
}

/** The process's emulator binding: the embedded default's emulated tables are plugged in here. */
export const emulatorBinding = new EmulatorBinding();
