import { checksum } from './wire.ts';

/**
 * What the emulated board makes of the host's byte stream. Kept separate from protocols/dgt's
 * CommandDecoder on purpose: the emulator is the other end of the wire, and tests that drive it with
 * the codec's encoder check the two readings of dgtbrd.h against each other.
 */
export type HostInput =
  /** A one-byte single-board command (0x40..0x55). */
  | { kind: 'single'; code: number }
  /** 0x2b size 0x03 id content… 0x00 */
  | { kind: 'clock'; id: number; content: number[]; wellFormed: boolean }
  /** 0x60 0x04 pattern start end 0x00 (Revelation II LEDs). */
  | { kind: 'leds'; bytes: number[] }
  /** A bus command: id, address (14 bits), checksum. */
  | { kind: 'bus'; code: number; address: number; checksumOk: boolean }
  /** Bytes that started nothing the board knows (a real board drops them). */
  | { kind: 'junk'; byte: number };

export const CMD = {
  RESET: 0x40,
  SEND_CLK: 0x41,
  SEND_BRD: 0x42,
  SEND_UPDATE: 0x43,
  SEND_UPDATE_BRD: 0x44,
  RETURN_SERIALNR: 0x45,
  RETURN_BUSADRES: 0x46,
  SEND_TRADEMARK: 0x47,
  SEND_EE_MOVES: 0x49,
  TO_BUSMODE: 0x4a,
  SEND_UPDATE_NICE: 0x4b,
  SEND_BATTERY_STATUS: 0x4c,
  SEND_VERSION: 0x4d,
  RETURN_LONG_SERIALNR: 0x55,
  SET_LEDS: 0x60,
  CLOCK_MESSAGE: 0x2b,
} as const;

export const BUS_CMD = {
  SEND_CLK: 0x81,
  SEND_BRD: 0x82,
  SEND_CHANGES: 0x83,
  REPEAT_CHANGES: 0x84,
  SET_START_GAME: 0x85,
  SEND_FROM_START: 0x86,
  PING: 0x87,
  END_BUSMODE: 0x88,
  RESET: 0x89,
  IGNORE_NEXT_BUS_PING: 0x8a,
  SEND_VERSION: 0x8b,
  SEND_ALL_D: 0x8d,
} as const;

const SINGLE = new Set<number>([
  CMD.RESET, CMD.SEND_CLK, CMD.SEND_BRD, CMD.SEND_UPDATE, CMD.SEND_UPDATE_BRD, CMD.RETURN_SERIALNR,
  CMD.RETURN_BUSADRES, CMD.SEND_TRADEMARK, CMD.SEND_EE_MOVES, CMD.TO_BUSMODE, CMD.SEND_UPDATE_NICE,
  CMD.SEND_BATTERY_STATUS, CMD.SEND_VERSION, CMD.RETURN_LONG_SERIALNR,
]);

/** Incremental: bytes of a command split over several reads are kept until it is complete. */
export class HostInputParser {
  private pending: number[] = [];

  push(chunk: ArrayLike<number>): HostInput[] {
    const out: HostInput[] = [];
    for (let i = 0; i < chunk.length; i++) {
      this.pending.push(chunk[i]! & 0xff);
      this.drain(out);
    }
    return out;
  }

  private drain(out: HostInput[]): void {
    for (;;) {
      const p = this.pending;
      if (p.length === 0) return;
      const b = p[0]!;
      if (b & 0x80) {
        // Bus command: 4 bytes. A byte with the MSB set inside one restarts it (lost byte).
        const restart = p.findIndex((x, i) => i > 0 && (x & 0x80) !== 0);
        if (restart > 0) {
          for (let i = 0; i < restart; i++) out.push({ kind: 'junk', byte: p[i]! });
          this.pending = p.slice(restart);
          continue;
        }
        if (p.length < 4) return;
        out.push({
          kind: 'bus',
          code: b,
          address: (p[1]! << 7) | p[2]!,
          checksumOk: checksum(p, 3) === p[3],
        });
        this.pending = p.slice(4);
        continue;
      }
      if (SINGLE.has(b)) {
        out.push({ kind: 'single', code: b });
        this.pending = p.slice(1);
        continue;
      }
      if (b === CMD.CLOCK_MESSAGE || b === CMD.SET_LEDS) {
        if (p.length < 2) return;
        const size = p[1]!;
        if (p.length < 2 + size) return;
        const body = p.slice(2, 2 + size);
        this.pending = p.slice(2 + size);
        if (b === CMD.SET_LEDS) {
          out.push({ kind: 'leds', bytes: body });
        } else {
          const wellFormed = size >= 3 && body[0] === 0x03 && body[size - 1] === 0x00;
          out.push({ kind: 'clock', id: body[1] ?? 0, content: body.slice(2, Math.max(2, size - 1)), wellFormed });
        }
        continue;
      }
      out.push({ kind: 'junk', byte: b });
      this.pending = p.slice(1);
    }
  }
}
