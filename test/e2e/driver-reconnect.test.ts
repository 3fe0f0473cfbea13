import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BoardEvent } from '../../protocols/board-events.ts';
import { PIECE } from '../../protocols/dgt/index.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { PtyDevice } from '../../daemon/simulation/pty-board.ts';
import { BoardSession, type SessionEvent } from '../../daemon/board/session.ts';
import { serialTransportFactory } from '../../daemon/transport/serial-transport.ts';
import { socatAvailable } from './socat.ts';

const HANDSHAKE = [0x40, 0x45, 0x55, 0x4d, 0x42, 0x4b];
const E2 = 52;
const E4 = 36;
const E7 = 12;
const E5 = 28;

const socat = socatAvailable('driver-reconnect');

/** Waits (real time) until `predicate` holds for the events so far. */
async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function indexOfSeq(haystack: readonly number[], needle: readonly number[], from = 0): number {
  outer: for (let i = from; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

describe.skipIf(!socat)('driver over a real pseudo-terminal: handshake, live updates, device removal and return', () => {
  let dir: string;
  let device: PtyDevice;
  let emulator: BoardEmulator;
  let session: BoardSession;
  const events: SessionEvent[] = [];
  const board = (): BoardEvent[] => events.flatMap((e) => (e.type === 'board' ? [e.event] : []));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'boardcast-driver-e2e-'));
    emulator = new BoardEmulator({ serial: '54321', whiteOnClock: 'right', clock: { baseMs: 300_000, incrementMs: 0 } });
    device = new PtyDevice(emulator, join(dir, 'board1'), join(dir, 'board1.emu'));
    const opened = await device.open();
    if (!opened.ok) throw new Error(opened.error);
    session = new BoardSession({
      transport: serialTransportFactory(device.hostPath),
      whiteOnClock: 'right',
      reconnectBaseMs: 200,
      reconnectMaxMs: 1_000,
    });
    session.on((e) => events.push(e));
    session.start();
  });

  afterAll(async () => {
    await session?.stop();
    await device?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('handshakes, then receives field updates and colour-resolved clock times', async () => {
    await until('the first dump', () => board().find((e) => e.type === 'dump'));
    expect(device.hostBytes.slice(0, 6)).toEqual(HANDSHAKE);
    expect(session.state).toBe('live');
    expect(session.serialNumber).toBe('0000054321');
    expect(board().find((e) => e.type === 'dump')).toMatchObject({ board: emulator.board() });

    device.withDevice((_d, at) => {
      emulator.act({ kind: 'lift', at, field: E2 });
      emulator.act({ kind: 'place', at: at + 1, field: E4, piece: PIECE.WPAWN });
    });
    await until('two field updates', () => board().filter((e) => e.type === 'field').length >= 2);
    expect(
      board()
        .filter((e) => e.type === 'field')
        .map((e) => (e.type === 'field' ? [e.field, e.piece] : [])),
    ).toEqual([
      [E2, PIECE.EMPTY],
      [E4, PIECE.WPAWN],
    ]);

    // White moved: White presses, Black's clock (on the left) starts.
    device.withDevice((_d, at) => emulator.act({ kind: 'press', at, by: 'white' }));
    const running = await until('a clock reading with Black running', () => board().find((e) => e.type === 'clock' && e.running === 'black'));
    expect(running).toMatchObject({ type: 'clock', whiteFlag: false, blackFlag: false });
    if (running.type === 'clock') expect(running.whiteMs).toBeLessThanOrEqual(300_000);
  });

  it('notices the device disappear, reconnects when it returns, and re-reads the board by itself', async () => {
    const handshakesBefore = (() => {
      let n = 0;
      for (let i = indexOfSeq(device.hostBytes, HANDSHAKE); i >= 0; i = indexOfSeq(device.hostBytes, HANDSHAKE, i + 1)) n++;
      return n;
    })();
    const dumpsBefore = board().filter((e) => e.type === 'dump').length;
    await device.remove();
    await until('the connection loss event', () => board().find((e) => e.type === 'connection' && !e.connected));
    await until('a retry being scheduled', () => events.find((e) => e.type === 'state' && e.state === 'retrying'));

    // Black replies while the cable is out: only the re-dump can tell the driver.
    device.withDevice((_d, at) => {
      emulator.act({ kind: 'lift', at, field: E7 });
      emulator.act({ kind: 'place', at: at + 1, field: E5, piece: PIECE.BPAWN });
    });
    await new Promise((r) => setTimeout(r, 600));
    const back = await device.recreate();
    if (!back.ok) throw new Error(back.error);

    const redump = await until('the re-dump after reconnecting', () => board().filter((e) => e.type === 'dump')[dumpsBefore], 15_000);
    expect(redump).toMatchObject({ board: emulator.board() });
    if (redump.type === 'dump') {
      expect(redump.board[E5]).toBe(PIECE.BPAWN);
      expect(redump.board[E7]).toBe(PIECE.EMPTY);
    }
    const connections = board()
      .filter((e) => e.type === 'connection')
      .map((e) => (e.type === 'connection' ? e.connected : null));
    expect(connections).toEqual([true, false, true]);
    let handshakes = 0;
    for (let i = indexOfSeq(device.hostBytes, HANDSHAKE); i >= 0; i = indexOfSeq(device.hostBytes, HANDSHAKE, i + 1)) handshakes++;
    expect(handshakes).toBe(handshakesBefore + 1);
    expect(emulator.mode).toBe('update-nice');

    // Live again: a later move arrives as field updates.
    const fieldsBefore = board().filter((e) => e.type === 'field').length;
    device.withDevice((_d, at) => emulator.act({ kind: 'lift', at, field: 62 }));
    const later = await until('a field update after the reconnect', () => board().filter((e) => e.type === 'field')[fieldsBefore]);
    expect(later).toMatchObject({ field: 62, piece: PIECE.EMPTY });
    expect(session.state).toBe('live');
  });
});
