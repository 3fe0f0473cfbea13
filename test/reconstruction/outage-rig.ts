import type { BoardEvent } from '../../protocols/board-events.ts';
import type { CatchUpAnchor } from '../../protocols/dgt/ee-catchup.ts';
import type { PieceCode } from '../../protocols/dgt/squares.ts';
import { BoardSession } from '../../daemon/board/session.ts';
import type { Timers } from '../../daemon/board/timers.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import type { NoisyScript } from '../../daemon/simulation/noisy-player/player.ts';
import { TransportListeners, type ByteTransport, type TransportEvents } from '../../daemon/transport/byte-transport.ts';

/**
 * A noisy script played on the emulated board, read by the real BoardSession, in virtual time:
 * the same session code a hall runs (handshake, live updates, periodic dumps, reconnects with
 * back-off, the EEPROM catch-up against the stored stream), thousands of times faster than real
 * time. The serial line is an in-memory transport: it closes when the board's link goes (a USB
 * pull or a dropped link) and cannot be opened until it is back; a power blip with the link kept
 * leaves it open, as a real adapter does.
 */

/** Timers on a virtual clock, fired in time order by `VirtualLine.advanceTo`. */
class VirtualTimers implements Timers {
  t = 0;
  private seq = 0;
  readonly queue = new Map<number, { at: number; fn: () => void }>();

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

  /** The earliest due timer (ties: first set). */
  next(): { id: number; at: number; fn: () => void } | null {
    let best: { id: number; at: number; fn: () => void } | null = null;
    for (const [id, e] of this.queue) if (!best || e.at < best.at || (e.at === best.at && id < best.id)) best = { id, ...e };
    return best;
  }
}

/** Lets the session's promise continuations (open, write) run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 12; i++) await Promise.resolve();
}

/** The host's end of the line to one emulated board. */
class MemoryTransport implements ByteTransport {
  readonly path = 'memory:board';
  private readonly listeners = new TransportListeners();
  private closed = false;

  constructor(private readonly line: VirtualLine) {}

  on<E extends keyof TransportEvents>(event: E, listener: TransportEvents[E]): void {
    this.listeners.add(event, listener);
  }

  off<E extends keyof TransportEvents>(event: E, listener: TransportEvents[E]): void {
    this.listeners.remove(event, listener);
  }

  open(): Promise<void> {
    if (!this.line.board.linked) return Promise.reject(new Error(`${this.path}: no such device`));
    this.line.attach(this);
    return Promise.resolve();
  }

  write(bytes: Uint8Array): Promise<void> {
    if (this.closed || !this.line.isCurrent(this)) return Promise.reject(new Error(`${this.path}: not open`));
    this.line.board.receive(bytes, this.line.timers.now());
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.end(null);
    return Promise.resolve();
  }

  receive(bytes: Uint8Array): void {
    if (!this.closed) this.listeners.emit('data', bytes);
  }

  /** The link went away under the open port (or the host closed it): `close` once. */
  end(reason: Error | null): void {
    if (this.closed) return;
    this.closed = true;
    this.line.detach(this);
    this.listeners.emit('close', reason);
  }
}

/** One emulated board, its line, and the session reading it, on one virtual clock. */
class VirtualLine {
  readonly timers = new VirtualTimers();
  private current: MemoryTransport | null = null;

  constructor(readonly board: BoardEmulator) {}

  attach(t: MemoryTransport): void {
    this.current?.end(new Error('replaced'));
    this.current = t;
  }

  detach(t: MemoryTransport): void {
    if (this.current === t) this.current = null;
  }

  isCurrent(t: MemoryTransport): boolean {
    return this.current === t;
  }

  /** The board's link went: the open port reads an error, as a vanished device does. */
  linkLost(): void {
    this.current?.end(new Error('device removed'));
  }

  /** Hands the board's output to the open port until both sides are quiet. */
  async deliver(): Promise<void> {
    for (let round = 0; round < 50; round++) {
      await settle();
      const bytes = this.board.takeOutput();
      if (bytes.length === 0) return;
      this.current?.receive(bytes);
    }
  }

  /** Moves the clock to `t`, letting the board's own clock messages and the session's timers happen in order. */
  async advanceTo(t: number): Promise<void> {
    for (;;) {
      const timer = this.timers.next();
      const wake = this.board.nextWakeup();
      const next = Math.min(timer?.at ?? Infinity, wake ?? Infinity);
      if (!(next <= t)) break;
      this.timers.t = Math.max(this.timers.t, next);
      this.board.advanceTo(this.timers.t);
      await this.deliver();
      if (timer && timer.at <= this.timers.t && this.timers.queue.has(timer.id)) {
        this.timers.queue.delete(timer.id);
        timer.fn();
        await this.deliver();
      }
    }
    this.timers.t = Math.max(this.timers.t, t);
    this.board.advanceTo(this.timers.t);
    await this.deliver();
  }
}

/** What the host stored of the board so far, as the runtime's track hands it to the session. */
function storedAnchor(events: readonly BoardEvent[]): CatchUpAnchor | null {
  let board: PieceCode[] | null = null;
  const fields: { field: number; piece: PieceCode }[] = [];
  for (const e of events) {
    if (e.type === 'dump') board = e.board.slice();
    if (e.type === 'field') {
      if (board) board[e.field] = e.piece;
      fields.push({ field: e.field, piece: e.piece });
    }
  }
  if (!board) return null;
  return { board, recentFields: fields.slice(-16), lastAt: events.at(-1)!.at };
}

export interface SessionRun {
  /** Every board event the session emitted, in order (what the store would hold). */
  events: BoardEvent[];
  /** The emulator's clock reading (white, black ms, as shown) right after each press, with its time. */
  presses: { at: number; whiteMs: number; blackMs: number }[];
  /** At the end: the session's state, the board it holds, and the board on the table. */
  finalState: string;
  sessionBoard: PieceCode[] | null;
  tableBoard: PieceCode[];
}

/**
 * Plays `script` on an emulated board (its set-up, clock and White on the clock's left) read by a
 * BoardSession with the runtime's catch-up, and returns what the session emitted. `tailMs`: how
 * long the session keeps reading after the last action.
 */
export async function playThroughSession(script: NoisyScript, tailMs = 5_000): Promise<SessionRun> {
  const board = new BoardEmulator({ serial: '27182', board: script.board, clock: script.clock, whiteOnClock: 'left' });
  const line = new VirtualLine(board);
  const events: BoardEvent[] = [];
  const session = new BoardSession({
    transport: () => new MemoryTransport(line),
    timers: line.timers,
    whiteOnClock: 'left',
    reconnectBaseMs: 500,
    reconnectMaxMs: 2_000,
    catchUp: () => storedAnchor(events),
  });
  session.on((e) => {
    if (e.type === 'board') events.push(e.event);
  });
  session.start();
  await line.advanceTo(0);
  const presses: SessionRun['presses'] = [];
  for (const a of script.actions) {
    await line.advanceTo(a.at);
    board.act({ ...a, at: line.timers.now() });
    if (a.kind === 'unplug' || a.kind === 'link-down') line.linkLost();
    if (a.kind === 'press' && script.clock) {
      const c = board.clockTimes();
      presses.push({ at: line.timers.now(), whiteMs: c.left.ms, blackMs: c.right.ms });
    }
    await line.deliver();
  }
  await line.advanceTo(line.timers.now() + tailMs);
  const finalState = session.state;
  const sessionBoard = session.board;
  await session.stop();
  return { events, presses, finalState, sessionBoard, tableBoard: board.board() };
}
