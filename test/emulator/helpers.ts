import { decodeAll, type BoardMessage } from '../../protocols/dgt/index.ts';
import { encodeCommand, type SimpleCommandType } from '../../protocols/dgt/commands.ts';
import { encodeClockCommand, type ClockCommand } from '../../protocols/dgt/clock.ts';
import type { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';

export const cmd = (type: SimpleCommandType): Uint8Array => encodeCommand({ type });
export const clockCmd = (c: ClockCommand): Uint8Array => encodeClockCommand(c);

/** Reads the board's bytes with the codec's decoder; fails loudly on anything it had to drop. */
export function decode(bytes: Uint8Array): BoardMessage[] {
  const { frames, stats, pendingBytes } = decodeAll(bytes);
  if (stats.discardedBytes || pendingBytes) throw new Error(`decoder dropped ${stats.discardedBytes} bytes, ${pendingBytes} pending`);
  return frames.map((f) => f.message);
}

/** Sends `bytes` at `at` and returns what the board answered, decoded. */
export function ask(emu: BoardEmulator, bytes: Uint8Array, at = emu.time): BoardMessage[] {
  emu.receive(bytes, at);
  return decode(emu.takeOutput());
}

export const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
