import type { BoardEvent } from '../../protocols/board-events.ts';
import { serialToBusAddress, type BusReplyResult } from '../../protocols/dgt/bus.ts';
import { BusSession, type BusEvent, type BusState } from '../board/bus.ts';
import type { HostAnchor } from '../board/catch-up-events.ts';
import type { ClockSide } from '../board/clock-sides.ts';
import type { SessionEvent, SessionState } from '../board/session.ts';
import { systemTimers, type Timers } from '../board/timers.ts';
import type { TransportFactory } from '../transport/byte-transport.ts';
import { stateEvent } from '../board/state-event.ts';

/**
 * A bus reply packet from this table's board, with its exact bytes. A BoardSession's `frame`
 * carries a single-board `BoardMessage`; a bus reply is another protocol (dgtbrd.h bus mode), so
 * it rides in its own member of the same `frame` type: the runtime stores `raw` either way.
 * Damaged packets attributed to the board (bad checksum, cut) are frames too, so the store keeps
 * every byte the board sent, as it keeps a single board's malformed frames.
 */
export interface BusFrameEvent {
  type: 'frame';
  at: number;
  bus: BusReplyResult;
  raw: Uint8Array;
}

/** What a table's board connection reports: a BoardSession's events, or a bus board's frames. */
export type TableLinkEvent = SessionEvent | BusFrameEvent;

/** What the runtime needs from a table's board connection (BoardSession already fits this shape). */
export interface TableLink {
  readonly state: SessionState;
  readonly serialNumber: string | null;
  on(listener: (e: TableLinkEvent) => void): () => void;
  start(): void;
  stop(): Promise<void>;
  /** Tries at once if waiting to retry (a board session does; a bus table follows its line). */
  retryNow?(): void;
  /** Closes the link because another board is put in at the table; `start()` opens the new one (a board session). */
  detach?(detail: string): Promise<void>;
}

export interface BusTable {
  number: number;
  /** The board's decimal serial number; its bus address is the value's low 14 bits. */
  serial: string;
  whiteOnClock: 'left' | 'right';
}

export interface BusLineConfig {
  /** The line's device path. */
  path: string;
  tables: BusTable[];
}

export interface BusTableLinkOptions {
  /** A transport factory for a line's device path. */
  transport: (path: string) => TransportFactory;
  timers?: Timers;
  /** Passed to every line's BusSession (poll interval, timeouts…); tests shorten them. */
  session?: BusSessionTuning;
}

export type BusSessionTuning = Omit<ConstructorParameters<typeof BusSession>[0], 'transport' | 'timers' | 'whiteOnClock'>;

/** A table whose board hangs on a bus line. */
export interface BusTableLink extends TableLink {
  readonly table: number;
  readonly linePath: string;
  /** The board's address on the line (its serial's low 14 bits), -1 for a serial with no digits. */
  readonly address: number;
  /** The arbiter may turn the clock round: later readings use the new side. */
  setWhiteOnClock(side: ClockSide): void;
  /**
   * Where the table's stored events left its board (as a BoardSession's `catchUp`): the board's
   * first change list after the line brings it in again fills the gap from there. Returns itself.
   */
  catchUpFrom(anchor: () => HostAnchor | 'unknown' | null): BusTableLink;
}

/**
 * One table link per bus table. The tables of one line share one BusSession: the first table
 * started opens the line (on the next microtask, so tables started together all see it from
 * 'connecting'), the last one stopped closes it. start() and stop() are idempotent per table; a
 * stopped table stays stopped, like a BoardSession. Never throws for bad input: a serial that gives
 * no usable address is reported on its table as a `problem`.
 */
export function busTableLinks(lines: readonly BusLineConfig[], options: BusTableLinkOptions): Map<number, BusTableLink> {
  const timers = options.timers ?? systemTimers();
  const links = new Map<number, BusTableLink>();
  for (const line of lines) {
    const bus = new BusLine(line.path, options.transport(line.path), timers, options.session ?? {});
    for (const t of line.tables) links.set(t.number, bus.add(t));
  }
  return links;
}

/** Board events that come out of a reply of this kind (re-stamped with the reply's time). */
function fromReply(reply: BusReplyResult, event: BoardEvent): boolean {
  if (!reply.ok) return false;
  switch (event.type) {
    case 'field':
      return reply.reply.type === 'update';
    case 'clock':
      return reply.reply.type === 'bwtime';
    case 'dump':
      return reply.reply.type === 'brd-dump';
    case 'connection':
      return event.connected && reply.reply.type === 'brd-dump';
  }
}

/** One line's session, shared by its tables; routes the line's events to the table of each address. */
class BusLine {
  private session: BusSession | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly byAddress = new Map<number, TableOnBus[]>();
  private readonly running = new Set<TableOnBus>();

  constructor(
    readonly path: string,
    private readonly transport: TransportFactory,
    private readonly timers: Timers,
    private readonly tuning: BusSessionTuning,
  ) {}

  add(t: BusTable): TableOnBus {
    const link = new TableOnBus(this, t, this.timers);
    const list = this.byAddress.get(link.address) ?? [];
    list.push(link);
    this.byAddress.set(link.address, list);
    return link;
  }

  join(link: TableOnBus): void {
    this.running.add(link);
    const session = this.session;
    if (session) {
      link.catchUp(session);
      return;
    }
    const fresh = new BusSession({
      ...this.tuning,
      transport: this.transport,
      timers: this.timers,
      whiteOnClock: (address) => this.byAddress.get(address)?.[0]?.whiteOnClock ?? 'left',
      catchUp: (address) => this.byAddress.get(address)?.[0]?.anchor() ?? null,
    });
    this.session = fresh;
    this.unsubscribe = fresh.on((e) => this.dispatch(e));
    queueMicrotask(() => {
      if (this.session === fresh) fresh.start();
    });
  }

  async leave(link: TableOnBus): Promise<void> {
    if (!this.running.delete(link) || this.running.size > 0) return;
    const session = this.session;
    this.session = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    await session?.stop();
  }

  private dispatch(e: BusEvent): void {
    switch (e.type) {
      case 'state':
      case 'discovered':
        for (const link of this.running) link.onLine(e);
        return;
      case 'reply':
        if (e.result.address !== undefined) this.toAddress(e.result.address, e);
        return;
      case 'board':
      case 'bad-reply':
      case 'drift':
      case 'catch-up':
        this.toAddress(e.address, e);
        return;
    }
  }

  private toAddress(address: number, e: BusEvent): void {
    for (const link of this.byAddress.get(address) ?? []) if (this.running.has(link)) link.onLine(e);
  }
}

type Presence = 'unknown' | 'absent' | 'present';

class TableOnBus implements BusTableLink {
  readonly table: number;
  readonly address: number;
  whiteOnClock: ClockSide;
  private readonly serial: string;
  private readonly listeners = new Set<(e: TableLinkEvent) => void>();
  private currentState: SessionState = 'idle';
  private lastDetail: string | undefined;
  private lastRetry: number | undefined;
  private knownSerial: string | null = null;
  /** Whether the serial was reported since the line (re)connected (BoardSession reports it per connection). */
  private serialReported = false;
  private presence: Presence = 'unknown';
  private connected = false;
  private lineState: BusState = 'idle';
  private lastReply: { at: number; result: BusReplyResult } | null = null;
  private anchorOf: () => HostAnchor | 'unknown' | null = () => null;

  constructor(
    private readonly line: BusLine,
    t: BusTable,
    private readonly timers: Timers,
  ) {
    this.table = t.number;
    this.whiteOnClock = t.whiteOnClock;
    this.serial = /^\d+$/.test(t.serial) ? t.serial.padStart(5, '0') : t.serial;
    const address = serialToBusAddress(this.serial);
    this.address = address > 0 ? address : -1;
  }

  get linePath(): string {
    return this.line.path;
  }

  get state(): SessionState {
    return this.currentState;
  }

  get serialNumber(): string | null {
    return this.knownSerial;
  }

  setWhiteOnClock(side: ClockSide): void {
    this.whiteOnClock = side;
  }

  catchUpFrom(anchor: () => HostAnchor | 'unknown' | null): BusTableLink {
    this.anchorOf = anchor;
    return this;
  }

  /** The table's board as its stored events left it, for the line's catch-up. */
  anchor(): HostAnchor | 'unknown' | null {
    return this.anchorOf();
  }

  on(listener: (e: TableLinkEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    if (this.currentState !== 'idle') return;
    if (this.address < 0) {
      // Address 0 is the PING broadcast; a serial without digits gives none at all.
      this.emit({ type: 'problem', at: this.now(), detail: `board serial ${JSON.stringify(this.serial)} gives no pollable address on the bus line ${this.line.path}` });
      this.setState('handshaking', `no bus address for serial ${JSON.stringify(this.serial)}`);
      return;
    }
    this.setState('connecting');
    this.line.join(this);
  }

  async stop(): Promise<void> {
    if (this.currentState === 'stopped') return;
    this.setState('stopped');
    await this.line.leave(this);
  }

  /** A table started while its line already runs: what the line knows about the board now. */
  catchUp(session: BusSession): void {
    this.lineState = session.state;
    const addresses = session.addresses();
    const board = session.board(this.address);
    if (session.state === 'polling' || addresses.length > 0) this.presence = addresses.includes(this.address) ? 'present' : 'absent';
    if (board !== null) {
      this.reportSerial();
      this.connected = true;
      const at = this.now();
      this.refreshState();
      // Not from a frame: the line read this board before this table joined.
      this.emit({ type: 'board', event: { type: 'connection', at, connected: true } });
      this.emit({ type: 'board', event: { type: 'dump', at, board } });
      return;
    }
    if (this.presence === 'absent') this.reportAbsent(addresses, this.now());
    this.refreshState();
  }

  onLine(e: BusEvent): void {
    if (this.currentState === 'stopped') return;
    switch (e.type) {
      case 'state':
        this.lineState = e.state;
        if (e.state === 'connecting') {
          this.serialReported = false;
          this.presence = 'unknown';
          this.connected = false;
          this.lastReply = null;
        }
        this.refreshState(e.detail, e.retryInMs);
        return;
      case 'discovered':
        this.presence = e.addresses.includes(this.address) ? 'present' : 'absent';
        if (this.presence === 'absent') this.reportAbsent(e.addresses, e.at);
        this.refreshState();
        return;
      case 'reply':
        // The board answered on the line: its serial is the configured one (the address is its
        // low 14 bits), reported before the frame so the frame is stored under it.
        if (e.result.ok) this.reportSerial();
        this.lastReply = { at: e.at, result: e.result };
        this.emit({ type: 'frame', at: e.at, bus: e.result, raw: e.result.raw });
        return;
      case 'board':
        this.onBoard(e.event, e.fromLog === true);
        return;
      case 'catch-up': {
        const { address: _address, ...caught } = e;
        this.emit(caught);
        return;
      }
      case 'bad-reply':
        this.emit({ type: 'problem', at: e.at, detail: `damaged reply from board ${this.serial} (${e.reason}): asked again with REPEAT_CHANGES (${e.repeat})` });
        return;
      case 'drift':
        this.emit({ type: 'drift', at: e.at, fields: e.fields });
        return;
    }
  }

  private onBoard(event: BoardEvent, fromLog: boolean): void {
    const reply = this.lastReply;
    // The bus session emits a reply's board events after it has awaited the reply: give them the
    // reply's time so the runtime stores each with the bytes it came from, as with a BoardSession.
    // Not the changes read back from the log at a return: they keep the times they were spread to.
    const stamped = !fromLog && reply && fromReply(reply.result, event) ? { ...event, at: reply.at } : event;
    if (event.type === 'connection') {
      this.connected = event.connected;
      if (event.connected) this.presence = 'present';
      // BoardSession order: the state goes live, then the connection event, then the dump.
      this.refreshState();
    }
    this.emit({ type: 'board', event: stamped });
  }

  private reportSerial(): void {
    if (this.serialReported) return;
    this.serialReported = true;
    this.knownSerial = this.serial;
    this.emit({ type: 'serial', at: this.now(), serial: this.serial, long: false });
  }

  private reportAbsent(found: readonly number[], at: number): void {
    const others = found.length === 0 ? 'no board answered' : `boards at addresses ${found.join(', ')} answered`;
    this.emit({
      type: 'problem',
      at,
      detail: `board ${this.serial} (bus address ${this.address}) did not answer the discovery PING on the bus line ${this.line.path} (${others}); it is looked for again when the line reconnects`,
    });
  }

  /** The table's state from the line's and its board's. */
  private refreshState(detail?: string, retryInMs?: number): void {
    switch (this.lineState) {
      case 'idle':
      case 'connecting':
        this.setState('connecting');
        return;
      case 'retrying':
        this.setState('retrying', detail, retryInMs);
        return;
      case 'stopped':
        this.setState('stopped');
        return;
      case 'discovering':
      case 'polling':
        if (this.connected) this.setState('live');
        else this.setState('handshaking', this.waitingFor());
        return;
    }
  }

  private waitingFor(): string {
    const who = `board ${this.serial} (bus address ${this.address}) on ${this.line.path}`;
    if (this.presence === 'unknown') return `looking for ${who}`;
    if (this.presence === 'absent') return `${who} did not answer the discovery PING`;
    return this.serialReported && this.lineState === 'polling' ? `${who} is not answering` : `waiting for the first dump of ${who}`;
  }

  private setState(state: SessionState, detail?: string, retryInMs?: number): void {
    if (state === this.currentState && detail === this.lastDetail && retryInMs === this.lastRetry) return;
    this.currentState = state;
    this.lastDetail = detail;
    this.lastRetry = retryInMs;
    this.emit(stateEvent(this.now(), state, detail, retryInMs));
  }

  private emit(event: TableLinkEvent): void {
    for (const l of [...this.listeners]) l(event);
  }

  private now(): number {
    return this.timers.now();
  }
}
