import express, { type Request, type Response, type Router } from 'express';
import { publicGame } from './feed-hub.ts';
import { DEFAULT_INVITATION_HOURS, type Access, type OfficialRole, type Principal } from './access.ts';
import { checkInvitationBody } from './invitations.ts';
import { parseArbiterAction, type ArbiterHandler } from '../runtime/arbiter.ts';
import { parseRoundAction, type AmendmentView, type RoundHandler } from '../runtime/arbiter-actions.ts';
import { parseBoardChange, type BoardChangeHandler } from '../runtime/board-changes.ts';
import type { HallReport } from '../../protocols/feed/hall.ts';
import type { LiveSource } from '../../protocols/feed/model.ts';
import type { Timeline } from '../../protocols/feed/timeline.ts';

/** The hall at a glance for officials (GET /api/hall): built by whoever runs the server. */
export type HallSource = () => HallReport;

/** A game's timeline for the arbiter, or undefined for an unknown game. */
export type TimelineSource = (gameId: string) => Timeline | undefined;

/** A game's amendments (the audit trail) with their undone state, or undefined for an unknown game. */
export type AmendmentSource = (gameId: string) => AmendmentView[] | undefined;

/** A body express.json refused: too large (413), or not JSON (400). */
function bodyRefused(res: Response, e: unknown): void {
  if ((e as { type?: string }).type === 'entity.too.large') return fail(res, 413, 'too-large', 'the request body is larger than 16 KiB');
  fail(res, 400, 'bad-json', `the body is not valid JSON: ${(e as Error).message}`);
}

/** Errors are JSON `{error: {status, code, message}}` so scripts can tell "unknown" from "malformed". */
function fail(res: Response, status: 400 | 401 | 403 | 404 | 409 | 413 | 500, code: string, message: string): void {
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

/**
 * Lets a request through when it comes from an official of one of `roles`: else answers 401 (no
 * session, no token) or 403 (logged in with another role) and gives null.
 */
function official(access: Access, req: Request, res: Response, roles: readonly OfficialRole[], what: string): Official | null {
  const p = access.principal(req);
  if (p.kind === 'spectator') {
    fail(res, 401, 'unauthorized', `${what} need a login (/login) or Authorization: Bearer <arbiter token>`);
    return null;
  }
  if (!roles.includes(p.role)) {
    fail(res, 403, 'forbidden', `${what} are for ${roles.map((r) => `${r}s`).join(' and ')}; this login is ${p.role === 'organiser' ? 'an organiser' : 'an arbiter'}`);
    return null;
  }
  // A session cookie acts only in requests a page of another origin cannot forge: an HTML form
  // cannot send application/json, and a script elsewhere would need CORS, which we never grant
  // for credentials. (SameSite=Strict already keeps other sites' requests from carrying it.)
  if (p.kind === 'account' && req.method !== 'GET' && !req.is('application/json')) {
    fail(res, 403, 'forbidden', 'with a session, actions must be sent as Content-Type: application/json');
    return null;
  }
  return p;
}

type Official = Exclude<Principal, { kind: 'spectator' }>;

/** The name recorded in the audit trail: the logged-in account's, else the one the script sent. */
function withActor(body: unknown, p: Principal): unknown {
  if (p.kind !== 'account') return body;
  if (body === undefined || body === null) return { arbiter: p.name };
  if (typeof body !== 'object' || Array.isArray(body)) return body;
  return { ...(body as Record<string, unknown>), arbiter: p.name };
}

const ARBITERS = ['arbiter'] as const;
const OFFICIALS = ['arbiter', 'organiser'] as const;

/**
 * The read-only JSON/PGN API (docs/api.md). Answers come straight from the LiveSource read model;
 * incidents are included in /api/games/:id only for an arbiter (session or `Authorization: Bearer <arbiter token>`).
 */
/** Extra fields for /health from whoever runs the server (the daemon adds its tables and boards). */
export type HealthReport = () => Record<string, unknown>;

export function apiRouter(
  source: LiveSource,
  access: Access,
  startedAt: number,
  health?: HealthReport,
  arbiter?: ArbiterHandler,
  rounds?: RoundHandler,
  timeline?: TimelineSource,
  publicSource: LiveSource = source,
  hall?: HallSource,
  amendments?: AmendmentSource,
  boards?: BoardChangeHandler,
): Router {
  const r = express.Router();
  // The broadcast delay: the public reads the delayed view, officials (any role) the live one.
  const view = (req: Request): LiveSource => (access.principal(req).kind !== 'spectator' ? source : publicSource);
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
    const p = access.principal(req);
    res.json(p.kind !== 'spectator' && p.role === 'arbiter' ? g : publicGame(g));
  });
  r.get('/api/games/:id/pgn', (req, res) => {
    const text = view(req).pgn(String(req.params.id));
    if (text === undefined) return fail(res, 404, 'unknown-game', `no game ${JSON.stringify(req.params.id)}`);
    res.type('text/plain; charset=utf-8').send(text);
  });
  // Lets an official's page say at once who is logged in (or that nobody is), before any action.
  r.get('/api/arbiter/whoami', (req, res) => {
    const p = official(access, req, res, OFFICIALS, "the officials' pages");
    if (!p) return;
    res.json(p.kind === 'account' ? { role: p.role, name: p.name, via: 'session' } : { role: p.role, name: null, via: 'token' });
  });
  if (timeline) {
    // The arbiter's replay of a game: every stored raw event and decision with what the engine
    // made of it (docs/api.md, "Timeline"). Built from the store on request.
    r.get('/api/arbiter/games/:id/timeline', (req, res) => {
      if (!official(access, req, res, ARBITERS, 'timelines')) return;
      const t = timeline(String(req.params.id));
      if (!t) return fail(res, 404, 'unknown-game', `no game ${JSON.stringify(req.params.id)}`);
      res.json(t);
    });
  }
  if (hall) {
    // The organiser's hall page polls this (docs/hall.md): the connections /health lists and the
    // games' last moves, live. Officials only, because the moves are not delayed.
    r.get('/api/hall', (req, res) => {
      if (!official(access, req, res, OFFICIALS, 'the hall report')) return;
      res.set('Cache-Control', 'no-store').json(hall());
    });
  }
  if (amendments) {
    // The audit trail of one game, oldest first: who did what, when and why, and what is undone.
    r.get('/api/arbiter/games/:id/amendments', (req, res) => {
      if (!official(access, req, res, ARBITERS, 'amendments')) return;
      const list = amendments(String(req.params.id));
      if (!list) return fail(res, 404, 'unknown-game', `no game ${JSON.stringify(req.params.id)}`);
      res.json(list);
    });
  }
  const body = express.json({ limit: '16kb', strict: false });
  if (rounds) {
    r.post('/api/arbiter/rounds/:n/:action', (req, res) => {
      const who = official(access, req, res, OFFICIALS, 'round actions');
      if (!who) return;
      const n = roundParam(req, res);
      if (n === null) return;
      body(req, res, (e?: unknown) => {
        if (e) return bodyRefused(res, e);
        const action = parseRoundAction(String(req.params.action), withActor(req.body, who));
        if (!action.ok) return fail(res, action.error.status, action.error.code, action.error.message);
        const done = rounds(n, action.value);
        if (!done.ok) return fail(res, done.error.status, done.error.code, done.error.message);
        res.json(done.value);
      });
    });
  }
  if (boards) {
    // Another board put in at a table (a spare, or two boards swapped): the organiser's, and the
    // arbiters' (docs/hall.md, *Changing a table's board*).
    r.post('/api/arbiter/tables/:n/board', (req, res) => {
      const who = official(access, req, res, OFFICIALS, 'board changes');
      if (!who) return;
      const raw = String(req.params.n ?? '');
      if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1) return fail(res, 400, 'bad-table', `table must be a number from 1 to 999, got ${JSON.stringify(raw)}`);
      body(req, res, (e?: unknown) => {
        if (e) return bodyRefused(res, e);
        const request = parseBoardChange(Number(raw), withActor(req.body, who));
        if (!request.ok) return fail(res, request.error.status, request.error.code, request.error.message);
        boards(request.value).then(
          (done) => (done.ok ? res.json(done.value) : fail(res, done.error.status, done.error.code, done.error.message)),
          (error: unknown) => fail(res, 500, 'internal', `the board could not be changed: ${(error as Error).message}`),
        );
      });
    });
  }
  if (arbiter) {
    // Who asks is checked before the body is read: without a login nothing about the request matters.
    r.post('/api/arbiter/games/:id/:action', (req, res) => {
      const who = official(access, req, res, ARBITERS, 'arbiter actions');
      if (!who) return;
      body(req, res, (e?: unknown) => {
        if (e) return bodyRefused(res, e);
        const action = parseArbiterAction(String(req.params.action), withActor(req.body, who));
        if (!action.ok) return fail(res, action.error.status, action.error.code, action.error.message);
        const done = arbiter(String(req.params.id), action.value);
        if (!done.ok) return fail(res, done.error.status, done.error.code, done.error.message);
        res.json(done.value);
      });
    });
  }
  // One-time invitation links (docs/api.md, "Invitations"): an arbiter (or the token) may invite
  // anyone; an organiser only organisers, so that no one raises their own rights.
  r.post('/api/arbiter/invitations', (req, res) => {
    const who = official(access, req, res, OFFICIALS, 'invitations');
    if (!who) return;
    body(req, res, (e?: unknown) => {
      if (e) return bodyRefused(res, e);
      const checked = checkInvitationBody(req.body ?? {});
      if (!checked.ok) return fail(res, 400, 'bad-request', checked.error);
      const { name, role } = checked.value;
      if (who.role === 'organiser' && role !== 'organiser') return fail(res, 403, 'forbidden', 'an organiser may invite organisers only');
      if (access.isAccount(name)) return fail(res, 409, 'name-taken', `${JSON.stringify(name)} is an account of the config: that official logs in with their password`);
      const hours = checked.value.hours ?? DEFAULT_INVITATION_HOURS;
      const inv = access.invite(name, role, hours);
      res.json({ name, role, path: `/invite/${inv.code}`, expiresAt: inv.expiresAt });
    });
  });
  r.use('/api', (req, res) => {
    fail(res, 404, 'no-such-endpoint', `no API endpoint ${req.method} ${req.originalUrl}`);
  });
  return r;
}
