import type { BoardEvent } from '../../protocols/board-events.ts';
import type { Color } from 'chessops';
import { BusReplyDecoder, encodeBusCommand, type BusCommandType, type BusReply, type BusReplyResult, type EepromEntry } from '../../protocols/dgt/index.ts';
import type { DgtField, PieceCode } from '../../protocols/dgt/squares.ts';
import type { ByteTransport, TransportFactory } from '../transport/byte-transport.ts';
import type { HostAnchor } from './catch-up-events.ts';
import { catchUpFromLog, needsCatchUp, type LogCatchUpReport } from './log-catch-up.ts';
import { clockEvent, type ClockSide } from './clock-sides.ts';
import { backoffDelay, stallTolerantTimers, systemTimers, type Timers } from './timers.ts';
import { stateEvent } from './state-event.ts';

export type BusState = 'idle' | 'connecting' | 'discovering' | 'polling' | 'retrying' | 'stopped';

/** What a bus line reports. Board events carry the address of the board they come from. */
export type BusEvent =
  /** `fromLog`: read back from the board's change list at a return, at its own time (not a reply's). */
  | { type: 'board'; address: number; event: BoardEvent; fromLog?: true }
  /** A board back on the line after the host lost it: what its first change list gave. */
  | ({ type: 'catch-up'; at: number; address: number } & LogCatchUpReport)
  /** Every reply packet read from the line, good or bad, with its exact bytes. */
  | { type: 'reply'; at: number; result: BusReplyResult }
  | { type: 'discovered'; at: number; addresses: number[] }
  /** A reply failed its checksum (or was cut): REPEAT_CHANGES is sent, `repeat` times so far. */
  | { type: 'bad-reply'; at: number; address: number; reason: string; repeat: number }
  /** The board's own dump disagreed with the board built from its change lists. */
  | { type: 'drift'; at: number; address: number; fields: DgtField[] }
  | { type: 'state'; at: number; state: BusState; detail?: string; retryInMs?: number };

export interface BusSessionOptions {
  transport: TransportFactory;
  timers?: Timers;
  /** Which clock side White is on, per board address. Default 'left'. */
  whiteOnClock?: (address: number) => ClockSide;
  /** How long to collect answers to the address-0 PING (boards answer in 100 ms slots over ~1.1 s). */
  discoveryMs?: number;
  /** Pause between polling rounds (SEND_CHANGES to each board). Default 3 s. */
  pollIntervalMs?: number;
  /** How long to wait for one reply (dgtbrd.h: allow ~80 ms; a 70-byte dump takes ~73 ms at 9600 baud). */
  replyTimeoutMs?: number;
  /** Ask for REPEAT_CHANGES at most this often per poll before falling back to a full dump. Default 3. */
  maxRepeats?: number;
  /** Check the board built from changes against a full dump every this many polls. Default 10. */
  verifyEveryPolls?: number;
  /** A board that answers nothing for this many polls in a row is reported disconnected. Default 3. */
  lostAfterPolls?: number;
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  /**
   * The board at an address as the host last knew it (the table's stored events), for a board the
   * line brings in (a restart of the host, the line or the board back): its first change list
   * holds what happened since the host last read it, and fills the gap as a BoardSession's EEPROM
   * catch-up does. Null or 'unknown': the dump alone, as before.
   */
  catchUp?: (address: number) => HostAnchor | 'unknown' | null;
}

interface BusBoard {
  address: number;
  /** null until dumped, and again once the board is taken as gone. */
  board: PieceCode[] | null;
  polls: number;
  /** Polls in a row that got no usable answer at all. */
  failures: number;
  /** The last colour-resolved clock reading (read, or carried forward from logged lever presses). */
  clock: Extract<BoardEvent, { type: 'clock' }> | null;
}

interface Waiter {
  address: number;
  accept: (reply: BusReply) => boolean;
  resolve: (r: BusReplyResult | null) => void;
  timer: unknown;
}

/**
 * Several boards on one line in bus mode: discovery by PING, change polling with SEND_CHANGES,
 * REPEAT_CHANGES after a bad packet, full dumps to start and to resynchronise. One request is on
 * the line at a time: replies share the wire. Produces per-board BoardEvents like BoardSession.
 */
export class BusSession {
  private readonly timers: Timers;
  private readonly listeners = new Set<(e: BusEvent) => void>();
  private readonly boardsByAddress = new Map<number, BusBoard>();
  private currentState: BusState = 'idle';
  private transport: ByteTransport | null = null;
  private decoder = new BusReplyDecoder();
  private waiter: Waiter | null = null;
  /** Collects PING answers during discovery. */
  private pingSink: ((address: number) => void) | null = null;
  private generation = 0;
  private attempt = 0;
  private sleepTimer: unknown = null;
  private wake: (() => void) | null = null;

  private readonly discoveryMs: number;
  private readonly pollIntervalMs: number;
  private readonly replyTimeoutMs: number;
  private readonly maxRepeats: number;
  private readonly verifyEveryPolls: number;
  private readonly lostAfterPolls: number;
  private readonly reconnectBaseMs: number;
  private readonly reconnectMaxMs: number;

  constructor(private readonly options: BusSessionOptions) {
    // A reply timed out only because the host was held up would cost the change list it carried
    // (the board's read pointer has moved past it): its timers wait for what came meanwhile.
    this.timers = stallTolerantTimers(options.timers ?? systemTimers());
    this.discoveryMs = options.discoveryMs ?? 1_200;
    this.pollIntervalMs = options.pollIntervalMs ?? 3_000;
    this.replyTimeoutMs = options.replyTimeoutMs ?? 300;
    this.maxRepeats = options.maxRepeats ?? 3;
    this.verifyEveryPolls = options.verifyEveryPolls ?? 10;
    this.lostAfterPolls = options.lostAfterPolls ?? 3;
    this.reconnectBaseMs = options.reconnectBaseMs ?? 500;
    this.reconnectMaxMs = options.reconnectMaxMs ?? 30_000;
  }

  get state(): BusState {
    return this.currentState;
  }

  /** Addresses of the boards found on the line. */
  addresses(): number[] {
    return [...this.boardsByAddress.keys()].sort((a, b) => a - b);
  }

  /** A board as last dumped and changed since. */
  board(address: number): PieceCode[] | null {
    return this.boardsByAddress.get(address)?.board?.slice() ?? null;
  }

  on(listener: (e: BusEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    if (this.currentState !== 'idle') return;
    void this.run();
  }

  async stop(): Promise<void> {
    this.setState('stopped');
    this.generation++;
    this.interrupt();
    const t = this.transport;
    this.transport = null;
    if (t) await t.close().catch(() => undefined);
  }

  private async run(): Promise<void> {
    while (!this.isStopped()) {
      const gen = ++this.generation;
      const ok = await this.connect(gen);
      if (ok) {
        this.attempt = 0;
        await this.serve(gen);
      }
      if (this.isStopped()) return;
      const delay = backoffDelay(this.attempt++, this.reconnectBaseMs, this.reconnectMaxMs);
      this.setState('retrying', this.lossReason ?? undefined, delay);
      await this.sleep(delay);
    }
  }

  private lossReason: string | null = null;

  private async connect(gen: number): Promise<boolean> {
    this.setState('connecting');
    const transport = this.options.transport();
    try {
      await transport.open();
    } catch (err) {
      this.lossReason = `open failed: ${err instanceof Error ? err.message : String(err)}`;
      return false;
    }
    if (gen !== this.generation || this.isStopped()) {
      await transport.close().catch(() => undefined);
      return false;
    }
    this.transport = transport;
    this.decoder = new BusReplyDecoder();
    transport.on('data', (chunk) => {
      if (this.transport === transport) this.onData(chunk);
    });
    transport.on('close', (reason) => {
      if (this.transport !== transport) return;
      this.transport = null;
      this.lossReason = reason ? `link closed: ${reason.message}` : 'link closed';
      for (const b of this.boardsByAddress.values()) this.emitBoard(b.address, { type: 'connection', at: this.now(), connected: false });
      this.generation++;
      this.interrupt();
    });
    return true;
  }

  /** Discovery, initial dumps, then polling until the link goes or the session stops. */
  private async serve(gen: number): Promise<void> {
    const live = (): boolean => gen === this.generation && !this.isStopped();
    this.setState('discovering');
    const found = await this.discover();
    if (!live()) return;
    this.boardsByAddress.clear();
    for (const address of found) this.boardsByAddress.set(address, { address, board: null, polls: 0, failures: 0, clock: null });
    this.emit({ type: 'discovered', at: this.now(), addresses: found });
    for (const b of this.boardsByAddress.values()) {
      if (!live()) return;
      await this.resync(b);
    }
    this.setState('polling');
    while (live()) {
      for (const b of this.boardsByAddress.values()) {
        if (!live()) return;
        await this.poll(b);
      }
      if (!live()) return;
      await this.sleep(this.pollIntervalMs);
    }
  }

  private async discover(): Promise<number[]> {
    const found = new Set<number>();
    this.pingSink = (address) => found.add(address);
    await this.write(encodeBusCommand({ type: 'ping' }, 0));
    await this.sleep(this.discoveryMs);
    this.pingSink = null;
    return [...found].sort((a, b) => a - b);
  }

  /**
   * Brings a board (new, or back after being lost) in: the first change list holds the log since
   * power-up (or since the last host), history the dump covers. Drain it first, then dump, so
   * nothing that happens after the dump is lost.
   */
  private async resync(b: BusBoard): Promise<boolean> {
    const drained = await this.request('send-changes', b.address, (r) => r.type === 'update');
    const dump = await this.readDump(b);
    if (!dump) return false;
    if (b.board === null && drained?.ok && drained.reply.type === 'update') this.catchUpFromChanges(b, drained.reply.entries, dump.board, dump.at);
    if (!this.takeDump(b, dump.board, dump.at)) return false;
    // A first reading to carry logged lever presses forward from (see applyChanges).
    await this.readClock(b);
    return true;
  }

  private noteFailure(b: BusBoard): void {
    b.failures++;
    if (b.failures === this.lostAfterPolls && b.board !== null) {
      b.board = null;
      this.emitBoard(b.address, { type: 'connection', at: this.now(), connected: false });
    }
  }

  private async poll(b: BusBoard): Promise<void> {
    b.polls++;
    if (b.board === null) {
      if (await this.resync(b)) b.failures = 0;
      else this.noteFailure(b);
      return;
    }
    let result = await this.request('send-changes', b.address, (r) => r.type === 'update');
    let repeats = 0;
    // A damaged change list must be asked for again with REPEAT_CHANGES: a second SEND_CHANGES
    // would move the board's read pointer past the changes we never got (dgtbrd.h).
    while (result !== null && !result.ok && repeats < this.maxRepeats) {
      repeats++;
      this.emit({ type: 'bad-reply', at: this.now(), address: b.address, reason: result.reason, repeat: repeats });
      result = await this.request('repeat-changes', b.address, (r) => r.type === 'update');
    }
    if (result === null || !result.ok || result.reply.type !== 'update') {
      // Changes may be lost: the board's own dump is the only safe way back.
      if (await this.fullDump(b)) b.failures = 0;
      else this.noteFailure(b);
      return;
    }
    b.failures = 0;
    const needsClock = this.applyChanges(b, result.reply.entries);
    if (needsClock) await this.readClock(b);
    if (needsClock === 'dump' || b.polls % this.verifyEveryPolls === 0) await this.fullDump(b);
  }

  /** Applies an EEPROM change list; says whether the clock (or the whole board) needs reading. */
  private applyChanges(b: BusBoard, entries: readonly EepromEntry[]): false | 'clock' | 'dump' {
    let need: false | 'clock' | 'dump' = false;
    const at = this.now();
    for (const e of entries) {
      if (e.type === 'field-update') {
        if (b.board) b.board[e.field] = e.piece;
        this.emitBoard(b.address, { type: 'field', at, field: e.field, piece: e.piece });
      } else if (e.type === 'clock') {
        // The log holds the halted side's time at each lever press, in order with the moves.
        // Several moves can fall into one poll: a reading carried forward from the last one, with
        // the presser's logged time and the other side now running, keeps each move's press (and
        // its %clk) between it and the next. The full status is read after the list all the same.
        this.loggedPress(b, e, at);
        if (need === false) need = 'clock';
      } else if (e.type === 'tag' && (e.tag === 'powerup' || e.tag === 'emptyboard' || e.tag === 'beginpos' || e.tag === 'beginpos-rot' || e.tag === 'fourrows')) {
        // The board restarted or recognised a set-up: confirm the whole board.
        need = 'dump';
      }
    }
    return need;
  }

  private loggedPress(b: BusBoard, e: Extract<EepromEntry, { type: 'clock' }>, at: number): void {
    const last = b.clock;
    if (!last) return;
    const whiteSide = this.options.whiteOnClock?.(b.address) ?? 'left';
    const halted: Color = e.side === whiteSide ? 'white' : 'black';
    const ms = ((e.hours * 60 + e.minutes) * 60 + e.seconds) * 1000;
    const reading = { ...last, at, running: halted === 'white' ? ('black' as const) : ('white' as const), ...(halted === 'white' ? { whiteMs: ms } : { blackMs: ms }) };
    b.clock = reading;
    this.emitBoard(b.address, reading);
  }

  private async readClock(b: BusBoard): Promise<void> {
    const result = await this.request('send-clock', b.address, (r) => r.type === 'bwtime');
    if (result === null || !result.ok || result.reply.type !== 'bwtime') return;
    const clock = result.reply.clock;
    if (clock.type !== 'clock-times') return;
    const event = clockEvent(clock, this.options.whiteOnClock?.(b.address) ?? 'left', this.now());
    if (event) {
      b.clock = event;
      this.emitBoard(b.address, event);
    }
  }

  /**
   * The changes made while the host did not read the board, from its first change list (the log
   * since the host last asked, or since power-up): from the table's last board to the dump, or for
   * a board the table has never seen the game since its last set-up. Emitted at their own times,
   * with the presses' logged readings, before the board goes live again, as a BoardSession does
   * with a single board's EEPROM log (catchUpFromLog, one decision for both).
   */
  private catchUpFromChanges(b: BusBoard, entries: readonly EepromEntry[], dump: PieceCode[], dumpAt: number): void {
    let anchor: HostAnchor | 'unknown' | null;
    try {
      anchor = this.options.catchUp?.(b.address) ?? null;
    } catch {
      anchor = null;
    }
    if (!anchor || !needsCatchUp(anchor, dump)) return;
    const { report, events } = catchUpFromLog(anchor, entries, dump, dumpAt, this.options.whiteOnClock?.(b.address) ?? 'left', b.clock);
    this.emit({ type: 'catch-up', at: dumpAt, address: b.address, ...report });
    for (const event of events) {
      if (event.type === 'clock') b.clock = event;
      this.emit({ type: 'board', address: b.address, event, fromLog: true });
    }
  }

  /** Reads the board's dump; a first dump (or one after a loss) also reports the connection. */
  private async fullDump(b: BusBoard): Promise<boolean> {
    const dump = await this.readDump(b);
    return dump !== null && this.takeDump(b, dump.board, dump.at);
  }

  private async readDump(b: BusBoard): Promise<{ board: PieceCode[]; at: number } | null> {
    let result: BusReplyResult | null = null;
    for (let tries = 0; tries <= this.maxRepeats; tries++) {
      result = await this.request('send-board', b.address, (r) => r.type === 'brd-dump');
      if (result?.ok) break;
    }
    if (!result?.ok || result.reply.type !== 'brd-dump') return null;
    return { board: result.reply.board.slice(), at: this.now() };
  }

  private takeDump(b: BusBoard, board: PieceCode[], at: number): boolean {
    if (!b.board) {
      this.emitBoard(b.address, { type: 'connection', at, connected: true });
    } else {
      const fields: DgtField[] = [];
      for (let f = 0; f < 64; f++) if (b.board[f] !== board[f]) fields.push(f);
      if (fields.length === 0) return true;
      this.emit({ type: 'drift', at, address: b.address, fields });
    }
    b.board = board.slice();
    this.emitBoard(b.address, { type: 'dump', at, board });
    return true;
  }

  /**
   * Sends one command and waits for the reply packet from that board: a good reply of the
   * expected kind, a damaged one (returned so the caller can repeat), or null after the timeout.
   */
  private async request(type: BusCommandType, address: number, accept: (r: BusReply) => boolean): Promise<BusReplyResult | null> {
    const reply = new Promise<BusReplyResult | null>((resolve) => {
      const waiter: Waiter = { address, accept, resolve, timer: null };
      this.waiter = waiter;
      this.armWaiter(waiter);
    });
    if (!(await this.write(encodeBusCommand({ type }, address)))) this.settleWaiter(null);
    return reply;
  }

  /** The reply must begin within `replyTimeoutMs`, and keep coming: a gap that long ends the wait. */
  private armWaiter(w: Waiter): void {
    if (w.timer !== null) this.timers.clearTimeout(w.timer);
    w.timer = this.timers.setTimeout(() => {
      if (this.waiter === w) this.waiter = null;
      w.resolve(null);
    }, this.replyTimeoutMs);
  }

  private onData(chunk: Uint8Array): void {
    // Bytes on the line while a reply is awaited are that reply arriving (only the board asked
    // answers): a long change list (a board back after the host was away) takes longer than the
    // wait at 9600 baud, and must not be cut off while it is still coming.
    if (this.waiter && chunk.length > 0) this.armWaiter(this.waiter);
    for (const result of this.decoder.push(chunk)) {
      this.emit({ type: 'reply', at: this.now(), result });
      if (result.ok && result.reply.type === 'ping' && this.pingSink) {
        this.pingSink(result.address);
        continue;
      }
      const w = this.waiter;
      if (!w) continue;
      if (result.ok) {
        if (result.address === w.address && w.accept(result.reply)) this.settleWaiter(result);
      } else if (result.reason !== 'garbage' && (result.address === undefined || result.address === w.address)) {
        this.settleWaiter(result);
      }
    }
  }

  private settleWaiter(result: BusReplyResult | null): void {
    const w = this.waiter;
    if (!w) return;
    this.waiter = null;
    this.timers.clearTimeout(w.timer);
    w.resolve(result);
  }

  private async write(bytes: Uint8Array): Promise<boolean> {
    const t = this.transport;
    if (!t) return false;
    try {
      await t.write(bytes);
      return true;
    } catch {
      return false;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.sleepTimer = this.timers.setTimeout(() => {
        this.sleepTimer = null;
        this.wake = null;
        resolve();
      }, ms);
    });
  }

  /** Ends any sleep or pending request at once (link lost or stopped). */
  private interrupt(): void {
    if (this.sleepTimer !== null) this.timers.clearTimeout(this.sleepTimer);
    this.sleepTimer = null;
    const wake = this.wake;
    this.wake = null;
    wake?.();
    this.settleWaiter(null);
  }

  private setState(state: BusState, detail?: string, retryInMs?: number): void {
    // Stopped is for good. A step under way when stop() came (a board's resync awaiting its reply)
    // ends in a state of its own; taken, it would hide the stop from run(), which would then open
    // the line again and hold the port open after the daemon said it stopped.
    if (this.currentState === 'stopped') return;
    this.currentState = state;
    this.emit(stateEvent(this.now(), state, detail, retryInMs));
  }

  private isStopped(): boolean {
    return this.currentState === 'stopped';
  }

  private emitBoard(address: number, event: BoardEvent): void {
    this.emit({ type: 'board', address, event });
  }

  private emit(event: BusEvent): void {
    for (const l of [...this.listeners]) l(event);
  }

  private now(): number {
    return this.timers.now();
  }
}
