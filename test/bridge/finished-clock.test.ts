import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { mountBridges } from '../../bridge/index.ts';
import type { LccGame } from '../../bridge/lcc/format.ts';
import { liveChessClock } from '../../bridge/livechess/board-view.ts';
import type { EboardEvent, EboardInfo } from '../../bridge/livechess/messages.ts';
import { startLiveChessApi, type LiveChessApi } from '../../bridge/livechess/server.ts';
import type { GameChange } from '../../protocols/feed/model.ts';
import { Hall } from '../server/hall.ts';

/**
 * Issue 10, items 6 and 7: the LiveChess clock as DGT's interface has it (run true = White's clock,
 * false = Black's, null = stopped), and a finished game's clock stopped in every output: the read
 * model (/api, the feed), LCC JSON (clock null) and the LiveChess API (run null).
 */

let hall: Hall;
let http: Server;
let base: string;
let api: LiveChessApi;
let mateChanges: GameChange[];

beforeAll(async () => {
  hall = new Hall({ tables: 2 });
  hall.connectAll();
  hall.play('r1-t1', 'e4');
  mateChanges = [];
  for (const san of ['f3', 'e5', 'g4', 'Qh4#']) mateChanges.push(...hall.play('r1-t2', san));
  const app = express();
  mountBridges(app, hall.source);
  http = createServer(app);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const started = await startLiveChessApi({
    source: hall.source,
    port: 0,
    boards: () => [
      { serialnr: '24611', state: 'ACTIVE', table: 1 },
      { serialnr: '24612', state: 'ACTIVE', table: 2 },
    ],
  });
  if (!started.ok) throw new Error(started.error);
  api = started.value;
});
afterAll(async () => {
  await api?.close();
  await new Promise<void>((resolve) => http?.close(() => resolve()));
});

async function firstFeed(serialnr: string): Promise<EboardEvent> {
  const ws = new WebSocket(api.url);
  const feed = new Promise<EboardEvent>((resolve) =>
    ws.on('message', (d) => {
      const m = JSON.parse((d as Buffer).toString('utf8')) as { response: string; param: unknown };
      if (m.response === 'feed') resolve(m.param as EboardEvent);
    }),
  );
  await new Promise<void>((resolve) => ws.once('open', () => resolve()));
  ws.send(JSON.stringify({ id: 1, call: 'subscribe', param: { feed: 'eboardevent', id: 1, param: { serialnr } } }));
  const f = await feed;
  ws.close();
  return f;
}

describe('LiveChess clock fields', () => {
  it('run is a boolean as DGT has it: true while White thinks, false while Black thinks, null when stopped', () => {
    const at = Date.UTC(2026, 10, 21, 15);
    const reading = { whiteMs: 5_399_500, blackMs: 5_400_000, readAt: at, whiteFlag: false, blackFlag: false };
    expect(liveChessClock({ ...reading, running: 'white' })).toEqual({ white: 5399, black: 5400, run: true, time: at });
    expect(liveChessClock({ ...reading, running: 'black' })!.run).toBe(false);
    expect(liveChessClock({ ...reading, running: null })!.run).toBeNull();
    expect(liveChessClock({ ...reading, running: 'white' }, true)!.run).toBeNull();
    expect(liveChessClock(null)).toBeNull();
  });

  it('sends a live game with Black to move as run false on the API', async () => {
    const f = await firstFeed('24611');
    expect(f.san).toEqual(['e4']);
    expect(f.clock!.run).toBe(false);
    expect(typeof f.clock!.white).toBe('number');
  });
});

describe('a finished game stops its clock', () => {
  it('publishes a stopped clock right after the result (the feed and /api read it)', () => {
    const result = mateChanges.findIndex((c) => c.kind === 'result');
    expect(result).toBeGreaterThanOrEqual(0);
    const after = mateChanges[result + 1];
    expect(after?.kind).toBe('clock');
    if (after?.kind === 'clock') expect(after.clock.running).toBeNull();
    const g = hall.source.game('r1-t2')!;
    expect(g.status).toBe('finished');
    expect(g.clock!.running).toBeNull();
    expect(hall.source.games(1)!.find((s) => s.id === 'r1-t2')!.clock!.running).toBeNull();
  });

  it('keeps it stopped while the clock on the table runs on', () => {
    const t = hall.table('r1-t2');
    const reading = t.top.clockAt(t.t + 20_000);
    expect(reading?.type === 'clock' && reading.running).toBe('white');
    expect(hall.push('r1-t2', reading!)).toEqual([]);
    expect(hall.source.game('r1-t2')!.clock!.running).toBeNull();
  });

  it('LCC sends clock null for it, as real LCC game files do', async () => {
    const g = (await (await fetch(`${base}/lcc/round-1/game-2.json`)).json()) as LccGame;
    expect(g.result).toBe('BLACKWIN');
    expect(g.clock).toBeNull();
    const live = (await (await fetch(`${base}/lcc/round-1/game-1.json`)).json()) as LccGame;
    expect(live.clock!.run).toBe(false);
  });

  it('the LiveChess API sends it with run null, in eboards and the feed', async () => {
    const f = await firstFeed('24612');
    expect(f.san).toEqual(['f3', 'e5', 'g4', 'Qh4#']);
    expect(f.clock!.run).toBeNull();
    const ws = new WebSocket(api.url);
    const list = new Promise<EboardInfo[]>((resolve) => ws.on('message', (d) => resolve((JSON.parse((d as Buffer).toString('utf8')) as { param: EboardInfo[] }).param)));
    await new Promise<void>((resolve) => ws.once('open', () => resolve()));
    ws.send(JSON.stringify({ id: 1, call: 'eboards' }));
    const boards = await list;
    ws.close();
    expect(boards.find((b) => b.serialnr === '24612')!.clock!.run).toBeNull();
    expect(boards.find((b) => b.serialnr === '24611')!.clock!.run).toBe(false);
  });
});
