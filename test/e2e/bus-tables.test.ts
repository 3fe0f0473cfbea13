import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSquare } from 'chessops/util';
import { afterAll, describe, expect, it } from 'vitest';
import type { BoardEvent } from '../../protocols/board-events.ts';
import { BusReplyDecoder } from '../../protocols/dgt/bus.ts';
import { PIECE, squareToField } from '../../protocols/dgt/squares.ts';
import type { EmulatorAction } from '../../daemon/simulation/emulator/board-emulator.ts';
import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import { busTableLinks, type BusTableLink, type TableLinkEvent } from '../../daemon/runtime/bus-tables.ts';
import { serialTransportFactory } from '../../daemon/transport/serial-transport.ts';
import { runCli, stopChildren, waitForOutput, type Child } from '../runtime/daemon-child.ts';
import { socatAvailable } from './socat.ts';

const socat = socatAvailable('bus-tables');
const children: Child[] = [];
let links: Map<number, BusTableLink> | null = null;
const root = mkdtempSync(join(tmpdir(), 'boardcast-bus-tables-e2e-'));
afterAll(async () => {
  for (const l of links?.values() ?? []) await l.stop();
  await stopChildren(children);
  rmSync(root, { recursive: true, force: true });
});

const field = (name: string) => squareToField(parseSquare(name)!);

/** 1.e4 e5 2.Nf3, played on every board of the line, late enough for the host to have found them. */
function script(startMs: number): EmulatorAction[] {
  const moves: [string, string, number, 'white' | 'black'][] = [
    ['e2', 'e4', PIECE.WPAWN, 'white'],
    ['e7', 'e5', PIECE.BPAWN, 'black'],
    ['g1', 'f3', PIECE.WKNIGHT, 'white'],
  ];
  return moves.flatMap(([from, to, piece, by], i) => {
    const at = startMs + i * 700;
    return [
      { kind: 'lift', at, field: field(from) },
      { kind: 'place', at: at + 150, field: field(to), piece },
      { kind: 'press', at: at + 300, by },
    ] as EmulatorAction[];
  });
}

async function until(what: string, probe: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!socat)('bus tables over a real pseudo-terminal from `boardcast emulate --bus`', () => {
  it('two tables on one line get their own live link, frames and moves; a missing board is reported', async () => {
    const file = join(root, 'script.json');
    writeFileSync(file, JSON.stringify({ actions: script(6_000) }));
    const emulator = runCli(['emulate', '--bus', '--boards', '2', '--serial-base', '12007', '--dir', join(root, 'hall'), '--script', file]);
    children.push(emulator);
    const line = await waitForOutput(emulator, (out) => /board 1: (\S+) serial 12007 address 12007 bus/.exec(out)?.[1]);
    await waitForOutput(emulator, (out) => (out.split('\n').includes('ready') ? true : undefined));

    links = busTableLinks([{ path: line, tables: [7, 8, 9].map((n) => ({ number: n, serial: `1200${n}`, whiteOnClock: 'left' as const })) }], {
      transport: (p) => serialTransportFactory(p),
      session: { pollIntervalMs: 250 },
    });
    const events = new Map<number, TableLinkEvent[]>();
    for (const [n, l] of links) {
      const list: TableLinkEvent[] = [];
      events.set(n, list);
      l.on((e) => list.push(e));
      l.start();
    }
    const boardEvents = (n: number): BoardEvent[] => events.get(n)!.flatMap((e) => (e.type === 'board' ? [e.event] : []));
    await until('tables 7 and 8 live', () => links!.get(7)!.state === 'live' && links!.get(8)!.state === 'live', 15_000);
    const sans = (n: number): string[] => {
      const engine = new GameEngine({ rules: { edition: '2018', category: 'standard' } });
      return boardEvents(n)
        .flatMap((e) => engine.push(e))
        .flatMap((g) => (g.type === 'move-made' ? [g.san] : []));
    };
    await until('three moves on both tables', () => sans(7).length >= 3 && sans(8).length >= 3, 20_000);
    expect(sans(7)).toEqual(['e4', 'e5', 'Nf3']);
    expect(sans(8)).toEqual(['e4', 'e5', 'Nf3']);

    for (const n of [7, 8]) {
      expect(links.get(n)!.serialNumber).toBe(`1200${n}`);
      const frames = events.get(n)!.flatMap((e) => (e.type === 'frame' ? [e] : []));
      for (const f of frames) expect(new BusReplyDecoder().push(f.raw)).toMatchObject([{ ok: true, address: 12000 + n }]);
      // Every field change came in a frame of the same time, which the runtime stores it with.
      const frameTimes = new Set(frames.map((f) => f.at));
      expect(
        boardEvents(n)
          .filter((e) => e.type === 'field')
          .every((e) => frameTimes.has(e.at)),
      ).toBe(true);
    }
    expect(links.get(9)!.state).toBe('handshaking');
    expect(events.get(9)!.some((e) => e.type === 'problem' && e.detail.includes('board 12009 (bus address 12009) did not answer'))).toBe(true);
  }, 60_000);
});
