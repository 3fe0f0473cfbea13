import type { BoardEmulator, EmulatorAction, TimedBytes } from './board-emulator.ts';

/** Something driven by time that emits bytes: one board or a whole bus. */
export interface TimedDevice {
  advanceTo(at: number): void;
  takeTimedOutput(): TimedBytes[];
}

/** What a transport needs from an emulated line end: a BoardEmulator or an EmulatedBus. */
export interface EmulatedDevice extends TimedDevice {
  receive(hostBytes: Uint8Array, at: number): void;
  takeOutput(): Uint8Array;
  /** The next time it will send by itself (null: only when spoken to or acted on). */
  nextWakeup(): number | null;
}

export interface ScriptOptions {
  /** Keep emulated time running this long after the last action (clock messages, flags). */
  tailMs?: number;
  /** Host bytes to deliver at given times, interleaved with the actions (e.g. the start-up commands). */
  host?: { at: number; bytes: Uint8Array }[];
  /**
   * Host bytes sent right after each `plug` action, as a driver re-initialises a board that came
   * back (plugging in is a power-up: the board is IDLE again).
   */
  afterPlug?: Uint8Array;
}

/**
 * Plays a script of physical actions against a board in time order, as a person at the table
 * would, and returns every byte the board sent with its emulated send time. Actions out of time
 * order are played in the order given at the later time (the emulator never goes back in time).
 */
export function runScript(emulator: BoardEmulator, actions: readonly EmulatorAction[], opts: ScriptOptions = {}): TimedBytes[] {
  const out: TimedBytes[] = [];
  const host = [...(opts.host ?? [])].sort((a, b) => a.at - b.at);
  let h = 0;
  const hostUpTo = (t: number): void => {
    while (h < host.length && host[h]!.at <= t) {
      emulator.receive(host[h]!.bytes, host[h]!.at);
      out.push(...emulator.takeTimedOutput());
      h++;
    }
  };
  let last = 0;
  for (const action of actions) {
    hostUpTo(action.at);
    emulator.act(action);
    if (action.kind === 'plug' && opts.afterPlug && emulator.connected) emulator.receive(opts.afterPlug, action.at);
    out.push(...emulator.takeTimedOutput());
    last = Math.max(last, action.at);
  }
  const end = last + (opts.tailMs ?? 0);
  hostUpTo(Number.POSITIVE_INFINITY);
  emulator.advanceTo(Math.max(end, emulator.time));
  out.push(...emulator.takeTimedOutput());
  return out;
}

/** All bytes of a run, concatenated (for decoders that do not need the times). */
export function concatBytes(chunks: readonly TimedBytes[]): Uint8Array {
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.bytes.length, 0));
  let o = 0;
  for (const c of chunks) {
    bytes.set(c.bytes, o);
    o += c.bytes.length;
  }
  return bytes;
}

/**
 * The actions due by `at`, from a cursor: for real-time players that wake up on a timer and play
 * everything whose time has come.
 */
export class ScriptCursor {
  private i = 0;
  private readonly actions: EmulatorAction[];

  constructor(actions: readonly EmulatorAction[]) {
    this.actions = [...actions].sort((a, b) => a.at - b.at);
  }

  due(at: number): EmulatorAction[] {
    const out: EmulatorAction[] = [];
    while (this.i < this.actions.length && this.actions[this.i]!.at <= at) out.push(this.actions[this.i++]!);
    return out;
  }

  /** Time of the next action, or null when the script is over. */
  get next(): number | null {
    return this.actions[this.i]?.at ?? null;
  }
}
