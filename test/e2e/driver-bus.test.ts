import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PIECE } from '../../protocols/dgt/index.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { EmulatedBus } from '../../daemon/simulation/emulator/emulated-bus.ts';
import { PtyDevice } from '../../daemon/simulation/pty-board.ts';
import { BusSession, type BusEvent } from '../../daemon/board/bus.ts';
import { serialTransportFactory } from '../../daemon/transport/serial-transport.ts';
import { socatAvailable } from './socat.ts';

const socat = socatAvailable('driver-bus');

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!socat)('bus-mode driver over a real pseudo-terminal', () => {
  let dir: string;
  let device: PtyDevice;
  let a: BoardEmulator;
  let b: BoardEmulator;
  let session: BusSession;
  const events: BusEvent[] = [];
  const of = (address: number) => events.flatMap((e) => (e.type === 'board' && e.address === address ? [e.event] : []));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'boardcast-bus-e2e-'));
    a = new BoardEmulator({ serial: '00513', busMode: true });
    b = new BoardEmulator({ serial: '00770', busMode: true });
    device = new PtyDevice(new EmulatedBus([a, b]), join(dir, 'bus1'), join(dir, 'bus1.emu'));
    const opened = await device.open();
    if (!opened.ok) throw new Error(opened.error);
    session = new BusSession({ transport: serialTransportFactory(device.hostPath), pollIntervalMs: 300 });
    session.on((e) => events.push(e));
    session.start();
  });

  afterAll(async () => {
    await session?.stop();
    await device?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds both boards, dumps them, and turns polled changes into per-board field events', async () => {
    const found = await until('discovery', () => events.find((e) => e.type === 'discovered'));
    expect(found).toMatchObject({ addresses: [513, 770] });
    await until('both dumps', () => of(513).some((e) => e.type === 'dump') && of(770).some((e) => e.type === 'dump'));
    device.withDevice((_d, at) => {
      b.act({ kind: 'lift', at, field: 12 });
      b.act({ kind: 'place', at: at + 1, field: 28, piece: PIECE.BPAWN });
    });
    await until('the polled changes of board 770', () => of(770).filter((e) => e.type === 'field').length >= 2);
    expect(
      of(770)
        .filter((e) => e.type === 'field')
        .map((e) => (e.type === 'field' ? [e.field, e.piece] : [])),
    ).toEqual([
      [12, PIECE.EMPTY],
      [28, PIECE.BPAWN],
    ]);
    expect(of(513).filter((e) => e.type === 'field')).toEqual([]);
    expect(session.board(770)).toEqual(b.board());
    expect(events.filter((e) => e.type === 'bad-reply')).toEqual([]);
  });
});
