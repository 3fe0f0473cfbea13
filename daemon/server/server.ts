import express from 'express';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';
import { mountBridges } from '../../bridge/index.ts';
import { packageDir } from '../install/paths.ts';
import { FEED_PATH } from '../../protocols/feed/messages.ts';
import { arbiterTokenCheck } from './arbiter-auth.ts';
import { Access, type AccessOptions, type OfficialRole } from './access.ts';
import { loginRouter, officialPage, type AccessLog } from './login.ts';
import { DEFAULT_FEED_LIMITS, FeedHub, type FeedLimits } from './feed-hub.ts';
import { jsonErrors, type RequestProblem } from './error-handler.ts';
import { apiRouter, type AmendmentSource, type HallSource, type HealthReport, type TimelineSource } from './http-api.ts';
import type { LiveSource } from '../../protocols/feed/model.ts';
import type { ArbiterHandler } from '../runtime/arbiter.ts';
import type { RoundHandler } from '../runtime/arbiter-actions.ts';
import type { BoardChangeHandler } from '../runtime/board-changes.ts';
import { bundleViewer } from './viewer-bundle.ts';
import { viewerHtml } from './viewer-html.ts';

export interface ServerOptions {
  source: LiveSource;
  /**
   * What the public sees (the broadcast delay's view: API, feed, viewer, /lcc, /relay); officials
   * read `source` live. Default: `source`.
   */
  publicSource?: LiveSource;
  /** Default 127.0.0.1; "0.0.0.0" to serve the hall network. */
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Arbiter token; falls back to BOARDCAST_ARBITER_TOKEN; absent means no arbiter access. */
  arbiterToken?: string | null;
  /** Officials' accounts (config `access`) and their sessions; without accounts only the token works. */
  access?: AccessOptions;
  feed?: Partial<FeedLimits>;
  /** Bundle and serve the viewer (default true); the bench turns it off. */
  viewer?: boolean;
  /** permessage-deflate only pays for larger frames (snapshots); small deltas go uncompressed. */
  deflateThresholdBytes?: number;
  /**
   * The read-only feeds broadcast platforms poll (/lcc LiveChess Cloud JSON, /relay round PGN);
   * on by default. `serialOf` names the board serial of a table for the LCC game files.
   */
  bridges?: false | { serialOf?: (table: number) => string | null };
  /** The hall report for officials (GET /api/hall, the /hall page); absent: no such routes. */
  hall?: HallSource;
  /** Changes a table's board (POST /api/arbiter/tables/:n/board); absent: no such route. */
  boards?: BoardChangeHandler;
  /** Fields added to GET /health (the daemon reports its tables and their board connections). */
  health?: HealthReport;
  /** Applies token-checked arbiter actions (POST /api/arbiter/games/:id/…); absent: no such routes. */
  arbiter?: ArbiterHandler;
  /** Starts and closes rounds (POST /api/arbiter/rounds/:n/start|close); absent: no such routes. */
  rounds?: RoundHandler;
  /** Told of every login, refused login and logout (one line for the log). */
  onAccess?: AccessLog;
  /** Told of every request that ended in an error (one line for the log); the client gets JSON. */
  onRequestError?: (p: RequestProblem) => void;
  /** A game's timeline for the arbiter's replay (GET /api/arbiter/games/:id/timeline); absent: no such route. */
  timeline?: TimelineSource;
  /** A game's amendments with their undone state (GET /api/arbiter/games/:id/amendments); absent: no such route. */
  amendments?: AmendmentSource;
}

export interface RunningServer {
  url: string;
  port: number;
  hub: FeedHub;
  http: Server;
  /** Why the viewer is not served, when bundling failed. */
  viewerError: string | null;
  /** Every route the HTTP server answers, read from its router (the spectator test walks them). */
  routes: readonly { method: string; path: string }[];
  close(): Promise<void>;
}

const chessgroundAssets = join(packageDir('@lichess-org/chessground'), 'assets');

/** HTTP API, viewer and websocket feed on one port. */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const startedAt = Date.now();
  const limits: FeedLimits = { ...DEFAULT_FEED_LIMITS, ...opts.feed };
  const access = new Access(arbiterTokenCheck(opts.arbiterToken), opts.access);
  const app = express();
  app.disable('x-powered-by');
  // Production mode whatever NODE_ENV says: Express then renders no error pages of its own.
  app.set('env', 'production');
  // No page of ours tells another site where the reader came from (an official's page names games and rounds).
  app.use((_req, res, next) => {
    res.set('Referrer-Policy', 'no-referrer');
    next();
  });
  app.use(loginRouter(access, opts.onAccess));
  const publicSource = opts.publicSource ?? opts.source;
  app.use(apiRouter(opts.source, access, startedAt, opts.health, opts.arbiter, opts.rounds, opts.timeline, publicSource, opts.hall, opts.amendments, opts.boards));

  let viewerError: string | null = null;
  if (opts.viewer !== false) {
    const built = await bundleViewer();
    if (built.ok) {
      const { js, css } = built.value;
      app.get('/viewer.js', (_req, res) => {
        res.type('text/javascript').set('Cache-Control', 'no-cache').send(js);
      });
      app.get('/viewer.css', (_req, res) => {
        res.type('text/css').set('Cache-Control', 'no-cache').send(css);
      });
      app.use('/chessground', express.static(chessgroundAssets, { maxAge: '1h' }));
      const page = viewerHtml();
      const send = (_req: unknown, res: express.Response): void => {
        res.type('text/html').send(page);
      };
      for (const route of ['/', '/game/:id', '/demo']) app.get(route, send);
      // The officials' pages: the desk is the organiser's too (rounds); games and replays are the arbiters'.
      const officialPages: [string, readonly OfficialRole[]][] = [
        ['/arbiter', ['arbiter', 'organiser']],
        ['/arbiter/:id', ['arbiter']],
        ['/arbiter/replay/:id', ['arbiter']],
      ];
      for (const [route, roles] of officialPages) app.get(route, officialPage(access, roles), send);
      // The organiser's hall page: a spectator gets 401 with the login form in place (back here after).
      if (opts.hall) app.get('/hall', officialPage(access, ['arbiter', 'organiser'], 'login-form'), send);
    } else viewerError = built.error;
  }
  if (opts.bridges !== false) mountBridges(app, publicSource, { lcc: { serialOf: opts.bridges?.serialOf } });
  app.use((req, res) => {
    res.status(404).json({ error: { status: 404, code: 'not-found', message: `nothing at ${req.method} ${req.path}` } });
  });
  app.use(jsonErrors(opts.onRequestError));

  const http = createServer(app);
  const deflateThreshold = opts.deflateThresholdBytes ?? 1024;
  // An arbiter's page authenticates its feed with the session cookie at the upgrade (scripts: the
  // Bearer header or an `auth` message); organisers get the public feed, incidents are arbiters' only.
  const feedAuth = {
    roleAtUpgrade: (req: IncomingMessage) => {
      const p = access.principal(req);
      return p.kind !== 'spectator' && p.role === 'arbiter' ? ('arbiter' as const) : ('public' as const);
    },
    tokenIsArbiter: (token: string) => access.tokenIsArbiter(token),
  };
  const hub = new FeedHub(opts.source, feedAuth, limits, deflateThreshold, publicSource);
  const wss = new WebSocketServer({
    server: http,
    path: FEED_PATH,
    maxPayload: limits.maxPayload,
    // The connection limits answer at the upgrade: a refused client costs no websocket.
    verifyClient: (info: { req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string) => void) =>
      hub.admits(info.req.socket.remoteAddress ?? '?') ? done(true) : done(false, 503, 'too many feed connections; try again later'),
    perMessageDeflate: {
      threshold: deflateThreshold,
      // Each connection that ever got a compressed frame keeps its zlib stream. A 4 KiB window and
      // memLevel 5 cost ~12 KiB per connection instead of ~256 KiB (zlib's defaults), which is what
      // lets thousands of clients stay connected; snapshots are repetitive JSON and still shrink
      // well. No context takeover: the window is not kept between frames either.
      zlibDeflateOptions: { level: 3, memLevel: 5 },
      serverMaxWindowBits: 12,
      serverNoContextTakeover: true,
      clientNoContextTakeover: true,
    },
  });
  wss.on('connection', (ws, req) => hub.accept(ws, req));
  // ws reports protocol violations (oversized frames, bad opcodes) on the socket and closes it;
  // the listener keeps them from becoming uncaught errors.
  wss.on('error', () => undefined);

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const host = opts.host ?? '127.0.0.1';
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    port,
    hub,
    http,
    viewerError,
    routes: listRoutes(app),
    close: async () => {
      hub.close();
      wss.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** The routes of an Express app and of the routers mounted at its root, as [method, path]. */
function listRoutes(app: express.Express): { method: string; path: string }[] {
  const out: { method: string; path: string }[] = [];
  const walk = (stack: Layer[]): void => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) for (const method of Object.keys(layer.route.methods)) out.push({ method: method.toUpperCase(), path });
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return out;
}
