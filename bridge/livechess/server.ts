import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { LiveSource } from '../../protocols/feed/model.ts';
import { currentGame, eboardEvent, liveChessClock, resolveSetupPly } from './board-view.ts';
import type { Result } from '../../protocols/result.ts';
import { decodeClientMessage, type BoardState, type ClientMessage, type EboardInfo, type ServerMessage } from './messages.ts';

export const LIVECHESS_PATH = '/api/v1.0';
export const LIVECHESS_DEFAULT_PORT = 1982;

export interface BoardInfo {
  serialnr: string;
  state: BoardState;
  /** The hall table the board stands on (GameSummary.table). */
  table: number;
}

export interface LiveChessApiOptions {
  source: LiveSource;
  /** The boards as the runtime sees them now (called on every `eboards` call and change). */
  boards: () => BoardInfo[];
  /** Default 1982, the port LiveChess uses and clients assume; 0 picks a free one. */
  port?: number;
  /** Default 127.0.0.1: LiveChess serves the local machine (the browser page connects to localhost). */
  host?: string;
}

export interface LiveChessApi {
  url: string;
  port: number;
  /** Messages that could not be understood (each answered with an error message). */
  readonly stats: { connections: number; badMessages: number; feedMessages: number };
  close(): Promise<void>;
}

/** The running API, or why it could not listen. */
export type StartResult = Result<LiveChessApi, string>;

interface Subscription {
  serialnr: string;
  /** The last `setup` position and the ply it was found at (null while not reached). */
  setup: { fen: string; ply: number | null } | null;
  lastSent: string | null;
}

/**
 * A LiveChess-compatible eBoard websocket API on boardcast's boards, so a player can use lichess's
 * DGT page (or any LiveChess client) with boardcast instead of DGT LiveChess. Every subscription to
 * feed `eboardevent` gets the board's state at once and again on every change that alters it.
 */
export async function startLiveChessApi(opts: LiveChessApiOptions): Promise<StartResult> {
  const host = opts.host ?? '127.0.0.1';
  const stats = { connections: 0, badMessages: 0, feedMessages: 0 };
  const http = createServer((req, res) => {
    // LiveChess also answers the board list over plain HTTP (GET /api/v1.0/eboards), which is how
    // organisers check that the boards are seen before opening a client.
    if (req.method === 'GET' && (req.url ?? '').split('?')[0] === `${LIVECHESS_PATH}/eboards`) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' }).end(JSON.stringify(eboards()));
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`LiveChess eBoard API: websocket at ${LIVECHESS_PATH}, board list at GET ${LIVECHESS_PATH}/eboards\n`);
  });
  const wss = new WebSocketServer({ server: http, path: LIVECHESS_PATH, maxPayload: 64 * 1024 });
  // ws re-emits the HTTP server's errors (a taken port) on itself; the listen below reports them.
  wss.on('error', () => {});
  const clients = new Map<WebSocket, Map<number, Subscription>>();

  const boardOf = (serialnr: string): BoardInfo | undefined => opts.boards().find((b) => b.serialnr === serialnr);
  const gameOf = (serialnr: string) => {
    const b = boardOf(serialnr);
    const s = b ? currentGame(opts.source, b.table) : undefined;
    return s ? opts.source.game(s.id) : undefined;
  };
  const send = (ws: WebSocket, m: ServerMessage): void => {
    // LiveChess stamps every message with its epoch ms `time` beside response, id and param.
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ ...m, time: Date.now() }));
  };
  const feed = (ws: WebSocket, subId: number, sub: Subscription): void => {
    const g = gameOf(sub.serialnr);
    if (g && sub.setup) sub.setup.ply = resolveSetupPly(g, sub.setup.fen, sub.setup.ply);
    const param = eboardEvent(sub.serialnr, g, sub.setup);
    const text = JSON.stringify(param);
    // The client ignores exact duplicates anyway; not sending them saves it the work.
    if (text === sub.lastSent) return;
    sub.lastSent = text;
    stats.feedMessages++;
    send(ws, { response: 'feed', id: subId, param });
  };
  const eboards = (): EboardInfo[] =>
    opts.boards().map((b) => {
      const g = gameOf(b.serialnr);
      return {
        serialnr: b.serialnr,
        source: 'boardcast',
        state: b.state,
        battery: null,
        comment: g ? `table ${b.table}: ${g.white.name} - ${g.black.name}` : `table ${b.table}`,
        board: g ? (g.fen.split(' ')[0] ?? '') : '8/8/8/8/8/8/8/8',
        flipped: false,
        clock: liveChessClock(g?.clock ?? null, g?.status === 'finished'),
      };
    });

  const handle = (ws: WebSocket, subs: Map<number, Subscription>, m: ClientMessage): void => {
    switch (m.call) {
      case 'eboards':
        send(ws, { response: 'call', id: m.id, param: eboards() });
        return;
      case 'subscribe': {
        if (m.feed !== 'eboardevent') {
          stats.badMessages++;
          send(ws, { response: 'error', id: m.id, param: { message: `unknown feed ${m.feed}` } });
          return;
        }
        if (!boardOf(m.serialnr)) {
          stats.badMessages++;
          send(ws, { response: 'error', id: m.id, param: { message: `no board ${m.serialnr}` } });
          return;
        }
        const sub: Subscription = { serialnr: m.serialnr, setup: null, lastSent: null };
        subs.set(m.subscription, sub);
        send(ws, { response: 'call', id: m.id, param: null });
        feed(ws, m.subscription, sub);
        return;
      }
      case 'unsubscribe':
        subs.delete(m.subscription);
        send(ws, { response: 'call', id: m.id, param: null });
        return;
      case 'call': {
        const sub = subs.get(m.subscription);
        const fen = m.param.fen;
        if (!sub || m.method !== 'setup' || typeof fen !== 'string') {
          stats.badMessages++;
          const why = !sub ? `no subscription ${m.subscription}` : m.method !== 'setup' ? `unknown method ${m.method}` : 'setup needs param.fen';
          send(ws, { response: 'error', id: m.id, param: { message: why } });
          return;
        }
        sub.setup = { fen, ply: null };
        sub.lastSent = null;
        send(ws, { response: 'call', id: m.id, param: null });
        feed(ws, m.subscription, sub);
        return;
      }
    }
  };

  wss.on('connection', (ws) => {
    stats.connections++;
    const subs = new Map<number, Subscription>();
    clients.set(ws, subs);
    ws.on('message', (data) => {
      // ws hands text frames over as a Buffer (binaryType 'nodebuffer').
      const d = decodeClientMessage((data as Buffer).toString('utf8'));
      if (!d.ok) {
        stats.badMessages++;
        send(ws, { response: 'error', id: d.error.id, param: { message: d.error.message } });
        return;
      }
      handle(ws, subs, d.value);
    });
    ws.on('close', () => clients.delete(ws));
    ws.on('error', () => clients.delete(ws));
  });

  const unsubscribe = opts.source.subscribe((change) => {
    for (const [ws, subs] of clients) {
      for (const [subId, sub] of subs) {
        const g = gameOf(sub.serialnr);
        if (change.kind === 'game' || g?.id === change.gameId) feed(ws, subId, sub);
      }
    }
  });

  const listened = await new Promise<string | null>((resolve) => {
    http.once('error', (e: NodeJS.ErrnoException) => resolve(`${host}:${opts.port ?? LIVECHESS_DEFAULT_PORT}: ${e.code ?? e.message}`));
    http.listen(opts.port ?? LIVECHESS_DEFAULT_PORT, host, () => resolve(null));
  });
  if (listened !== null) {
    unsubscribe();
    wss.close();
    return { ok: false, error: `LiveChess API could not listen on ${listened}` };
  }
  const port = (http.address() as AddressInfo).port;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  return {
    ok: true,
    value: {
      url: `ws://${hostInUrl}:${port}${LIVECHESS_PATH}`,
      port,
      stats,
      close: async () => {
        unsubscribe();
        for (const ws of clients.keys()) ws.terminate();
        await new Promise<void>((resolve) => wss.close(() => resolve()));
        await new Promise<void>((resolve) => http.close(() => resolve()));
      },
    },
  };
}
