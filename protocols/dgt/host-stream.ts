import { readBusCommand } from './bus.ts';
import type { BusCommand } from './bus.ts';
import { readHostCommand } from './commands.ts';
import type { HostCommand } from './commands.ts';
import { PacketStream } from './packet-stream.ts';

/**
 * Everything a host may send a board on one line (dgtbrd.h). Single-board commands never have
 * the MSB set (0x40–0x55, SET_LEDS 0x60, CLOCK_MESSAGE 0x2b); bus commands always start with a
 * byte that has it (0x81–0x8d) followed by three bytes that do not. A board must read both
 * kinds from the same stream: a bus command switches a single-board board to bus mode and any
 * single-board command switches it back, so which kind comes next is not known in advance.
 */
export type HostStreamItem =
  /** A single-board command: one byte, SET_LEDS or a CLOCK_MESSAGE frame (0x2b). */
  | { type: 'command'; command: HostCommand; raw: Uint8Array }
  /** A bus command with a good checksum: id, address MSB, address LSB, checksum. */
  | { type: 'bus-command'; command: BusCommand; address: number; raw: Uint8Array }
  /** Framed like a bus command with a good checksum, but with an id dgtbrd.h does not define. */
  | { type: 'bus-unknown'; code: number; address: number; raw: Uint8Array }
  /** A bus command whose checksum does not match: a board ignores it (the host repeats). */
  | { type: 'bad-checksum'; code: number; address: number; raw: Uint8Array }
  /**
   * Bytes that started a frame but cannot be one: a SET_LEDS / CLOCK_MESSAGE frame with wrong
   * size or markers (only its first byte is consumed, as CommandDecoder does), or a bus command
   * cut short by the next MSB-set byte (bytes lost on the line).
   */
  | { type: 'bad-frame'; reason: string; raw: Uint8Array }
  /** A byte that starts no command (a board drops it). */
  | { type: 'unknown-byte'; byte: number };

export type HostStreamItemType = HostStreamItem['type'];

export interface HostStreamStats {
  /** Single-board commands read. */
  commands: number;
  /** Bus commands with a good checksum and a known id. */
  busCommands: number;
  /** Bus-framed packets with a good checksum and an unknown id. */
  unknownBusIds: number;
  badChecksums: number;
  badFrames: number;
  /** Bytes that started no command. */
  unknownBytes: number;
}

/**
 * Streaming decoder of host → board bytes for a board's end of the line, mixing single-board and
 * bus-mode commands. Bytes split over several pushes are kept until their command is whole. Never
 * throws; every byte pushed ends up in exactly one item's raw bytes (an unknown byte is its own
 * item) or is still pending.
 */
export class HostStreamDecoder extends PacketStream<HostStreamItem> {
  readonly stats: HostStreamStats = { commands: 0, busCommands: 0, unknownBusIds: 0, badChecksums: 0, badFrames: 0, unknownBytes: 0 };
  /** Last problem seen, for logs ("unknown command byte 0x7e", "bus command with a bad checksum"). */
  lastProblem: string | undefined;

  protected next(buf: Uint8Array, i: number, len: number, out: HostStreamItem[]): number {
    return buf[i]! >= 0x80 ? this.bus(buf, i, len, out) : this.single(buf, i, len, out);
  }

  private single(buf: Uint8Array, i: number, len: number, out: HostStreamItem[]): number {
    const step = readHostCommand(buf, i, len);
    switch (step.kind) {
      case 'need-more':
        return 0;
      case 'command':
        this.stats.commands++;
        out.push({ type: 'command', command: step.command, raw: buf.slice(i, i + step.size) });
        return step.size;
      case 'bad-frame':
        this.problem('badFrames', step.reason);
        out.push({ type: 'bad-frame', reason: step.reason, raw: buf.slice(i, i + 1) });
        return 1;
      case 'unknown-byte':
        this.problem('unknownBytes', `unknown command byte ${hex(step.byte)}`);
        out.push({ type: 'unknown-byte', byte: step.byte });
        return 1;
    }
  }

  private bus(buf: Uint8Array, i: number, len: number, out: HostStreamItem[]): number {
    const r = readBusCommand(buf, i, len);
    if (r === null) return 0;
    const raw = r.raw;
    const code = raw[0]!;
    if (r.ok) {
      this.stats.busCommands++;
      out.push({ type: 'bus-command', command: r.command, address: r.address, raw });
    } else if (r.reason === 'checksum') {
      this.problem('badChecksums', `bus command ${hex(code)} with a bad checksum`);
      out.push({ type: 'bad-checksum', code, address: r.address ?? 0, raw });
    } else if (r.reason === 'unknown-id') {
      this.problem('unknownBusIds', `unknown bus command ${hex(code)}`);
      out.push({ type: 'bus-unknown', code, address: r.address ?? 0, raw });
    } else {
      const reason = `bus command ${hex(code)} cut short after ${raw.length} byte${raw.length === 1 ? '' : 's'}`;
      this.problem('badFrames', reason);
      out.push({ type: 'bad-frame', reason, raw });
    }
    return raw.length;
  }

  private problem(counter: Exclude<keyof HostStreamStats, 'commands' | 'busCommands'>, reason: string): void {
    this.stats[counter]++;
    this.lastProblem = reason;
  }
}

/** Decodes a complete byte string (anything incomplete at its end is left out). */
export function decodeHostStream(bytes: Uint8Array): HostStreamItem[] {
  return new HostStreamDecoder().push(bytes);
}

const hex = (b: number): string => `0x${b.toString(16).padStart(2, '0')}`;
