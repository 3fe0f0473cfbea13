import type { BoardEvent } from '../../protocols/board-events.ts';
import type { EepromEntry } from '../../protocols/dgt/eeprom.ts';
import { MSG, sizeRange } from '../../protocols/dgt/frame.ts';
import { encodeCommand } from '../../protocols/dgt/commands.ts';
import type { DgtField, PieceCode } from '../../protocols/dgt/squares.ts';
import type { ByteTransport, TransportFactory } from '../transport/byte-transport.ts';
import type { HostAnchor } from './catch-up-events.ts';
import { catchUpFromLog, needsCatchUp } from './log-catch-up.ts';
import { clockEvent, type ClockEvent, type ClockSide } from './clock-sides.ts';
import { backoffDelay, stallTolerantTimers, systemTimers, type Timers } from './timers.ts';
import { stateEvent } from './state-event.ts';
import { HANDSHAKE_BYTES, REQUEST_DUMP_BYTES, clockCommandId, clockMessageBytes, newDecoder, type BoardMessage, type ClockCommand, type ClockAck, type DecoderStats } from './wire.ts';
import type { DgtDecoder } from '../../protocols/dgt/index.ts';

/**
 * Where one board connection stands. 'idle': not started. 'live': the handshake is done and the
 * board streams its changes. 'out-of-step': a periodic dump differed from the board the host holds
 * (an update lost, or a board that went idle after a power blip and stopped streaming): the session
 * is handshaking again on the same link and catching up from the board's log. 'silent': the board
 * stopped reporting while its clock ran (a power blip leaves it idle): handshaking again likewise.
 * Both end in 'live' again, or in 'retrying' when the board does not answer.
 */
export type SessionState = 'idle' | 'connecting' | 'handshaking' | 'live' | 'out-of-step' | 'silent' | 'retrying' | 'stopped';

/** What one board connection reports. `at` is the session's monotonic ms (`Timers.now`). */
export type SessionEvent =
  /** Every decoded board message with the exact bytes it came from (the store keeps both). */
  | { type: 'frame'; at: number; message: BoardMessage; raw: Uint8Array }
  /** Colour-resolved observations for the reconstruction engine. */
  | { type: 'board'; event: BoardEvent }
  | { type: 'state'; at: number; state: SessionState; detail?: string; retryInMs?: number }
  | { type: 'serial'; at: number; serial: string; long: boolean }
  | { type: 'version'; at: number; major: number; minor: number }
  /** A board dump disagreed with the board built from field updates: a lost or garbled update. */
  | { type: 'drift'; at: number; fields: DgtField[] }
  | { type: 'decoder-stats'; at: number; stats: DecoderStats }
  /** A transport problem that did not by itself end the link (for logs). */
  | { type: 'problem'; at: number; detail: string }
  /**
   * A (re)connect found the board changed since the host's last board (`catchUp` option) and read
   * its EEPROM log: `fields` missed changes were emitted as field events before the dump.
   * 'from-start': a board the host never saw, met mid-game: the start position it last showed was
   * emitted as a dump, then the `fields` changes since.
   */
  | { type: 'catch-up'; at: number; outcome: 'caught-up'; fields: number; how: 'anchored' | 'shortest' | 'from-start'; matched: number }
  /** The catch-up gave nothing ('failed': the log does not explain the dump; 'no-answer': no log in time). */
  | { type: 'catch-up'; at: number; outcome: 'failed' | 'no-answer'; fields: 0; detail: string };

export interface BoardSessionOptions {
  /** Makes a fresh transport for every (re)connection attempt. */
  transport: TransportFactory;
  /** Which physical side of the clock White's time is on (per table). Default 'left'. */
  whiteOnClock?: ClockSide;
  timers?: Timers;
  /** Periodic full dump to catch drift; 0 disables. Default 30 s. */
  dumpIntervalMs?: number;
  /** How long to wait for the handshake's (or a periodic) board dump before giving the link up. Default 5 s. */
  handshakeTimeoutMs?: number;
  /**
   * A live board whose clock runs reports its time at least every second (UPDATE_NICE: whenever
   * a shown second changes). Nothing at all for this long means it stopped streaming (a power
   * blip leaves it IDLE with the link open): hand-shake again. 0 disables. Default 4 s.
   */
  silenceMs?: number;
  /** How long one clock command may wait for its ACK. Default 2.5 s (clocks usually answer in 1–2 s). */
  clockAckTimeoutMs?: number;
  /** Reconnection back-off: base · 2^attempt, capped. Defaults 500 ms and 30 s. */
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  /**
   * The host's last knowledge of this board (the runtime's stored stream), asked on every
   * handshake dump. When the dump differs from its board, the session reads the board's EEPROM
   * log (SEND_EE_MOVES) and emits the changes missed meanwhile as field events before the dump.
   * Absent: no log is read, a handshake goes live on its dump.
   *
   * `'unknown'`: the host has never seen this board (a fresh store, a table just added). A
   * handshake dump that is not a start position then means a game already under way: the session
   * reads the log, finds the last start position the board showed (`catchUpFromStart`) and emits it
   * as a dump, then the changes since, before the handshake dump. `null`: nothing to catch up.
   */
  catchUp?: () => HostAnchor | 'unknown' | null;
  /**
   * How long to wait for the EE_MOVES answer to start before going live without it. Once its
   * header arrives, the wait also allows for the announced size at 9600 baud. Default 3 s.
   */
  catchUpTimeoutMs?: number;
}

/** SEND_EE_MOVES: answered by one EE_MOVES message holding the whole log. */
const EE_MOVES_REQUEST = encodeCommand({ type: 'send-ee-moves' });
/**
 * Serial boards run at 9600 baud, 8N1: about 1.04 ms a byte. A full log (0x1f00 bytes) takes
 * over 8 s, so the answer's own size decides how long the rest may take; margin for USB latency.
 */
const EE_MS_PER_BYTE = 1.5;

/** A handshake dump held back while the board's log is read. */
interface PendingCatchUp {
  anchor: HostAnchor | 'unknown';
  dump: PieceCode[];
  dumpAt: number;
  timer: unknown;
  /** The EE_MOVES header went by: the deadline now allows for the whole message. */
  answering: boolean;
  /** Board messages that came meanwhile (the board is already in UPDATE_NICE): handled once live. */
  held: { message: BoardMessage; at: number }[];
}

/** Why a clock command did not complete. */
export class ClockCommandError extends Error {
  constructor(
    message: string,
    readonly reason: 'timeout' | 'not-connected' | 'link-lost' | 'stopped',
  ) {
    super(message);
    this.name = 'ClockCommandError';
  }
}

interface QueuedClockCommand {
  command: ClockCommand;
  resolve: (ack: ClockAck) => void;
  reject: (err: ClockCommandError) => void;
}

/** One open link and everything that lives exactly as long as it. */
interface Link {
  transport: ByteTransport;
  decoder: DgtDecoder;
  live: boolean;
  handshakeTimer: unknown;
  dumpTimer: unknown;
  /** Armed while a periodic dump is awaited: a link that stays open but answers nothing is dead. */
  answerTimer: unknown;
  /** Armed while the board's clock runs: a board that says nothing for `silenceMs` went idle. */
  silenceTimer: unknown;
  catchUp: PendingCatchUp | null;
}

/**
 * One board connection: handshake, live updates, periodic dumps, clock commands, and reconnection
 * with capped exponential back-off. Failures are reported as events and retried, never thrown.
 */
export class BoardSession {
  private readonly timers: Timers;
  private whiteOnClock: ClockSide;
  private readonly dumpIntervalMs: number;
  private readonly handshakeTimeoutMs: number;
  private readonly clockAckTimeoutMs: number;
  private readonly reconnectBaseMs: number;
  private readonly reconnectMaxMs: number;
  private readonly catchUpTimeoutMs: number;
  private readonly silenceMs: number;
  private readonly listeners = new Set<(e: SessionEvent) => void>();

  private currentState: SessionState = 'idle';
  private link: Link | null = null;
  private attempt = 0;
  private retryTimer: unknown = null;
  private tracked: PieceCode[] | null = null;
  private serial: string | null = null;
  private longSerial: string | null = null;
  private lastStats = '';
  /** The last clock reading emitted: a caught-up press may need the time of a side halted since. */
  private lastClock: ClockEvent | null = null;
  /** Set by `detach`: the next board is not the one whose log the table followed (no catch-up). */
  private newBoard = false;

  private readonly clockQueue: QueuedClockCommand[] = [];
  private clockInFlight: (QueuedClockCommand & { timer: unknown }) | null = null;

  constructor(private readonly options: BoardSessionOptions) {
    // Its timers are watchdogs (silence, answers, the log, clock ACKs): none may count the host's
    // own stall as the board's silence.
    this.timers = stallTolerantTimers(options.timers ?? systemTimers());
    this.whiteOnClock = options.whiteOnClock ?? 'left';
    this.dumpIntervalMs = options.dumpIntervalMs ?? 30_000;
    this.handshakeTimeoutMs = options.handshakeTimeoutMs ?? 5_000;
    this.clockAckTimeoutMs = options.clockAckTimeoutMs ?? 2_500;
    this.reconnectBaseMs = options.reconnectBaseMs ?? 500;
    this.reconnectMaxMs = options.reconnectMaxMs ?? 30_000;
    this.catchUpTimeoutMs = options.catchUpTimeoutMs ?? 3_000;
    this.silenceMs = options.silenceMs ?? 4_000;
  }

  get state(): SessionState {
    return this.currentState;
  }

  /** The board's serial number (the long one when the board has it), once read. */
  get serialNumber(): string | null {
    return this.longSerial ?? this.serial;
  }

  /** The board as last dumped and updated since; null before the first dump. */
  get board(): PieceCode[] | null {
    return this.tracked ? this.tracked.slice() : null;
  }

  /** The arbiter may turn the clock round mid-session: later readings use the new side. */
  setWhiteOnClock(side: ClockSide): void {
    this.whiteOnClock = side;
  }

  decoderStats(): DecoderStats | null {
    return this.link ? { ...this.link.decoder.stats } : null;
  }

  on(listener: (e: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    if (this.currentState !== 'idle') return;
    void this.connect();
  }

  /**
   * Tries the board at once if the session is waiting to retry (its device path just came back):
   * the back-off is for a board that stays away, not for one that is plugged in again.
   */
  retryNow(): void {
    if (this.currentState !== 'retrying' || this.retryTimer === null) return;
    this.timers.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    // The path may appear a moment before the device answers: if this try fails, the next ones
    // start again from the shortest delay instead of a doubled long one.
    this.attempt = 0;
    void this.connect();
  }

  async stop(): Promise<void> {
    if (this.currentState === 'stopped') return;
    this.setState('stopped');
    if (this.retryTimer !== null) this.timers.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.failClockCommands('stopped', 'session stopped');
    const link = this.link;
    if (link) {
      this.dropLink(link);
      await link.transport.close().catch(() => undefined);
    }
  }

  /**
   * Another board is put in at this table (a spare for a broken one, two boards swapped): the
   * link to the old one is closed and the session waits, idle, for `start()` to open the new one.
   * The new board's EEPROM log is not this table's game, so its first link reads its dump as it
   * stands instead of catching up from the log.
   */
  async detach(detail: string): Promise<void> {
    if (this.currentState === 'stopped') return;
    if (this.retryTimer !== null) this.timers.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.failClockCommands('link-lost', detail);
    const link = this.link;
    if (link) {
      const wasLive = link.live;
      this.dropLink(link);
      // Recorded like any lost link: the table's raw events show where one board ended.
      if (wasLive) this.emitBoard({ type: 'connection', at: this.now(), connected: false });
      await link.transport.close().catch(() => undefined);
    }
    if (this.isStopped()) return;
    this.serial = null;
    this.longSerial = null;
    this.tracked = null;
    this.attempt = 0;
    this.newBoard = true;
    this.setState('idle', detail);
  }

  /** Asks for a full board dump now (answered by a 'dump' board event). */
  async requestDump(): Promise<boolean> {
    const link = this.link;
    if (!link || !link.live) return false;
    return this.send(link, REQUEST_DUMP_BYTES);
  }

  /**
   * Queues a clock command. Commands go out one at a time: each waits for the clock's ACK (or
   * times out) before the next is sent, because the clock drops commands sent while it is busy.
   */
  sendClock(command: ClockCommand): Promise<ClockAck> {
    if (!this.link?.live) {
      return Promise.reject(new ClockCommandError('board not connected', 'not-connected'));
    }
    return new Promise((resolve, reject) => {
      this.clockQueue.push({ command, resolve, reject });
      this.pumpClock();
    });
  }

  private async connect(): Promise<void> {
    if (this.currentState === 'stopped') return;
    this.setState('connecting');
    const transport = this.options.transport();
    try {
      await transport.open();
    } catch (err) {
      this.scheduleRetry(`open failed: ${message(err)}`);
      return;
    }
    if (this.isStopped()) {
      await transport.close().catch(() => undefined);
      return;
    }
    const link: Link = { transport, decoder: newDecoder(), live: false, handshakeTimer: null, dumpTimer: null, answerTimer: null, silenceTimer: null, catchUp: null };
    this.link = link;
    transport.on('data', (chunk) => this.onData(link, chunk));
    transport.on('close', (reason) => this.onLinkLost(link, reason ? `link closed: ${reason.message}` : 'link closed'));
    transport.on('error', (err) => this.emit({ type: 'problem', at: this.now(), detail: `transport error: ${err.message}` }));
    this.setState('handshaking');
    link.handshakeTimer = this.timers.setTimeout(() => {
      link.handshakeTimer = null;
      void this.abandon(link, `no board dump within ${this.handshakeTimeoutMs} ms`);
    }, this.handshakeTimeoutMs);
    // RESET first so a board left in UPDATE mode stops streaming; then identity, the full dump,
    // and UPDATE_NICE (field updates, clock times only when they change).
    await this.send(link, HANDSHAKE_BYTES);
  }

  private onData(link: Link, chunk: Uint8Array): void {
    if (this.link !== link) return;
    if (link.silenceTimer !== null) this.watchSilence(link);
    if (link.catchUp && !link.catchUp.answering) this.watchForLog(link, link.catchUp, chunk);
    for (const { message, raw } of link.decoder.push(chunk)) {
      if (this.link !== link) return;
      const at = this.now();
      this.emit({ type: 'frame', at, message, raw });
      this.handleMessage(link, message, at);
    }
    const stats = { ...link.decoder.stats };
    const key = JSON.stringify(stats);
    if (key !== this.lastStats) {
      this.lastStats = key;
      this.emit({ type: 'decoder-stats', at: this.now(), stats });
    }
  }

  private handleMessage(link: Link, message: BoardMessage, at: number): void {
    const pending = link.catchUp;
    if (pending) {
      if (message.type === 'ee-moves') this.finishCatchUp(link, message.entries);
      else if (message.type === 'board-dump' || message.type === 'field-update' || message.type === 'clock-times') pending.held.push({ message, at });
      else this.handleLinkMessage(link, message, at);
      return;
    }
    if (message.type === 'board-dump' && !link.live && this.startCatchUp(link, message.board, at)) return;
    this.handleLinkMessage(link, message, at);
  }

  private handleLinkMessage(link: Link, message: BoardMessage, at: number): void {
    switch (message.type) {
      case 'board-dump': {
        const board = message.board.slice();
        if (link.answerTimer !== null) this.timers.clearTimeout(link.answerTimer);
        link.answerTimer = null;
        if (!link.live) {
          this.goLive(link, at);
        } else if (this.tracked) {
          const fields = differingFields(this.tracked, board);
          if (fields.length > 0) {
            this.emit({ type: 'drift', at, fields });
            // The host's board is no longer the board's: an update was lost, or the board went
            // idle (a power blip) and the moves since were never sent. Live updates on again and
            // the log read: the handshake dump differs from the stored board, so it is caught up.
            this.rehandshake(link, 'out-of-step', `board dump differs from the host's board on ${fields.length} square(s)`);
            return;
          }
        }
        this.tracked = board.slice();
        this.emitBoard({ type: 'dump', at, board });
        return;
      }
      case 'field-update': {
        // Updates before the handshake dump are stale (RESET may not have taken effect yet);
        // the dump supersedes them.
        if (!link.live || !this.tracked) return;
        this.tracked[message.field] = message.piece;
        this.emitBoard({ type: 'field', at, field: message.field, piece: message.piece });
        return;
      }
      case 'clock-times': {
        if (!link.live) return;
        const event = clockEvent(message, this.whiteOnClock, at);
        if (event) this.emitBoard(event);
        // A running clock that has not fallen is reported every second: expect to hear from the board.
        if (event?.running && !event.whiteFlag && !event.blackFlag) this.watchSilence(link);
        else this.stopWatchingSilence(link);
        return;
      }
      case 'clock-ack': {
        if (message.kind === 'command') this.ackClock(message);
        return;
      }
      case 'clock-zero':
        // Sent right after a clock command over Bluetooth; carries nothing (dgtbrd.h).
        return;
      case 'serial-number':
      case 'long-serial-number': {
        const long = message.type === 'long-serial-number';
        if (long) this.longSerial = message.serial;
        else this.serial = message.serial;
        this.emit({ type: 'serial', at, serial: message.serial, long });
        return;
      }
      case 'version': {
        this.emit({ type: 'version', at, major: message.major, minor: message.minor });
        return;
      }
      default:
        return;
    }
  }

  /**
   * The handshake dump differs from the host's last board, or (a board the host never saw) is not
   * a start position: hold it back and ask for the log. The handshake timeout no longer applies
   * (the board answered); the catch-up has its own.
   */
  private startCatchUp(link: Link, board: PieceCode[], at: number): boolean {
    const provider = this.options.catchUp;
    if (!provider || this.newBoard) return false;
    let anchor: HostAnchor | 'unknown' | null;
    try {
      anchor = provider();
    } catch (err) {
      this.emit({ type: 'problem', at, detail: `catch-up anchor unavailable: ${message(err)}` });
      return false;
    }
    if (!anchor) return false;
    // A board never seen that stands in a start position: the game, if any, begins now.
    if (!needsCatchUp(anchor, board)) return false;
    if (link.handshakeTimer !== null) this.timers.clearTimeout(link.handshakeTimer);
    link.handshakeTimer = null;
    const pending: PendingCatchUp = { anchor, dump: board.slice(), dumpAt: at, timer: null, answering: false, held: [] };
    link.catchUp = pending;
    pending.timer = this.timers.setTimeout(() => this.finishCatchUp(link, null), this.catchUpTimeoutMs);
    void this.send(link, EE_MOVES_REQUEST);
    return true;
  }

  /**
   * The EE_MOVES id byte (MSB set: it can only start a message) with its 14-bit size: from then on
   * wait for that many bytes at serial speed rather than the bare answer timeout.
   */
  private watchForLog(link: Link, pending: PendingCatchUp, chunk: Uint8Array): void {
    const i = chunk.indexOf(MSG.EE_MOVES);
    if (i < 0) return;
    pending.answering = true;
    const hi = chunk[i + 1];
    const lo = chunk[i + 2];
    const size = hi !== undefined && lo !== undefined ? (hi << 7) | lo : sizeRange(MSG.EE_MOVES).max;
    this.timers.clearTimeout(pending.timer);
    pending.timer = this.timers.setTimeout(() => this.finishCatchUp(link, null), this.catchUpTimeoutMs + size * EE_MS_PER_BYTE);
  }

  /**
   * Emits the missed changes (if the log explains the dump; for a board never seen, the start
   * position it last showed first, as a dump), then goes live on the held dump and handles what
   * came meanwhile. The changes come before the `connection` event: the engine takes
   * the first change after a reconnect as the resynchronising scan, which a half-replayed board is not.
   */
  private finishCatchUp(link: Link, entries: EepromEntry[] | null): void {
    const pending = link.catchUp;
    if (!pending || this.link !== link) return;
    this.timers.clearTimeout(pending.timer);
    link.catchUp = null;
    const now = this.now();
    if (entries === null) {
      const detail = pending.answering ? 'the EEPROM log began but did not arrive whole in time' : `no EEPROM log within ${this.catchUpTimeoutMs} ms`;
      this.emit({ type: 'catch-up', at: now, outcome: 'no-answer', fields: 0, detail });
    } else {
      const { report, events } = catchUpFromLog(pending.anchor, entries, pending.dump, pending.dumpAt, this.whiteOnClock, this.lastClock);
      this.emit({ type: 'catch-up', at: now, ...report });
      for (const ev of events) this.emitBoard(ev);
    }
    if (this.link !== link) return;
    this.handleLinkMessage(link, { type: 'board-dump', board: pending.dump }, pending.dumpAt);
    for (const h of pending.held) {
      if (this.link !== link) return;
      this.handleLinkMessage(link, h.message, h.at);
    }
  }

  private goLive(link: Link, at: number): void {
    link.live = true;
    if (link.handshakeTimer !== null) this.timers.clearTimeout(link.handshakeTimer);
    link.handshakeTimer = null;
    this.attempt = 0;
    this.newBoard = false;
    this.setState('live');
    this.emitBoard({ type: 'connection', at, connected: true });
    this.scheduleDump(link);
  }

  /** (Re)arms the silence timer: the board must say something within `silenceMs`. */
  private watchSilence(link: Link): void {
    if (this.silenceMs <= 0) return;
    if (link.silenceTimer !== null) this.timers.clearTimeout(link.silenceTimer);
    link.silenceTimer = this.timers.setTimeout(() => {
      link.silenceTimer = null;
      this.rehandshake(link, 'silent', `the board said nothing for ${this.silenceMs} ms while its clock ran`);
    }, this.silenceMs);
  }

  private stopWatchingSilence(link: Link): void {
    if (link.silenceTimer !== null) this.timers.clearTimeout(link.silenceTimer);
    link.silenceTimer = null;
  }

  /**
   * The board, still on the line, is not (or no longer) streaming what the host holds: hand-shake
   * again on the same link, as after a reconnect. The engine is told the board was lost; the
   * handshake dump then goes through the catch-up (the log's moves, then the dump) and live again.
   */
  private rehandshake(link: Link, state: 'out-of-step' | 'silent', detail: string): void {
    if (this.link !== link || !link.live) return;
    link.live = false;
    if (link.dumpTimer !== null) this.timers.clearTimeout(link.dumpTimer);
    if (link.answerTimer !== null) this.timers.clearTimeout(link.answerTimer);
    link.dumpTimer = null;
    link.answerTimer = null;
    this.stopWatchingSilence(link);
    this.emitBoard({ type: 'connection', at: this.now(), connected: false });
    this.setState(state, detail);
    link.handshakeTimer = this.timers.setTimeout(() => {
      link.handshakeTimer = null;
      void this.abandon(link, `no board dump within ${this.handshakeTimeoutMs} ms of handshaking again`);
    }, this.handshakeTimeoutMs);
    void this.send(link, HANDSHAKE_BYTES);
  }

  private scheduleDump(link: Link): void {
    if (this.dumpIntervalMs <= 0) return;
    link.dumpTimer = this.timers.setTimeout(() => {
      link.dumpTimer = null;
      if (this.link !== link) return;
      // A Bluetooth (rfcomm) link can stay open with the board long gone: no answer means lost.
      if (link.answerTimer === null) {
        link.answerTimer = this.timers.setTimeout(() => {
          link.answerTimer = null;
          void this.abandon(link, `no answer to a board dump request within ${this.handshakeTimeoutMs} ms`);
        }, this.handshakeTimeoutMs);
      }
      void this.send(link, REQUEST_DUMP_BYTES);
      this.scheduleDump(link);
    }, this.dumpIntervalMs);
  }

  private async send(link: Link, bytes: Uint8Array): Promise<boolean> {
    try {
      await link.transport.write(bytes);
      return true;
    } catch (err) {
      await this.abandon(link, `write failed: ${message(err)}`);
      return false;
    }
  }

  /** Gives up on a link that is open but not usable; its close reports the loss. */
  private async abandon(link: Link, detail: string): Promise<void> {
    if (this.link !== link) return;
    this.onLinkLost(link, detail);
    await link.transport.close().catch(() => undefined);
  }

  private onLinkLost(link: Link, detail: string): void {
    if (this.link !== link) return;
    const wasLive = link.live;
    this.dropLink(link);
    this.failClockCommands('link-lost', `board link lost: ${detail}`);
    if (wasLive) this.emitBoard({ type: 'connection', at: this.now(), connected: false });
    this.scheduleRetry(detail);
  }

  private dropLink(link: Link): void {
    if (link.handshakeTimer !== null) this.timers.clearTimeout(link.handshakeTimer);
    if (link.dumpTimer !== null) this.timers.clearTimeout(link.dumpTimer);
    if (link.answerTimer !== null) this.timers.clearTimeout(link.answerTimer);
    if (link.silenceTimer !== null) this.timers.clearTimeout(link.silenceTimer);
    if (link.catchUp) this.timers.clearTimeout(link.catchUp.timer);
    link.handshakeTimer = null;
    link.dumpTimer = null;
    link.answerTimer = null;
    link.silenceTimer = null;
    link.catchUp = null;
    link.live = false;
    if (this.link === link) this.link = null;
  }

  private scheduleRetry(detail: string): void {
    if (this.currentState === 'stopped') return;
    const delay = backoffDelay(this.attempt, this.reconnectBaseMs, this.reconnectMaxMs);
    this.attempt++;
    this.setState('retrying', detail, delay);
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, delay);
  }

  private pumpClock(): void {
    const link = this.link;
    if (this.clockInFlight || !link?.live) return;
    const next = this.clockQueue.shift();
    if (!next) return;
    const timer = this.timers.setTimeout(() => {
      if (this.clockInFlight?.timer !== timer) return;
      this.clockInFlight = null;
      next.reject(new ClockCommandError(`clock did not acknowledge within ${this.clockAckTimeoutMs} ms`, 'timeout'));
      this.pumpClock();
    }, this.clockAckTimeoutMs);
    this.clockInFlight = { ...next, timer };
    void this.send(link, clockMessageBytes(next.command));
  }

  /**
   * An ACK answers the command whose id is in ack1; an ACK for another id (a late answer to a
   * command that already timed out) must not complete the one now waiting.
   */
  private ackClock(ack: ClockAck): void {
    const inFlight = this.clockInFlight;
    if (!inFlight) return;
    if (ack.ackedCommand !== undefined && ack.ackedCommand !== clockCommandId(inFlight.command)) return;
    this.timers.clearTimeout(inFlight.timer);
    this.clockInFlight = null;
    inFlight.resolve(ack);
    this.pumpClock();
  }

  private failClockCommands(reason: ClockCommandError['reason'], detail: string): void {
    const pending = [...(this.clockInFlight ? [this.clockInFlight] : []), ...this.clockQueue.splice(0)];
    if (this.clockInFlight) this.timers.clearTimeout(this.clockInFlight.timer);
    this.clockInFlight = null;
    for (const p of pending) p.reject(new ClockCommandError(detail, reason));
  }

  private setState(state: SessionState, detail?: string, retryInMs?: number): void {
    // Stopped is for good: a step under way when stop() came must not bring the session back.
    if (this.currentState === 'stopped') return;
    this.currentState = state;
    this.emit(stateEvent(this.now(), state, detail, retryInMs));
  }

  private emitBoard(event: BoardEvent): void {
    if (event.type === 'clock') this.lastClock = event;
    this.emit({ type: 'board', event });
  }

  private emit(event: SessionEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }

  /** Re-read after an await: stop() may have run meanwhile. */
  private isStopped(): boolean {
    return this.currentState === 'stopped';
  }

  private now(): number {
    return this.timers.now();
  }
}

function differingFields(a: readonly PieceCode[], b: readonly PieceCode[]): DgtField[] {
  const fields: DgtField[] = [];
  for (let f = 0; f < 64; f++) if (a[f] !== b[f]) fields.push(f);
  return fields;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
