import { SerialPort } from 'serialport';
import type { BoardEmulator, EmulatorAction } from './emulator/board-emulator.ts';
import { ScriptCursor, concatBytes, type EmulatedDevice } from './emulator/script.ts';
import { SerialWire } from './emulator/wire.ts';
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
  /**
   * 'serial' (default): the board's bytes reach the host at 9600 baud, as over a real line (a full
   * EEPROM log takes 8.3 s, and what the board says meanwhile comes after it). 'instant': as fast as
   * the pseudo-terminal takes them.
   */
  wire?: 'serial' | 'instant';
  /** What of the host's bytes reach the board (a noisy line garbles some); default all of them. */
  hostLine?: (bytes: Uint8Array) => Uint8Array;
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
  /** The board-to-host direction of the line. */
  private readonly wire = new SerialWire();

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
    this.wire.cut();
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
    this.wire.cut();
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
        const sent = new Uint8Array(chunk);
        this.device.receive(this.opts.hostLine ? this.opts.hostLine(sent) : sent, at);
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
    const chunks = this.device.takeTimedOutput();
    const port = this.port;
    if (!port || !port.isOpen) {
      this.wire.cut();
      return;
    }
    let bytes: Uint8Array;
    if (this.opts.wire === 'instant') bytes = concatBytes(chunks);
    else {
      this.wire.send(chunks);
      bytes = this.wire.arrived(this.now());
    }
    if (bytes.length > 0) port.write(Buffer.from(bytes));
  }
}
