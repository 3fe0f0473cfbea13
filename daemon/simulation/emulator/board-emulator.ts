import type { Color } from 'chessops';
import { encodeBusReply, serialToBusAddress } from '../../../protocols/dgt/bus.ts';
import type { BusCommandType, BusReply } from '../../../protocols/dgt/bus.ts';
import { clockAck, clockCommandId } from '../../../protocols/dgt/clock.ts';
import type { ClockCommand, ClockTimesMessage } from '../../../protocols/dgt/clock.ts';
import type { HostCommand, SimpleCommandType } from '../../../protocols/dgt/commands.ts';
import { parseEeprom } from '../../../protocols/dgt/eeprom.ts';
import { HostStreamDecoder } from '../../../protocols/dgt/host-stream.ts';
import type { HostStreamItem } from '../../../protocols/dgt/host-stream.ts';
import { batteryMessage, encodeMessage } from '../../../protocols/dgt/messages.ts';
import type { BoardMessage } from '../../../protocols/dgt/messages.ts';
import { type DgtField, type PieceCode } from '../../../protocols/dgt/squares.ts';
import type { PhysicalAction } from './physical.ts';
import { concatBytes } from './script.ts';
import { Tabletop, type TimeControl } from './tabletop.ts';
import { CLOCK_BUTTON, Dgt3000, clockTimesMessage, type ClockButton, type ClockDisplay } from './dgt3000.ts';
import { EE, EepromLog } from './eeprom-log.ts';

export type BoardMode = 'idle' | 'update' | 'update-board' | 'update-nice';

/** Everything a person can do at an emulated table: the shared physical actions plus the clock's buttons. */
export type EmulatorAction = PhysicalAction | { kind: 'button'; at: number; button: ClockButton };

export interface BatteryStatus {
  percent: number;
  /** Status bits: bit 0 charging, bit 1 discharging. */
  status: number;
}

export interface BoardEmulatorOptions {
  /** Five decimal digits; the bus address is its value. */
  serial: string;
  version?: { major: number; minor: number };
  /** Which side of the clock White's time is on (the board reports sides, not colours). */
  whiteOnClock?: 'left' | 'right';
  /** null: no clock attached (BWTIME says so, clock commands get no ACK). Default 90 min + 30 s. */
  clock?: TimeControl | null;
  /** 64 piece codes by DgtField; default the start position. */
  board?: PieceCode[];
  /** Power up in bus mode (the real boards' default) instead of single-board mode. */
  busMode?: boolean;
  trademark?: string;
  battery?: BatteryStatus;
  clockVersion?: { major: number; minor: number };
  /** Delay before a clock command's ACK (real clocks: "usually within one or two seconds"). Default 0. */
  clockAckDelayMs?: number;
  /**
   * Bluetooth board quirk (dgtbrd.h, BT2.10): an all-zero BWTIME right after a clock command,
   * which hosts must ignore.
   */
  zeroBwtimeAfterClockCommand?: boolean;
}

/** Bytes the board put on the wire, with the emulated time they left. */
export interface TimedBytes {
  at: number;
  bytes: Uint8Array;
}

export interface EmulatorCounters {
  /**
   * Host bytes dropped, like the real board: bytes that start no known command, the first byte of
   * a malformed SET_LEDS / CLOCK_MESSAGE frame (reading resumes at the next byte), and the bytes of
   * a bus command cut short by the next command's id byte.
   */
  junkBytes: number;
  /** Bus commands ignored for a bad checksum. */
  badChecksums: number;
  /** Host bytes sent while the cable was out. */
  lostWhileUnplugged: number;
}

/** The board looks at the clock this often (BT boards poll it 2–3 times a second, dgtbrd.h). */
export const CLOCK_POLL_MS = 250;
/** SET_START_GAME is answered "about 70 msec" after it arrives (dgtbrd.h). */
export const START_GAME_REPLY_MS = 70;

/** Where a board answers an address-0 PING: one of 11 slots of 100 ms, so replies spread over ~1.1 s. */
export function pingSlotMs(address: number): number {
  return (address % 11) * 100;
}

const DEFAULT_CLOCK: TimeControl = { baseMs: 90 * 60_000, incrementMs: 30_000 };

/** Bus commands every board obeys when sent to address 0 (dgtbrd.h). */
const TO_EVERYONE: ReadonlySet<BusCommandType> = new Set(['ping', 'end-busmode', 'reset']);

/**
 * A DGT e-board with a DGT3000 clock, answering the host byte for byte as dgtbrd.h describes.
 * Pure: no I/O, no timers. Time is whatever the caller passes (ms); it never goes backwards (an
 * earlier time is taken as "now"). Output accumulates until `takeOutput`.
 */
export class BoardEmulator {
  readonly serial: string;
  readonly address: number;
  readonly counters: EmulatorCounters = { junkBytes: 0, badChecksums: 0, lostWhileUnplugged: 0 };
  private readonly opts: BoardEmulatorOptions;
  private readonly table: Tabletop;
  private readonly clock: Dgt3000;
  private readonly log = new EepromLog();
  private parser = new HostStreamDecoder();
  private currentMode: BoardMode = 'idle';
  private inBusMode: boolean;
  private now = 0;
  private out: TimedBytes[] = [];
  private scheduled: TimedBytes[] = [];
  private nextPoll = CLOCK_POLL_MS;
  private lastClock: { key: string; at: number } | null = null;
  /** EEPROM position up to which SEND_CHANGES has reported. */
  private changesFrom = 0;
  private lastChanges: Uint8Array | null = null;
  private ignoreNextPing = false;
  private hasPower = true;
  private hasLink = true;

  constructor(opts: BoardEmulatorOptions) {
    this.opts = opts;
    this.serial = /^\d{5}$/.test(opts.serial) ? opts.serial : opts.serial.replace(/\D/g, '').padStart(5, '0').slice(-5);
    this.address = Math.max(0, serialToBusAddress(this.serial));
    const tc = opts.clock === undefined ? DEFAULT_CLOCK : opts.clock;
    this.table = new Tabletop({ board: opts.board, clock: tc });
    this.clock = new Dgt3000(this.table, tc !== null, opts.whiteOnClock ?? 'left', (tc?.incrementMs ?? 0) > 0, opts.clockVersion);
    this.inBusMode = opts.busMode ?? false;
    this.powerUp(0);
  }

  get mode(): BoardMode {
    return this.currentMode;
  }

  get busMode(): boolean {
    return this.inBusMode;
  }

  /** The host can talk to the board: its link is up and it has power. */
  get connected(): boolean {
    return this.linked && this.powered;
  }

  /** The board has power: it scans its squares and logs what it sees, heard by the host or not. */
  get powered(): boolean {
    return this.hasPower;
  }

  /** The serial link to the host is there (the board may still be off). */
  get linked(): boolean {
    return this.hasLink;
  }

  get time(): number {
    return this.now;
  }

  board(): PieceCode[] {
    return this.table.board();
  }

  clockDisplay(): ClockDisplay {
    return this.clock.display;
  }

  /** What the clock shows now, as SEND_CLK would report it (whole seconds, sides not colours). */
  clockTimes(): ClockTimesMessage {
    return clockTimesMessage(this.clock.face(this.now));
  }

  get beepMs(): number {
    return this.clock.beepMs;
  }

  /** The EEPROM log as it stands (oldest first, without the EOF a download appends). */
  eeprom(): number[] {
    return this.log.all();
  }

  /** Bytes from the host arriving at `at`. Lost while the cable is out. */
  receive(hostBytes: Uint8Array, at: number): void {
    this.advanceTo(at);
    if (!this.connected) {
      this.counters.lostWhileUnplugged += hostBytes.length;
      return;
    }
    for (const item of this.parser.push(hostBytes)) this.handle(item);
  }

  act(action: EmulatorAction): void {
    this.advanceTo(action.at);
    const at = this.now;
    if (action.kind === 'button') {
      this.pressButton(action.button, at);
      return;
    }
    if (action.kind === 'press') {
      this.press(action.by, at);
      return;
    }
    switch (action.kind) {
      case 'unplug':
      case 'link-down':
      case 'power-off':
      case 'plug':
      case 'link-up':
      case 'power-on':
        this.outage(action.kind, at);
        return;
      case 'clock-cable-out':
      case 'clock-cable-in':
        this.table.apply({ ...action, at });
        return;
    }
    const before = this.table.board();
    const seen = this.table.apply({ ...action, at });
    // Switched off, the board sees nothing: the pieces move, the log and the host learn nothing.
    if (!this.hasPower) return;
    const changes: { field: DgtField; piece: PieceCode }[] = [];
    for (const ev of seen) if (ev.type === 'field') changes.push({ field: ev.field, piece: ev.piece });
    if (!this.table.connected) {
      // Tabletop reports nothing while the link is down, but the board keeps scanning and logging.
      const after = this.table.board();
      after.forEach((p, i) => {
        if (p !== before[i]) changes.push({ field: i, piece: p });
      });
    }
    const board = before.slice();
    for (const c of changes) {
      board[c.field] = c.piece;
      this.log.field(c.field, c.piece, at, board);
      if (this.sendsFieldUpdates()) this.send({ type: 'field-update', field: c.field, piece: c.piece });
    }
  }

  /**
   * The link and the power, as the physical outage changes them. Power coming back is a power-up
   * (mode IDLE, POWERUP listing in the log); a link coming back changes nothing on the board.
   */
  private outage(kind: 'unplug' | 'link-down' | 'power-off' | 'plug' | 'link-up' | 'power-on', at: number): void {
    this.table.apply({ kind, at });
    const wasPowered = this.hasPower;
    if (kind === 'unplug' || kind === 'link-down') this.hasLink = false;
    if (kind === 'unplug' || kind === 'power-off') this.hasPower = false;
    if (kind === 'plug' || kind === 'link-up') this.hasLink = true;
    if (kind === 'plug' || kind === 'power-on') this.hasPower = true;
    // Replies still due die with the power or the line.
    if (!this.connected) this.scheduled = [];
    if (!wasPowered && this.hasPower) this.powerUp(at);
  }

  /** A press on one of the DGT3000's buttons: reported as an unsolicited ACK (0x88, ack3 = button). */
  pressButton(button: ClockButton, at: number): void {
    this.advanceTo(at);
    if (!this.clock.attached || !this.sendsClock()) return;
    this.send(clockAck(0x10, 0x88, 0, CLOCK_BUTTON[button]));
  }

  /** Lets emulated time pass: periodic clock messages and delayed bus replies go out. */
  advanceTo(at: number): void {
    const t = Math.max(this.now, at);
    if (!this.sendsClock()) {
      this.nextPoll = (Math.floor(t / CLOCK_POLL_MS) + 1) * CLOCK_POLL_MS;
    } else {
      while (this.nextPoll <= t) {
        this.release(this.nextPoll);
        this.now = this.nextPoll;
        this.pollClock(this.nextPoll);
        this.nextPoll += CLOCK_POLL_MS;
      }
    }
    this.release(t);
    this.now = t;
  }

  takeOutput(): Uint8Array {
    return concatBytes(this.takeTimedOutput());
  }

  takeTimedOutput(): TimedBytes[] {
    const chunks = this.out;
    this.out = [];
    return chunks;
  }

  /** When the next thing will happen by itself (clock poll or delayed reply), for real-time pumps. */
  nextWakeup(): number | null {
    const due = this.scheduled.length ? this.scheduled[0]!.at : Number.POSITIVE_INFINITY;
    const poll = this.sendsClock() ? this.nextPoll : Number.POSITIVE_INFINITY;
    const next = Math.min(due, poll);
    return Number.isFinite(next) ? next : null;
  }

  private powerUp(at: number): void {
    this.currentMode = 'idle';
    this.inBusMode = this.opts.busMode ?? false;
    this.parser = new HostStreamDecoder();
    this.lastClock = null;
    this.ignoreNextPing = false;
    this.scheduled = [];
    this.log.powerUp(this.table.board(), at);
  }

  private sendsFieldUpdates(): boolean {
    return this.connected && !this.inBusMode && this.currentMode !== 'idle';
  }

  private sendsClock(): boolean {
    return this.connected && !this.inBusMode && (this.currentMode === 'update' || this.currentMode === 'update-nice');
  }

  private emit(bytes: Uint8Array): void {
    if (this.connected) this.out.push({ at: this.now, bytes });
  }

  /** A single-board message, framed by the codec. */
  private send(msg: BoardMessage): void {
    this.emit(encodeMessage(msg));
  }

  /** A bus reply from this board, framed and checksummed by the codec. */
  private reply(r: BusReply): Uint8Array {
    return encodeBusReply(r, this.address);
  }

  private schedule(at: number, bytes: Uint8Array): void {
    this.scheduled.push({ at, bytes });
    this.scheduled.sort((a, b) => a.at - b.at);
  }

  private release(upTo: number): void {
    while (this.scheduled.length && this.scheduled[0]!.at <= upTo) {
      const s = this.scheduled.shift()!;
      if (this.connected) this.out.push(s);
    }
  }

  private clockMessage(at: number): Uint8Array {
    return encodeMessage(clockTimesMessage(this.clock.face(at)));
  }

  private sendClock(at: number): void {
    const msg = this.clockMessage(at);
    this.emit(msg);
    this.lastClock = { key: msg.join(','), at };
  }

  /** UPDATE: at least every second; UPDATE_NICE: only when the reading changed (dgtbrd.h). */
  private pollClock(at: number): void {
    const msg = this.clockMessage(at);
    const key = msg.join(',');
    const changed = this.lastClock === null || this.lastClock.key !== key;
    const due = this.currentMode === 'update' && this.lastClock !== null && at - this.lastClock.at >= 1000;
    if (changed || due) {
      this.emit(msg);
      this.lastClock = { key, at };
    }
  }

  private press(by: Color, at: number): void {
    const before = this.clock.face(at).running;
    const reading = this.table.apply({ kind: 'press', at, by });
    // With the link down the tabletop reports no reading, but a powered board still sees the lever
    // and logs it; a board without power sees nothing (the clock runs on its own batteries).
    const changed = this.clock.hostOwned ? this.clock.hostPress(by, at) : reading.some((e) => e.type === 'clock') || (!this.table.connected && this.clock.face(at).running !== before);
    if (!changed || !this.clock.attached || !this.hasPower) return;
    const after = this.clock.face(at);
    if (after.running === before) return;
    // dgtbrd.h: on a lever change the halted side's time is written to the EEPROM; the press that
    // starts the game halts nothing ("the game starting times will be lost").
    const halted = this.clock.sideOf(by);
    if (before === halted) this.log.clock(halted, after[halted].ms);
    if (this.sendsClock()) this.sendClock(at);
  }

  private handle(item: HostStreamItem): void {
    switch (item.type) {
      case 'unknown-byte':
        this.counters.junkBytes++;
        return;
      case 'bad-frame':
        // A malformed LEDs/clock frame (its first byte) or a bus command cut short: dropped.
        this.counters.junkBytes += item.raw.length;
        return;
      case 'command':
        if (this.inBusMode && item.command.type === 'to-bus-mode') return;
        this.leaveBusMode();
        this.single(item.command);
        return;
      case 'bus-command':
      case 'bus-unknown':
      case 'bad-checksum':
        if (!this.inBusMode) {
          // dgtbrd.h: a bus command in single-board mode switches to bus mode and is not processed.
          this.inBusMode = true;
          return;
        }
        if (item.type === 'bad-checksum') this.counters.badChecksums++;
        else if (item.type === 'bus-command') this.busCommand(item.command.type, item.address);
        return;
    }
  }

  /** A single-board command in bus mode switches the board to single-board mode, IDLE (dgtbrd.h). */
  private leaveBusMode(): void {
    if (!this.inBusMode) return;
    this.inBusMode = false;
    this.currentMode = 'idle';
  }

  private single(cmd: HostCommand): void {
    switch (cmd.type) {
      case 'set-leds':
        return;
      case 'clock':
        this.clockCommand(cmd.command);
        return;
      default:
        this.simple(cmd.type);
    }
  }

  private simple(type: SimpleCommandType): void {
    const v = this.opts.version ?? { major: 1, minor: 8 };
    switch (type) {
      case 'reset':
        this.currentMode = 'idle';
        return;
      case 'send-clock':
        this.emit(this.clockMessage(this.now));
        return;
      case 'send-board':
        this.send({ type: 'board-dump', board: this.table.board() });
        return;
      case 'send-update':
        this.enterMode('update');
        return;
      case 'send-update-board':
        this.enterMode('update-board');
        return;
      case 'send-update-nice':
        this.enterMode('update-nice');
        return;
      case 'send-serial':
        this.send({ type: 'serial-number', serial: this.serial });
        return;
      case 'send-long-serial':
        this.send({ type: 'long-serial-number', serial: this.serial.padStart(10, '0') });
        return;
      case 'send-bus-address':
        this.send({ type: 'bus-address', address: this.address });
        return;
      case 'send-trademark':
        this.send({ type: 'trademark', text: this.trademark(v) });
        return;
      case 'send-version':
        this.send({ type: 'version', major: v.major, minor: v.minor });
        return;
      case 'send-battery': {
        const b = this.opts.battery ?? { percent: 100, status: 0 };
        // dgtbrd.h lists 9 data bytes (its size constant 7 contradicts that); 0x7f = not available.
        const onMin = Math.floor(this.now / 60_000);
        this.send(batteryMessage([Math.min(100, b.percent), 0x7f, 0x7f, Math.min(127, Math.floor(onMin / 60)), onMin % 60, 0, 0, 0, b.status & 0x7f]));
        return;
      }
      case 'send-ee-moves':
        this.send({ type: 'ee-moves', entries: parseEeprom([...this.log.all(), EE.EOF]) });
        this.log.tag(EE.DOWNLOADED);
        return;
      case 'to-bus-mode':
        this.inBusMode = true;
        return;
    }
  }

  private trademark(v: { major: number; minor: number }): string {
    // TRADEMARK carries at most 256 characters (dgtbrd.h).
    return (
      this.opts.trademark ??
      `Digital Game Technology\nCopyright (c) 2024 DGT\nsoftware version: ${v.major}.${String(v.minor).padStart(2, '0')}, build: 000000\nhardware version: 1.00, serial no: ${this.serial}`
    ).slice(0, 256);
  }

  private enterMode(mode: BoardMode): void {
    this.currentMode = mode;
    // A fresh update mode reports the clock once before "only when changed" applies.
    this.lastClock = null;
    this.nextPoll = (Math.floor(this.now / CLOCK_POLL_MS) + 1) * CLOCK_POLL_MS;
  }

  /** Clock commands are always carried out; the ACK goes out only in UPDATE / UPDATE_NICE (dgtbrd.h). */
  private clockCommand(cmd: ClockCommand): void {
    if (!this.clock.attached) return;
    let ack0 = 0x10;
    let ack2 = 0;
    switch (cmd.type) {
      case 'display':
        this.clock.display = { kind: 'segments', segments: cmd.segments.slice(0, 6), icons: cmd.dots, beep: cmd.beep };
        if (cmd.beep) this.clock.beepMs += 64;
        break;
      case 'icons':
      case 'button':
        break;
      case 'end':
        this.clock.display = { kind: 'times' };
        break;
      case 'version':
        ack2 = ((this.clock.version.major & 0x0f) << 4) | (this.clock.version.minor & 0x0f);
        break;
      case 'setnrun':
        if (!this.clock.setAndRun(cmd, this.now)) ack0 = 0x40;
        break;
      case 'beep':
        this.clock.beepMs += cmd.units * 64;
        break;
      case 'ascii':
        this.clock.display = { kind: 'text', text: cmd.text, beep: cmd.beep };
        if (cmd.beep > 0) this.clock.beepMs += 62.5 + (cmd.beep / 16) * 1000;
        break;
      case 'unknown':
        // An id the clock does not know, or a known one with content it cannot take (e.g. a
        // SETNRUN with too few bytes): an error ACK (ack0 0x40).
        ack0 = 0x40;
        break;
    }
    if (!this.sendsClock()) return;
    if (this.opts.zeroBwtimeAfterClockCommand) this.send({ type: 'clock-zero' });
    const ack = encodeMessage(clockAck(ack0, clockCommandId(cmd) & 0x7f, ack2, 0));
    const delay = this.opts.clockAckDelayMs ?? 0;
    if (delay > 0) this.schedule(this.now + delay, ack);
    else this.emit(ack);
  }

  private busCommand(type: BusCommandType, address: number): void {
    if (address !== this.address && !(address === 0 && TO_EVERYONE.has(type))) return;
    switch (type) {
      case 'send-clock':
        this.emit(this.reply({ type: 'bwtime', clock: clockTimesMessage(this.clock.face(this.now)) }));
        return;
      case 'send-board':
        this.emit(this.reply({ type: 'brd-dump', board: this.table.board() }));
        return;
      case 'send-changes':
        this.sendChanges();
        return;
      case 'repeat-changes':
        this.emit(this.lastChanges ?? this.reply({ type: 'update', entries: [] }));
        return;
      case 'set-start-game':
        this.log.startGame(this.table.board(), this.now);
        this.schedule(this.now + START_GAME_REPLY_MS, this.reply({ type: 'start-game-written', data: [] }));
        return;
      case 'send-from-start': {
        const start = this.log.lastTag(EE.START_TAG);
        const data = start < 0 ? [] : this.log.between(start, Math.max(start, this.changesFrom));
        this.emit(this.reply({ type: 'from-start', entries: parseEeprom(data) }));
        return;
      }
      case 'ping':
        if (address === 0) {
          if (this.ignoreNextPing) {
            this.ignoreNextPing = false;
            return;
          }
          this.schedule(this.now + pingSlotMs(this.address), this.reply({ type: 'ping' }));
        } else {
          this.emit(this.reply({ type: 'ping' }));
        }
        return;
      case 'ignore-next-bus-ping':
        this.ignoreNextPing = true;
        this.emit(this.reply({ type: 'ping' }));
        return;
      case 'end-busmode':
        this.inBusMode = false;
        this.currentMode = 'idle';
        return;
      case 'reset':
        this.powerUp(this.now);
        this.inBusMode = true;
        return;
      case 'send-version': {
        const v = this.opts.version ?? { major: 1, minor: 8 };
        this.emit(this.reply({ type: 'version', major: v.major, minor: v.minor }));
        return;
      }
      case 'send-all-d':
        // dgtbrd.h: "sends consecutively: CHANGES, CLOCK, BOARD".
        this.sendChanges();
        this.emit(this.reply({ type: 'bwtime', clock: clockTimesMessage(this.clock.face(this.now)) }));
        this.emit(this.reply({ type: 'brd-dump', board: this.table.board() }));
        return;
    }
  }

  private sendChanges(): void {
    const data = this.log.since(this.changesFrom);
    this.changesFrom = this.log.end;
    this.lastChanges = this.reply({ type: 'update', entries: parseEeprom(data) });
    this.emit(this.lastChanges);
  }
}
