import type { Timers } from '../../daemon/board/timers.ts';
import { EmulatorBinding, type EmulatedLine } from '../../daemon/simulation/emulator-binding.ts';
import { SerialPortMock } from 'serialport';
import type { PortFactory } from '../../daemon/transport/serial-transport.ts';
import type { EmulatedDevice } from '../../daemon/simulation/emulator/script.ts';

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
export type { EmulatedDevice };

/** One binding for every test port, as a process has one set of device nodes. */
const binding = new EmulatorBinding();
let portCounter = 0;

/**
 * An emulated board behind a serial path of the emulator binding: host writes go to the
 * emulator, its output comes back as received data. The device can be removed (reads fail, opens
 * fail) and recreated, like a USB board being pulled and plugged back. Time is the test's.
 */
export class EmulatedMockPort {
  readonly path = `/dev/ttyEMU${++portCounter}`;
  readonly line: EmulatedLine;
  readonly factory: PortFactory = binding.portFactory;

  constructor(
    readonly device: EmulatedDevice,
    now: () => number,
  ) {
    this.line = binding.plug(this.path, device, { now, pumpEveryMs: null });
  }

  /** Every byte the host wrote, across connections. */
  get written(): number[] {
    return this.line.written;
  }

  /** While set, host writes fail like a write to a vanished device. */
  set failWrites(fail: boolean) {
    this.line.failWrites = fail;
  }

  /** Rewrites output before it reaches the host (to inject corruption). */
  set tamper(fn: ((bytes: Uint8Array) => Uint8Array) | null) {
    this.line.tamper = fn;
  }

  get opens(): number {
    return this.line.opens;
  }

  /** Lets emulated time pass and delivers whatever the board sent meanwhile. */
  tick(at: number): void {
    this.line.tick(at);
  }

  /** Bytes on the line that the board did not send (noise, a half frame). */
  inject(bytes: ArrayLike<number>): void {
    this.line.inject(bytes);
  }

  /** The device node disappears: the pending read fails, further opens fail. */
  remove(): void {
    this.line.unplug();
  }

  recreate(): void {
    this.line.plugIn();
  }
}

/** serialport's own mock binding's ports (create them first with `mockBinding.createPort(path)`): the transport's tests run on serialport's stream and binding as shipped. */
export const mockPortFactory: PortFactory = (options) => new SerialPortMock(options);

/**
 * The mock binding instance serialport itself uses. Importing '@serialport/binding-mock' from ESM
 * loads its ESM build, a second copy with its own port table: ports created there are invisible
 * to SerialPortMock (the dual-package hazard). Create mock ports through this one.
 */
export const mockBinding = SerialPortMock.binding;
