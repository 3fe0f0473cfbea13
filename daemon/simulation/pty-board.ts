import { SerialPort } from 'serialport';
import type { BoardEmulator, EmulatorAction } from './emulator/board-emulator.ts';
import { ScriptCursor, type EmulatedDevice } from './emulator/script.ts';
import { PtyPair, type PtyResult } from '../transport/pty.ts';

export interface PtyDeviceOptions {
  /** Emulated time in ms; default: real time since start. */
  now?: () => number;
  /** Timer period for letting emulated time pass. */
  pumpEveryMs?: number;
  /** Physical actions to play in real time (ms from start), on the board or on every board of a bus. */
  script?: readonly EmulatorAction[];
  /** Problems that do not stop the device (port errors), for logs. */
  onProblem?: (message: string) => void;
}

/**
 * An emulated board (or a bus of them) on the far end of a socat pseudo-terminal pair: the driver
 * opens `hostPath` as if it were a USB board. Time is pumped by a real timer. `remove()` makes
 * the device disappear (socat killed, the board sees its cable pulled); `recreate()` brings it
 * back at the same path (the board powers up again).
 */
export class PtyDevice {
  readonly pair: PtyPair;
  private port: SerialPort | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly start = performance.now();
  private readonly now: () => number;
  private readonly cursor: ScriptCursor | null;
  /** Every byte the host wrote, for tests and logs. */
  readonly hostBytes: number[] = [];

  constructor(
    readonly device: EmulatedDevice,
    hostPath: string,
    emuPath: string,
    private readonly opts: PtyDeviceOptions = {},
  ) {
    this.pair = new PtyPair(hostPath, emuPath);
    this.now = opts.now ?? (() => performance.now() - this.start);
    this.cursor = opts.script ? new ScriptCursor(opts.script) : null;
  }

  get hostPath(): string {
    return this.pair.hostPath;
  }

  /** Starts socat and opens the emulator's end. */
  async open(): Promise<PtyResult<PtyDevice>> {
    const r = await this.pair.start();
    if (!r.ok) return r;
    const opened = await this.openPort();
    if (!opened.ok) {
      await this.pair.stop();
      return opened;
    }
    if (!this.timer) {
      this.timer = setInterval(() => this.pump(), this.opts.pumpEveryMs ?? 20);
    }
    this.pump();
    return { ok: true, value: this };
  }

  /** Lets emulated time pass, plays due script actions, and sends pending output. */
  pump(): void {
    const at = this.now();
    this.playDue(at);
    this.device.advanceTo(at);
    this.flush();
  }

  private playDue(at: number): void {
    if (this.cursor) for (const action of this.cursor.due(at)) for (const b of this.boards()) b.act(action);
  }

  /** Runs `fn` on the device at the current time (e.g. a physical action), then sends output. */
  withDevice(fn: (device: EmulatedDevice, at: number) => void): void {
    const at = this.now();
    this.device.advanceTo(at);
    fn(this.device, at);
    this.flush();
  }

  /** How the device last went away: its return undoes the same outage. */
  private away: 'unplug' | 'link-down' = 'unplug';

  /**
   * The device vanishes: socat is killed. 'unplug' (default): the board's USB cable counts as
   * pulled, so the board is off meanwhile; 'link-down': only the link goes, the board keeps its
   * power and logs on (a USB-serial adapter pulled from a board with its own supply).
   */
  async remove(how: 'unplug' | 'link-down' = 'unplug'): Promise<void> {
    this.away = how;
    for (const b of this.boards()) b.act({ kind: how, at: this.now() });
    await this.closePort();
    await this.pair.stop();
  }

  /** The device comes back at the same path; after an unplug the board powers up (IDLE). */
  async recreate(): Promise<PtyResult<PtyDevice>> {
    const r = await this.pair.start();
    if (!r.ok) return r;
    const opened = await this.openPort();
    if (!opened.ok) return opened;
    for (const b of this.boards()) b.act({ kind: this.away === 'unplug' ? 'plug' : 'link-up', at: this.now() });
    this.device.takeOutput();
    return { ok: true, value: this };
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.closePort();
    await this.pair.stop();
  }

  /** The boards behind this line: the device itself, or every board of a bus. */
  private boards(): readonly BoardEmulator[] {
    const d = this.device as Partial<BoardEmulator> & { boards?: readonly BoardEmulator[] };
    if (typeof d.act === 'function') return [this.device as BoardEmulator];
    return d.boards ?? [];
  }

  private openPort(): Promise<PtyResult<PtyDevice>> {
    return new Promise((resolve) => {
      // serialport puts the pty in raw mode (termios), the same way the driver opens its end.
      const port = new SerialPort({ path: this.pair.emuPath, baudRate: 9600, autoOpen: false });
      port.on('error', (err) => this.opts.onProblem?.(`${this.pair.emuPath}: ${err.message}`));
      port.on('data', (chunk: Buffer) => {
        for (const b of chunk) this.hostBytes.push(b);
        const at = this.now();
        // The host's bytes arrive at `at`: whatever the script does before then has happened.
        this.playDue(at);
        this.device.receive(new Uint8Array(chunk), at);
        this.flush();
      });
      port.on('close', () => {
        if (this.port === port) this.port = null;
      });
      port.open((err) => {
        if (err) {
          resolve({ ok: false, error: `cannot open ${this.pair.emuPath}: ${err.message}` });
          return;
        }
        this.port = port;
        resolve({ ok: true, value: this });
      });
    });
  }

  private closePort(): Promise<void> {
    const port = this.port;
    this.port = null;
    if (!port || !port.isOpen) return Promise.resolve();
    return new Promise((resolve) => port.close(() => resolve()));
  }

  private flush(): void {
    const bytes = this.device.takeOutput();
    const port = this.port;
    if (bytes.length === 0 || !port || !port.isOpen) return;
    port.write(Buffer.from(bytes));
  }
}
