import { constants, deflateRawSync } from 'node:zlib';

/**
 * permessage-deflate done once for many clients (RFC 7692). With no context takeover on the
 * server's side, each message is compressed on its own, so the same compressed bytes are right for
 * every client that negotiated the extension: a snapshot or a delta shared by thousands of
 * subscribers is compressed once, not once per socket. A message may be compressed in parts (a
 * client's own envelope, then a body shared by all): each part ends in a sync flush and refers to
 * nothing before it, so the parts concatenate into one valid DEFLATE stream.
 */

/** The window the server advertises (server_max_window_bits): 4 KiB keeps each stream small. */
export const DEFLATE_WINDOW_BITS = 12;
const OPTIONS = { level: 3, memLevel: 5, windowBits: DEFLATE_WINDOW_BITS, finishFlush: constants.Z_SYNC_FLUSH };

/** One part of a message, compressed on its own and ending in a sync flush (00 00 ff ff). */
export function deflatePart(text: string | Buffer): Buffer {
  return deflateRawSync(text, OPTIONS);
}

/**
 * A short part of a message as a stored (uncompressed) DEFLATE block: a client's own envelope
 * around a shared body costs no compression, and no zlib stream, per client.
 */
export function storedPart(text: string): Buffer {
  const data = Buffer.from(text, 'utf8');
  if (data.length > 0xffff) return deflatePart(data);
  const block = Buffer.allocUnsafe(5 + data.length);
  block[0] = 0; // BFINAL 0, BTYPE 00 (stored), the rest of the byte padding
  block.writeUInt16LE(data.length, 1);
  block.writeUInt16LE(~data.length & 0xffff, 3);
  data.copy(block, 5);
  return block;
}

/**
 * A complete text frame (FIN, RSV1 for "compressed", opcode 1) whose payload is the parts joined,
 * without the last sync flush's four bytes as RFC 7692 §7.2.1 asks. Server frames are not masked.
 */
export function compressedTextFrame(parts: readonly Buffer[]): Buffer {
  const joined = Buffer.concat(parts);
  const length = joined.length - 4;
  const headerLength = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = 0x80 | 0x40 | 0x01;
  if (length < 126) frame[1] = length;
  else if (length < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  joined.copy(frame, headerLength, 0, length);
  return frame;
}

/**
 * Whether what a connection negotiated for permessage-deflate (ws's accepted parameters; undefined
 * without the extension) lets it read frames compressed once for all: no context takeover on the
 * server's side, and a window no smaller than the one compressed with.
 */
export function takesSharedDeflate(params: Readonly<Record<string, unknown>> | undefined): boolean {
  if (!params || params.server_no_context_takeover !== true) return false;
  const bits = params.server_max_window_bits;
  return bits === undefined || bits === true || Number(bits) >= DEFLATE_WINDOW_BITS;
}

/** The permessage-deflate parameters ws accepted for a connection (ws keeps them to itself). */
export function deflateParams(ws: object): Readonly<Record<string, unknown>> | undefined {
  return (ws as { _extensions?: Record<string, { params?: Record<string, unknown> }> })._extensions?.['permessage-deflate']?.params;
}
