import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { GameState } from '../../protocols/feed/model.ts';
import type { Timeline } from '../../protocols/feed/timeline.ts';
import { parsePasswordHashText } from '../../protocols/password-hash.ts';
import { Access } from '../../daemon/server/access.ts';
import { arbiterTokenCheck } from '../../daemon/server/arbiter-auth.ts';
import { hashPassword, parsePasswordHash, verifyPassword } from '../../daemon/server/passwords.ts';
import { startServer, type RunningServer } from '../../daemon/server/server.ts';
import { FEED_PATH } from '../../protocols/feed/messages.ts';
import type { ArbiterAction } from '../../daemon/runtime/arbiter.ts';
import type { RoundAction } from '../../daemon/runtime/arbiter-actions.ts';
import { Hall } from './hall.ts';

// Logins for the officials, on a real server on 127.0.0.1: accounts with scrypt hashes, the
// session cookie, roles, and the one rule that matters most: a spectator reaches no official
// route. The routes are read from the server's own router, so a route added later without a
// guard fails this test.
const TOKEN = 'script-token-for-tests';
const FAST = { N: 1024, r: 8, p: 1 };
const ARBITER = { name: 'IA Mojca Novak', password: 'correct horse battery' };
const ORGANISER = { name: 'Org Peter', password: 'hall manager 2026' };
let hall: Hall;
let server: RunningServer;
const gameActions: { gameId: string; action: ArbiterAction }[] = [];
const roundActions: { n: number; action: RoundAction }[] = [];
const timelines: string[] = [];
let hallReads = 0;

beforeAll(async () => {
  hall = new Hall({ tables: 2 });
  hall.connectAll();
  hall.play('r1-t1', 'e4');
  server = await startServer({
    source: hall.source,
    arbiterToken: TOKEN,
    access: {
      accounts: [
        { name: ARBITER.name, role: 'arbiter', password: await hashPassword(ARBITER.password, FAST) },
        { name: ORGANISER.name, role: 'organiser', password: await hashPassword(ORGANISER.password, FAST) },
      ],
    },
    arbiter: (gameId, action) => {
      gameActions.push({ gameId, action });
      return { ok: true, value: hall.source.game(gameId) as GameState };
    },
    rounds: (n, action) => {
      roundActions.push({ n, action });
      return { ok: true, value: { round: hall.source.rounds()[0]!, games: [] } };
    },
    hall: () => {
      hallReads++;
      return { at: Date.now(), tables: [], outputs: { liveChessApi: null, lichessPush: null, pgnFolder: null } };
    },
    timeline: (gameId) => {
      timelines.push(gameId);
      return { gameId, round: 1, table: 1, rules: { edition: '2018', category: 'standard', chess960: false }, steps: [], incidents: [], amendments: [] } satisfies Timeline;
    },
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

/** Logs in through the form's POST; the session cookie (name=value). */
async function login(who: { name: string; password: string }, next = '/arbiter'): Promise<string> {
  const res = await fetch(`${server.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ name: who.name, password: who.password, next }).toString(),
  });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe(next);
  const cookie = res.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(/^boardcast_session=[A-Za-z0-9_-]{40,}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
  return cookie.split(';')[0]!;
}

/** The public routes: everything else the server answers is official. */
const PUBLIC = new Set([
  'GET /login',
  'POST /login',
  'POST /logout',
  'GET /health',
  'GET /api/tournament',
  'GET /api/rounds',
  'GET /api/rounds/:n/games',
  'GET /api/rounds/:n/pgn',
  'GET /api/games/:id',
  'GET /api/games/:id/pgn',
  'GET /viewer.js',
  'GET /viewer.css',
  'GET /',
  'GET /game/:id',
  'GET /demo',
  // An invitation's own page and its acceptance: the one-time code is the credential.
  'GET /invite/:code',
  'POST /invite/:code',
  // The platforms' read-only feeds (/lcc, /relay), mounted under their prefixes.
  'GET /tournament.json',
  'GET /round-:n/index.json',
  'GET /round-:n/game-:m.json',
  'GET /round-:n.pgn',
]);
/** Official routes only arbiters may use; the others are for organisers too. */
const ARBITERS_ONLY = new Set(['GET /api/arbiter/games/:id/timeline', 'POST /api/arbiter/games/:id/:action', 'GET /arbiter/:id', 'GET /arbiter/replay/:id']);

const concrete = (path: string): string =>
  path
    .replace(/\/api\/arbiter\/rounds\/:n\/:action/, '/api/arbiter/rounds/1/start')
    .replace(/:action/, 'result')
    .replace(/:id/, 'r1-t1')
    .replace(/:n/, '1');

function officialRoutes(): { method: string; path: string }[] {
  return server.routes.filter((r) => !PUBLIC.has(`${r.method} ${r.path}`));
}

async function call(method: string, path: string, headers: Record<string, string> = {}): Promise<Response> {
  const body = method !== 'POST' ? undefined : path === '/api/arbiter/invitations' ? JSON.stringify({ name: 'Deputy', role: 'organiser' }) : JSON.stringify({ result: '1-0', arbiter: 'Typed Name' });
  return fetch(`${server.url}${concrete(path)}`, { method, redirect: 'manual', headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers }, body });
}

describe('password hashes', () => {
  it('verifies the password a hash was made from and no other; each hash has its own salt', async () => {
    const a = await hashPassword('a long enough password', FAST);
    const b = await hashPassword('a long enough password', FAST);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    const parsed = parsePasswordHash(a);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(await verifyPassword(parsed.value, 'a long enough password')).toBe(true);
    expect(await verifyPassword(parsed.value, 'a long enough passwore')).toBe(false);
    expect(await verifyPassword(parsed.value, '')).toBe(false);
  });

  it('refuses a password or a damaged hash in place of a hash, saying why', () => {
    expect(parsePasswordHashText('hunter2')).toEqual({ ok: false, error: expect.stringContaining('boardcast hash-password') });
    expect(parsePasswordHashText('scrypt$1000$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toEqual({ ok: false, error: expect.stringContaining('power of two') });
    expect(parsePasswordHashText('scrypt$1024$8$1$AA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toEqual({ ok: false, error: expect.stringContaining('salt') });
    expect(parsePasswordHashText('scrypt$1024$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAA')).toEqual({ ok: false, error: expect.stringContaining('hash') });
  });
});

describe('sessions', () => {
  it('expire after the configured time and end at logout', async () => {
    let t = 1_000_000;
    const access = new Access(arbiterTokenCheck(null), { accounts: [{ name: 'A', role: 'arbiter', password: await hashPassword('password one', FAST) }], sessionTtlMs: 60_000 }, () => t);
    expect((await access.login('A', 'password two')).ok).toBe(false);
    expect((await access.login('B', 'password one')).ok).toBe(false);
    const first = await access.login('A', 'password one');
    if (!first.ok) throw new Error('login refused');
    expect(access.session(first.value.id)).toEqual({ name: 'A', role: 'arbiter' });
    t += 59_999;
    expect(access.session(first.value.id)).not.toBeNull();
    t += 1;
    expect(access.session(first.value.id)).toBeNull();
    const second = await access.login('A', 'password one');
    if (!second.ok) throw new Error('login refused');
    access.logout(second.value.id);
    expect(access.session(second.value.id)).toBeNull();
  });
});

describe('officials log in; spectators reach no official route', () => {
  it('the router has the official routes this test expects (it walks what the server really answers)', () => {
    const official = officialRoutes().map((r) => `${r.method} ${r.path}`);
    expect(official).toEqual(
      expect.arrayContaining([
        'POST /api/arbiter/invitations',
        'GET /api/arbiter/whoami',
        'GET /api/arbiter/games/:id/timeline',
        'POST /api/arbiter/rounds/:n/:action',
        'POST /api/arbiter/games/:id/:action',
        'GET /arbiter',
        'GET /arbiter/:id',
        'GET /arbiter/replay/:id',
        'GET /api/hall',
        'GET /hall',
      ]),
    );
    // Nothing outside /arbiter, /api/arbiter and the hall is official: a new route must be listed as public above or be guarded.
    for (const r of officialRoutes()) expect(r.path).toMatch(/^\/(api\/)?(arbiter|hall)(\/|$)/);
  });

  it('a spectator gets 401 on every official endpoint and is sent to /login from every official page', async () => {
    for (const r of officialRoutes()) {
      const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token' }, { cookie: 'boardcast_session=forged-session-id-0123456789abcdef' }];
      for (const headers of attempts) {
        const res = await call(r.method, r.path, headers);
        if (r.path.startsWith('/api/')) {
          expect(res.status, `${r.method} ${r.path}`).toBe(401);
          expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
        } else if (r.path === '/hall') {
          // The hall page answers 401 with the login form in place, coming back to it after.
          expect(res.status).toBe(401);
          const html = await res.text();
          expect(html).toContain('class="login-form"');
          expect(html).toContain('name="next" value="/hall"');
          expect(html).not.toContain('viewer.js');
        } else {
          expect(res.status, `${r.method} ${r.path}`).toBe(302);
          expect(res.headers.get('location')).toBe(`/login?next=${encodeURIComponent(concrete(r.path))}`);
        }
      }
    }
    expect(gameActions).toEqual([]);
    expect(roundActions).toEqual([]);
    expect(timelines).toEqual([]);
    expect(hallReads).toBe(0);
  });

  it('an organiser gets 403 on the arbiters-only routes and reaches the rest', async () => {
    const cookie = await login(ORGANISER);
    for (const r of officialRoutes()) {
      const res = await call(r.method, r.path, { cookie });
      if (ARBITERS_ONLY.has(`${r.method} ${r.path}`)) expect(res.status, `${r.method} ${r.path}`).toBe(403);
      else expect(res.status, `${r.method} ${r.path}`).toBe(200);
    }
    expect(gameActions).toEqual([]);
    expect(timelines).toEqual([]);
    // The round was started by the account, whatever name the body typed.
    expect(roundActions.map((a) => a.action.arbiter)).toEqual([ORGANISER.name]);
    roundActions.length = 0;
  });

  it('an arbiter reaches every official route; the audit trail gets the account, not a typed name', async () => {
    const cookie = await login(ARBITER, '/arbiter/r1-t1?lang=sl');
    for (const r of officialRoutes()) {
      const res = await call(r.method, r.path, { cookie });
      expect(res.status, `${r.method} ${r.path}`).toBe(200);
      if (r.method === 'GET' && !r.path.startsWith('/api/')) {
        expect(res.headers.get('referrer-policy')).toBe('no-referrer');
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
    }
    expect(gameActions.map((a) => [a.gameId, a.action.kind, a.action.arbiter])).toEqual([['r1-t1', 'result', ARBITER.name]]);
    expect(await (await call('GET', '/api/arbiter/whoami', { cookie })).json()).toEqual({ role: 'arbiter', name: ARBITER.name, via: 'session' });
    // A form post carrying the cookie is refused: actions with a session must be JSON.
    const form = await fetch(`${server.url}/api/arbiter/games/r1-t1/result`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: 'result=1-0' });
    expect(form.status).toBe(403);
    expect(gameActions).toHaveLength(1);
    gameActions.length = 0;
  });

  it('the shared token still works as a Bearer header for scripts, and is never accepted in a page URL', async () => {
    const res = await call('POST', '/api/arbiter/games/:id/:action', { authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    // A script names itself: no account to put in its place.
    expect(gameActions.map((a) => a.action.arbiter)).toEqual(['Typed Name']);
    gameActions.length = 0;
    const page = await fetch(`${server.url}/arbiter?token=${TOKEN}&lang=en`, { redirect: 'manual' });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe(`/login?next=${encodeURIComponent('/arbiter?lang=en')}`);
    // With a session, the token is dropped from the address at once.
    const cookie = await login(ARBITER);
    const again = await fetch(`${server.url}/arbiter/r1-t1?token=${TOKEN}`, { redirect: 'manual', headers: { cookie } });
    expect(again.status).toBe(302);
    expect(again.headers.get('location')).toBe('/arbiter/r1-t1');
  });

  it('a wrong password gets the form again with 401; the next address must stay on this server', async () => {
    const res = await fetch(`${server.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ name: ARBITER.name, password: 'wrong password', next: '/arbiter' }).toString(),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await res.text()).toContain('Wrong name or password.');
    for (const evil of ['//evil.example/', 'https://evil.example/', '/\\evil.example']) {
      const ok = await fetch(`${server.url}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ name: ARBITER.name, password: ARBITER.password, next: evil }).toString(),
      });
      expect(ok.headers.get('location')).toBe('/arbiter');
    }
  });

  it("the login form speaks the page's language (its ?lang=, else the browser's), and escapes what it echoes", async () => {
    const sl = await (await fetch(`${server.url}/login?next=${encodeURIComponent('/arbiter?lang=sl')}`)).text();
    expect(sl).toContain('<html lang="sl">');
    expect(sl).toContain('Geslo');
    const sk = await (await fetch(`${server.url}/login`, { headers: { 'accept-language': 'sk-SK,sk;q=0.9,en;q=0.5' } })).text();
    expect(sk).toContain('Prihlásiť sa');
    const echoed = await fetch(`${server.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ name: '"><script>alert(1)</script>', password: 'x', next: '/arbiter' }).toString(),
    });
    const html = await echoed.text();
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('&#34;&#62;&#60;script&#62;');
  });

  it('logout ends the session: the old cookie opens nothing', async () => {
    const cookie = await login(ARBITER);
    expect((await call('GET', '/api/arbiter/whoami', { cookie })).status).toBe(200);
    const out = await fetch(`${server.url}/logout`, { method: 'POST', redirect: 'manual', headers: { cookie } });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/^boardcast_session=; .*Max-Age=0/);
    expect((await call('GET', '/api/arbiter/whoami', { cookie })).status).toBe(401);
    expect((await call('GET', '/arbiter', { cookie })).status).toBe(302);
  });

  it('the feed makes an arbiter of the session cookie at the upgrade, never of a token in the URL', async () => {
    const wsUrl = `${server.url.replace('http', 'ws')}${FEED_PATH}`;
    const roleOf = (url: string, headers: Record<string, string> = {}): Promise<string> =>
      new Promise((resolve, reject) => {
        const ws = new WebSocket(url, { headers });
        ws.once('error', reject);
        ws.once('message', (data: Buffer) => {
          ws.close();
          resolve((JSON.parse(data.toString('utf8')) as { role: string }).role);
        });
      });
    expect(await roleOf(`${wsUrl}?token=${TOKEN}`)).toBe('public');
    expect(await roleOf(wsUrl, { cookie: await login(ARBITER) })).toBe('arbiter');
    expect(await roleOf(wsUrl, { cookie: await login(ORGANISER) })).toBe('public');
    expect(await roleOf(wsUrl, { authorization: `Bearer ${TOKEN}` })).toBe('arbiter');
  });

  it('an address that keeps guessing is held off with 429, even with the right password', async () => {
    const own = await startServer({ source: hall.source, viewer: false, access: { accounts: [{ name: ARBITER.name, role: 'arbiter', password: await hashPassword(ARBITER.password, FAST) }] } });
    try {
      const attempt = (password: string) =>
        fetch(`${own.url}/login`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ name: ARBITER.name, password }).toString(),
        });
      for (let i = 0; i < 10; i++) expect((await attempt(`guess ${i}`)).status).toBe(401);
      const held = await attempt(ARBITER.password);
      expect(held.status).toBe(429);
      expect(held.headers.get('set-cookie')).toBeNull();
      expect(held.headers.get('retry-after')).toBe('600');
    } finally {
      await own.close();
    }
  });

  it('a one-time invitation logs in once, as the name and role it was made for', async () => {
    const make = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) =>
      fetch(`${server.url}/api/arbiter/invitations`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const made = await make({ name: 'Deputy Arbiter', role: 'arbiter', hours: 2 });
    expect(made.status).toBe(200);
    const inv = (await made.json()) as { path: string; expiresAt: number; name: string; role: string };
    expect(inv.path).toMatch(/^\/invite\/[A-Za-z0-9_-]{43}$/);
    expect(inv.expiresAt - Date.now()).toBeGreaterThan(2 * 3600_000 - 60_000);
    // Opening the link uses nothing up (a link preview may open it): it shows who it is for.
    for (let i = 0; i < 2; i++) {
      const shown = await fetch(`${server.url}${inv.path}`);
      expect(shown.status).toBe(200);
      expect(shown.headers.get('referrer-policy')).toBe('no-referrer');
      expect(await shown.text()).toContain('<strong class="invited-name">Deputy Arbiter</strong> (arbiter)');
    }
    const accepted = await fetch(`${server.url}${inv.path}`, { method: 'POST', redirect: 'manual' });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toBe('/arbiter');
    const cookie = accepted.headers.get('set-cookie')!.split(';')[0]!;
    expect(await (await call('GET', '/api/arbiter/whoami', { cookie })).json()).toEqual({ role: 'arbiter', name: 'Deputy Arbiter', via: 'session' });
    // Once only.
    expect((await fetch(`${server.url}${inv.path}`, { method: 'POST', redirect: 'manual' })).status).toBe(410);
    expect((await fetch(`${server.url}${inv.path}`)).status).toBe(410);
    expect((await fetch(`${server.url}/invite/made-up-code`, { method: 'POST', redirect: 'manual' })).status).toBe(410);
    // An organiser invites organisers only; an account's name cannot be borrowed; bad bodies say why.
    const organiser = await login(ORGANISER);
    expect((await make({ name: 'Another', role: 'arbiter' }, { cookie: organiser })).status).toBe(403);
    expect((await make({ name: 'Another', role: 'organiser' }, { cookie: organiser })).status).toBe(200);
    expect((await make({ name: ARBITER.name, role: 'arbiter' })).status).toBe(409);
    const bad = await make({ name: 'X', role: 'arbiter', hours: 1000 });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('hours');
  });

  it('an invitation expires unused', async () => {
    let t = 5_000_000;
    const access = new Access(arbiterTokenCheck(null), {}, () => t);
    const inv = access.invite('Deputy', 'organiser', 1);
    expect(access.invitation(inv.code)).toEqual({ name: 'Deputy', role: 'organiser' });
    t += 3600_000;
    expect(access.invitation(inv.code)).toBeNull();
    expect(access.accept(inv.code)).toBeNull();
  });

  it('with a broadcast delay, a logged-in official of either role reads the live games, a spectator the delayed view', async () => {
    // Two sources that differ: the live hall has one more move than the view the public gets.
    const delayed = new Hall({ tables: 2 });
    delayed.connectAll();
    const own = await startServer({
      source: hall.source,
      publicSource: delayed.source,
      viewer: false,
      access: {
        accounts: [
          { name: ARBITER.name, role: 'arbiter', password: await hashPassword(ARBITER.password, FAST) },
          { name: ORGANISER.name, role: 'organiser', password: await hashPassword(ORGANISER.password, FAST) },
        ],
      },
    });
    try {
      const plies = async (headers: Record<string, string> = {}) => ((await (await fetch(`${own.url}/api/games/r1-t1`, { headers })).json()) as GameState).ply;
      const cookieOf = async (who: { name: string; password: string }) => {
        const res = await fetch(`${own.url}/login`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(who).toString(),
        });
        return res.headers.get('set-cookie')!.split(';')[0]!;
      };
      expect(await plies()).toBe(0);
      expect(await plies({ cookie: await cookieOf(ARBITER) })).toBe(1);
      expect(await plies({ cookie: await cookieOf(ORGANISER) })).toBe(1);
    } finally {
      await own.close();
    }
  });
});
