import { DgtDecoder } from '../../protocols/dgt/index.ts';
import { IDENTIFY_BYTES } from './wire.ts';
import type { Timers } from './timers.ts';
import { systemTimers } from './timers.ts';
import type { ByteTransport } from '../transport/byte-transport.ts';

export type Identification =
  | {
      path: string;
      dgt: true;
      serial: string;
      longSerial: string | null;
      version: { major: number; minor: number } | null;
    }
  | { path: string; dgt: false; reason: string };

export interface IdentifyOptions {
  /** How long to wait for the answers. Default 1.5 s (a board answers within a few 10 ms). */
  timeoutMs?: number;
  /** After serial and version arrived, how much longer to wait for the long serial (old boards never send it). */
  graceMs?: number;
  timers?: Timers;
}

/**
 * Asks whatever is behind the transport for its serial number, long serial number and version.
 * Only DGT boards answer these one-byte commands with well-framed SERIALNR/VERSION messages. The
 * queries do not change the board's mode, so a board in use is not disturbed (but one in bus
 * mode switches to single-board mode, as any single-board command makes it do).
 */
export async function identifyBoard(transport: ByteTransport, options: IdentifyOptions = {}): Promise<Identification> {
  const timers = options.timers ?? systemTimers();
  const timeoutMs = options.timeoutMs ?? 1_500;
  const graceMs = options.graceMs ?? 200;
  const path = transport.path;
  try {
    await transport.open();
  } catch (err) {
    return { path, dgt: false, reason: `cannot open: ${err instanceof Error ? err.message : String(err)}` };
  }
  const decoder = new DgtDecoder();
  let serial: string | null = null;
  let longSerial: string | null = null;
  let version: { major: number; minor: number } | null = null;
  // Set from the transport's callbacks: widened so the checks below are not narrowed to null.
  let lost = null as string | null;

  await new Promise<void>((resolve) => {
    let grace: unknown = null;
    let done = false;
    const timeout = timers.setTimeout(finish, timeoutMs);
    function finish(): void {
      if (done) return;
      done = true;
      timers.clearTimeout(timeout);
      if (grace !== null) timers.clearTimeout(grace);
      resolve();
    }
    transport.on('close', (reason) => {
      if (done) return;
      lost = reason ? reason.message : 'closed';
      finish();
    });
    transport.on('data', (chunk) => {
      for (const { message } of decoder.push(chunk)) {
        if (message.type === 'serial-number') serial = message.serial;
        else if (message.type === 'long-serial-number') longSerial = message.serial;
        else if (message.type === 'version') version = { major: message.major, minor: message.minor };
      }
      if (serial !== null && version !== null) {
        if (longSerial !== null) finish();
        else if (grace === null) grace = timers.setTimeout(finish, graceMs);
      }
    });
    transport.write(IDENTIFY_BYTES).catch((err: unknown) => {
      lost = `write failed: ${err instanceof Error ? err.message : String(err)}`;
      finish();
    });
  });
  await transport.close().catch(() => undefined);

  const s: string | null = serial ?? longSerial;
  if (s !== null) return { path, dgt: true, serial: s, longSerial, version };
  if (lost !== null) return { path, dgt: false, reason: `link lost: ${lost}` };
  return { path, dgt: false, reason: `no DGT answer within ${timeoutMs} ms (${decoder.stats.discardedBytes} other bytes)` };
}
