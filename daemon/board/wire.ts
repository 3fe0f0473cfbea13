import { DgtDecoder, encodeClockCommand, encodeCommand, type BoardMessage, type ClockAckMessage, type ClockCommand, type DecoderStats, type HostCommand } from '../../protocols/dgt/index.ts';

export type { BoardMessage, ClockCommand, DecoderStats };
export type ClockAck = ClockAckMessage;

function bytesOf(commands: readonly HostCommand[]): Uint8Array {
  const parts = commands.map(encodeCommand);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/**
 * The single-board handshake, in order: RESET (a board left in UPDATE mode stops streaming and
 * switches out of bus mode), serial number (short, then long: older boards ignore the long one),
 * version, a full board dump, then UPDATE_NICE (field updates, clock times only when they change).
 */
export const HANDSHAKE_COMMANDS: readonly HostCommand[] = [
  { type: 'reset' },
  { type: 'send-serial' },
  { type: 'send-long-serial' },
  { type: 'send-version' },
  { type: 'send-board' },
  { type: 'send-update-nice' },
];

export const HANDSHAKE_BYTES = bytesOf(HANDSHAKE_COMMANDS);

/** SEND_BRD: answered by one BOARD_DUMP, does not change the board's mode. */
export const REQUEST_DUMP_BYTES = bytesOf([{ type: 'send-board' }]);

/** Identification only: serial numbers and version, no mode change. */
export const IDENTIFY_BYTES = bytesOf([{ type: 'send-serial' }, { type: 'send-long-serial' }, { type: 'send-version' }]);

export function clockMessageBytes(command: ClockCommand): Uint8Array {
  return encodeClockCommand(command);
}

/** The clock command id byte inside a CLOCK_MESSAGE frame (0x2b size 0x03 id …). */
export function clockCommandId(command: ClockCommand): number {
  return encodeClockCommand(command)[3] ?? -1;
}

export function newDecoder(): DgtDecoder {
  return new DgtDecoder();
}
