import express, { type Request, type Response, type Router } from 'express';
import { publicGame } from './feed-hub.ts';
import type { TokenCheck } from './arbiter-auth.ts';
import { parseArbiterAction, type ArbiterHandler } from '../runtime/arbiter.ts';
import { parseRoundAction, type RoundHandler } from '../runtime/arbiter-actions.ts';
import type { LiveSource } from '../../protocols/feed/model.ts';
import type { Timeline } from '../../protocols/feed/timeline.ts';

/** A game's timeline for the arbiter, or undefined for an unknown game. */
export type TimelineSource = (gameId: string) => Timeline | undefined;

/** A body express.json refused: too large (413), or not JSON (400). */
function bodyRefused(res: Response, e: unknown): void {
  if ((e as { type?: string }).type === 'entity.too.large') return fail(res, 413, 'too-large', 'the request body is larger than 16 KiB');
  fail(res, 400, 'bad-json', `the body is not valid JSON: ${(e as Error).message}`);
}

/** Errors are JSON `{error: {status, code, message}}` so scripts can tell "unknown" from "malformed". */
function fail(res: Response, status: 400 | 401 | 404 | 409 | 413 | 500, code: string, message: string): void {
  res.status(status).json({ error: { status, code, message } });
}

function roundParam(req: Request, res: Response): number | null {
  const raw = String(req.params.n ?? '');
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1) {
    fail(res, 400, 'bad-round', `round must be a positive integer, got ${JSON.stringify(raw)}`);
    return null;
  }
  return Number(raw);
}

function isArbiter(req: Request, check: TokenCheck): boolean {
  const auth = req.headers.authorization;
  return typeof auth === 'string' && auth.startsWith('Bearer ') && check(auth.slice(7).trim());
}

/**
 * The read-only JSON/PGN API (docs/api.md). Answers come straight from the LiveSource read model;
 * incidents are included in /api/games/:id only for `Authorization: Bearer <arbiter token>`.
 */
/** Extra fields for /health from whoever runs the server (the daemon adds its tables and boards). */
export type HealthReport = () => Record<string, unknown>;

export function apiRouter(
  source: LiveSource,
  checkToken: TokenCheck,
  startedAt: number,
  health?: HealthReport,
  arbiter?: ArbiterHandler,
  rounds?: RoundHandler,
  timeline?: TimelineSource,
  publicSource: LiveSource = source,
): Router {
  const r = express.Router();
  // The broadcast delay: the public reads the delayed view, officials the live one.
  const view = (req: Request): LiveSource => (isArbiter(req, checkToken) ? source : publicSource);
  // Public broadcast data: any web page may read it (other viewers, federation sites). No
  // credentials are allowed cross-origin, so arbiter requests only work from our own pages.
  r.use(['/api', '/health'], (_req, res, next) => {
    res.set('Access-Control-Allow-Origin', '*');
    res.set('Cache-Control', 'no-cache');
    next();
  });
  r.get('/health', (_req, res) => {
    // ok false (the store cannot write) answers 503, so a monitor needs no JSON to see it.
    const report = { ok: true, uptimeMs: Date.now() - startedAt, ...health?.() };
    res.status(report.ok === false ? 503 : 200).json(report);
  });
  r.get('/api/tournament', (req, res) => {
    res.json(view(req).tournament());
  });
  r.get('/api/rounds', (req, res) => {
    res.json(view(req).rounds());
  });
  r.get('/api/rounds/:n/games', (req, res) => {
    const n = roundParam(req, res);
    if (n === null) return;
    const games = view(req).games(n);
    if (!games) return fail(res, 404, 'unknown-round', `no round ${n}`);
    res.json(games);
  });
  r.get('/api/rounds/:n/pgn', (req, res) => {
    const n = roundParam(req, res);
    if (n === null) return;
    const games = view(req).games(n);
    if (!games) return fail(res, 404, 'unknown-round', `no round ${n}`);
    const texts = games.map((g) => view(req).pgn(g.id)).filter((t): t is string => t !== undefined);
    res.type('application/x-chess-pgn; charset=utf-8').send(texts.join('\n'));
  });
  r.get('/api/games/:id', (req, res) => {
    const g = view(req).game(String(req.params.id));
    if (!g) return fail(res, 404, 'unknown-game', `no game ${JSON.stringify(req.params.id)}`);
    res.json(isArbiter(req, checkToken) ? g : publicGame(g));
  });
  r.get('/api/games/:id/pgn', (req, res) => {
    const text = view(req).pgn(String(req.params.id));
    if (text === undefined) return fail(res, 404, 'unknown-game', `no game ${JSON.stringify(req.params.id)}`);
    res.type('text/plain; charset=utf-8').send(text);
  });
  // Lets an arbiter page say at once whether its token is accepted, before any action.
  r.get('/api/arbiter/whoami', (req, res) => {
    if (!isArbiter(req, checkToken)) return fail(res, 401, 'unauthorized', 'the arbiter token is missing or wrong');
    res.json({ role: 'arbiter' });
  });
  if (timeline) {
    // The arbiter's replay of a game: every stored raw event and decision with what the engine
    // made of it (docs/api.md, "Timeline"). Built from the store on request.
    r.get('/api/arbiter/games/:id/timeline', (req, res) => {
      if (!isArbiter(req, checkToken)) return fail(res, 401, 'unauthorized', 'the timeline needs Authorization: Bearer <arbiter token>');
      const t = timeline(String(req.params.id));
      if (!t) return fail(res, 404, 'unknown-game', `no game ${JSON.stringify(req.params.id)}`);
      res.json(t);
    });
  }
  const body = express.json({ limit: '16kb', strict: false });
  if (rounds) {
    r.post('/api/arbiter/rounds/:n/:action', (req, res) => {
      if (!isArbiter(req, checkToken)) return fail(res, 401, 'unauthorized', 'arbiter actions need Authorization: Bearer <arbiter token>');
      const n = roundParam(req, res);
      if (n === null) return;
      body(req, res, (e?: unknown) => {
        if (e) return bodyRefused(res, e);
        const action = parseRoundAction(String(req.params.action), req.body);
        if (!action.ok) return fail(res, action.error.status, action.error.code, action.error.message);
        const done = rounds(n, action.value);
        if (!done.ok) return fail(res, done.error.status, done.error.code, done.error.message);
        res.json(done.value);
      });
    });
  }
  if (arbiter) {
    // The token is checked before the body is read: without it nothing about the request matters.
    r.post('/api/arbiter/games/:id/:action', (req, res) => {
      if (!isArbiter(req, checkToken)) return fail(res, 401, 'unauthorized', 'arbiter actions need Authorization: Bearer <arbiter token>');
      body(req, res, (e?: unknown) => {
        if (e) return bodyRefused(res, e);
        const action = parseArbiterAction(String(req.params.action), req.body);
        if (!action.ok) return fail(res, action.error.status, action.error.code, action.error.message);
        const done = arbiter(String(req.params.id), action.value);
        if (!done.ok) return fail(res, done.error.status, done.error.code, done.error.message);
        res.json(done.value);
      });
    });
  }
  r.use('/api', (req, res) => {
    fail(res, 404, 'no-such-endpoint', `no API endpoint ${req.method} ${req.originalUrl}`);
  });
  return r;
}
