import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startLiveChessApi, type BoardInfo, type LiveChessApi } from '../../bridge/livechess/server.ts';
import type { EboardEvent, EboardInfo } from '../../bridge/livechess/messages.ts';
import { Hall, LINES } from '../server/hall.ts';

/** A LiveChess client as lichess's DGT page is one: numbered calls, answers and feed messages queued. */
class LiveChessClient {
  readonly messages: { response: string; id: number | null; param: unknown }[] = [];
  private waiters: { pred: (m: LiveChessClient['messages'][number]) => boolean; resolve: (m: LiveChessClient['messages'][number]) => void }[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const m = JSON.parse((data as Buffer).toString('utf8')) as LiveChessClient['messages'][number];
      this.messages.push(m);
      this.waiters = this.waiters.filter((w) => {
        if (!w.pred(m)) return true;
        w.resolve(m);
        return false;
      });
    });
  }
  static async open(url: string): Promise<LiveChessClient> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new LiveChessClient(ws);
  }
  send(m: unknown): void {
    this.ws.send(JSON.stringify(m));
  }
  next(pred: (m: LiveChessClient['messages'][number]) => boolean): Promise<LiveChessClient['messages'][number]> {
    const seen = this.messages.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }
  /** Waits for a matching message that arrives after the first `mark` messages. */
  nextAfter(mark: number, pred: (m: LiveChessClient['messages'][number]) => boolean): Promise<LiveChessClient['messages'][number]> {
    return this.next((m) => this.messages.indexOf(m) >= mark && pred(m));
  }
  feeds(subId: number): EboardEvent[] {
    return this.messages.filter((m) => m.response === 'feed' && m.id === subId).map((m) => m.param as EboardEvent);
  }
  close(): void {
    this.ws.close();
  }
}

let hall: Hall;
let api: LiveChessApi;
const boards: BoardInfo[] = [
  { serialnr: '24617', state: 'ACTIVE', table: 1 },
  { serialnr: '24618', state: 'NOTRESPONDING', table: 2 },
];

beforeAll(async () => {
  hall = new Hall({ tables: 2 });
  hall.connectAll();
  const started = await startLiveChessApi({ source: hall.source, boards: () => boards, port: 0 });
  if (!started.ok) throw new Error(started.error);
  api = started.value;
});
afterAll(async () => {
  await api?.close();
});

describe('LiveChess eBoard API', () => {
  it('listens on /api/v1.0 and answers an eboards call with every board and its state', async () => {
    expect(api.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/api\/v1\.0$/);
    const c = await LiveChessClient.open(api.url);
    c.send({ id: 1, call: 'eboards' });
    const m = await c.next((x) => x.response === 'call' && x.id === 1);
    const list = m.param as EboardInfo[];
    expect(list.map((b) => [b.serialnr, b.state])).toEqual([
      ['24617', 'ACTIVE'],
      ['24618', 'NOTRESPONDING'],
    ]);
    expect(list[0]!.board).toBe('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR');
    // Stamped with the time it was sent, as LiveChess's messages are.
    expect(typeof (m as { time?: unknown }).time).toBe('number');
    c.close();
  });

  it('feeds a subscription the moves as they are played on the board, with board and clock', async () => {
    const c = await LiveChessClient.open(api.url);
    c.send({ id: 2, call: 'subscribe', param: { feed: 'eboardevent', id: 1, param: { serialnr: '24617' } } });
    await c.next((x) => x.response === 'call' && x.id === 2);
    const first = await c.next((x) => x.response === 'feed' && x.id === 1);
    expect((first.param as EboardEvent).san).toEqual([]);

    const line = LINES[0]!.slice(0, 4);
    for (const [i, san] of line.entries()) {
      hall.play('r1-t1', san);
      await c.next((x) => x.response === 'feed' && x.id === 1 && (x.param as EboardEvent).san.length === i + 1);
    }
    const last = c.feeds(1).at(-1)!;
    expect(last.serialnr).toBe('24617');
    expect(last.san).toEqual(line);
    expect(last.board).toBe(hall.fen('r1-t1').split(' ')[0]);
    expect(last.clock).not.toBeNull();
    expect(last.clock!.white).toBeGreaterThan(80 * 60);
    expect(last.clock!.white).toBeLessThanOrEqual(90 * 60 + 60);
    // Every feed message extends or repeats the list, never reorders it (the client's duplicate rule).
    for (const f of c.feeds(1)) expect(line.slice(0, f.san.length)).toEqual(f.san);
    // The other table's moves do not reach this subscription.
    const before = c.feeds(1).length;
    hall.play('r1-t2', 'd4');
    c.send({ id: 9, call: 'eboards' });
    await c.next((x) => x.response === 'call' && x.id === 9);
    expect(c.feeds(1).length).toBe(before);
    c.close();
  });

  it('counts san from the position given by a setup call', async () => {
    const c = await LiveChessClient.open(api.url);
    c.send({ id: 2, call: 'subscribe', param: { feed: 'eboardevent', id: 1, param: { serialnr: '24617' } } });
    await c.next((x) => x.response === 'feed' && x.id === 1);
    // The position after 1.e4 e5 (table 1 played e4 e5 Nf3 Nc6 above).
    const afterTwo = 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2';
    c.send({ id: 3, call: 'call', param: { id: 1, method: 'setup', param: { fen: afterTwo } } });
    await c.next((x) => x.response === 'call' && x.id === 3);
    const fed = await c.next((x) => x.response === 'feed' && x.id === 1 && (x.param as EboardEvent).san.length === 2);
    expect((fed.param as EboardEvent).san).toEqual(['Nf3', 'Nc6']);
    hall.play('r1-t1', 'Bb5');
    const next = await c.next((x) => x.response === 'feed' && x.id === 1 && (x.param as EboardEvent).san.length === 3);
    expect((next.param as EboardEvent).san).toEqual(['Nf3', 'Nc6', 'Bb5']);
    c.close();
  });

  it('waits for a setup position the board has not reached yet, and picks its latest occurrence', async () => {
    // Table 2 stands after 1.d4 (played above). The online game is a move ahead: 1.d4 d5.
    const c = await LiveChessClient.open(api.url);
    c.send({ id: 2, call: 'subscribe', param: { feed: 'eboardevent', id: 1, param: { serialnr: '24618' } } });
    await c.next((x) => x.response === 'feed' && x.id === 1);
    const afterD5 = 'rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2';
    const mark0 = c.messages.length;
    c.send({ id: 3, call: 'call', param: { id: 1, method: 'setup', param: { fen: afterD5 } } });
    await c.next((x) => x.response === 'call' && x.id === 3);
    const waiting = await c.nextAfter(mark0, (x) => x.response === 'feed' && x.id === 1);
    expect((waiting.param as EboardEvent).san).toEqual([]);
    const mark1 = c.messages.length;
    hall.play('r1-t2', 'd5');
    hall.play('r1-t2', 'c4');
    const fed = await c.nextAfter(mark1, (x) => x.response === 'feed' && x.id === 1 && (x.param as EboardEvent).san.length === 1);
    expect((fed.param as EboardEvent).san).toEqual(['c4']);

    // Knights out and back: the position after 2.c4 comes again; a setup now counts from the latest one.
    for (const san of ['Nf6', 'Nf3', 'Ng8', 'Ng1']) hall.play('r1-t2', san);
    await c.nextAfter(mark1, (x) => x.response === 'feed' && x.id === 1 && (x.param as EboardEvent).san.length === 5);
    const mark2 = c.messages.length;
    c.send({ id: 4, call: 'call', param: { id: 1, method: 'setup', param: { fen: hall.fen('r1-t2') } } });
    const reset = await c.nextAfter(mark2, (x) => x.response === 'feed' && x.id === 1);
    expect((reset.param as EboardEvent).san).toEqual([]);
    hall.play('r1-t2', 'e6');
    const after = await c.nextAfter(mark2, (x) => x.response === 'feed' && x.id === 1 && (x.param as EboardEvent).san.length > 0);
    expect((after.param as EboardEvent).san).toEqual(['e6']);
    expect((after.param as EboardEvent).board).toBe(hall.fen('r1-t2').split(' ')[0]);
    c.close();
  });

  it('answers bad input with an error message and keeps the connection', async () => {
    const c = await LiveChessClient.open(api.url);
    const bad = api.stats.badMessages;
    c.ws.send('{not json');
    await c.next((x) => x.response === 'error' && x.id === null);
    c.send({ id: 4, call: 'subscribe', param: { feed: 'eboardevent', id: 7, param: { serialnr: 'nope' } } });
    const e = await c.next((x) => x.response === 'error' && x.id === 4);
    expect((e.param as { message: string }).message).toContain('nope');
    c.send({ id: 5, call: 'call', param: { id: 99, method: 'setup', param: { fen: '8/8/8/8/8/8/8/8 w - - 0 1' } } });
    await c.next((x) => x.response === 'error' && x.id === 5);
    expect(api.stats.badMessages).toBe(bad + 3);
    c.send({ id: 6, call: 'eboards' });
    await c.next((x) => x.response === 'call' && x.id === 6);
    c.close();
  });

  it('answers GET /api/v1.0/eboards over plain HTTP with the same list, as LiveChess does', async () => {
    const c = await LiveChessClient.open(api.url);
    c.send({ id: 1, call: 'eboards' });
    const ws = (await c.next((x) => x.response === 'call' && x.id === 1)).param as EboardInfo[];
    c.close();
    const r = await fetch(`http://127.0.0.1:${api.port}/api/v1.0/eboards`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(await r.json()).toEqual(ws);
    expect((await fetch(`http://127.0.0.1:${api.port}/api/v1.0/other`)).status).toBe(404);
  });

  it('reports a taken port as a value', async () => {
    const again = await startLiveChessApi({ source: hall.source, boards: () => boards, port: api.port });
    expect(again.ok).toBe(false);
    if (!again.ok) expect(again.error).toContain('EADDRINUSE');
  });
});
