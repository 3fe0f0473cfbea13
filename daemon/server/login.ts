import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Access, OfficialRole, Principal } from './access.ts';

/** Failed logins from one address before it must wait (a password cannot be guessed at speed). */
const MAX_FAILURES = 10;
const FAILURE_WINDOW_MS = 10 * 60_000;

/** The login page's words in the viewer's languages (viewer/src/i18n.ts); English for anything else. */
const TEXTS = {
  en: {
    title: 'boardcast · officials',
    name: 'Name',
    password: 'Password',
    logIn: 'Log in',
    publicView: 'Public view',
    wrong: 'Wrong name or password.',
    tooMany: 'Too many failed logins from this address: try again in ten minutes.',
    noAccounts: 'No accounts are configured: add access.accounts to the config file (config/README.md).',
  },
  sl: {
    title: 'boardcast · sodniki',
    name: 'Ime',
    password: 'Geslo',
    logIn: 'Prijava',
    publicView: 'Javni pogled',
    wrong: 'Napačno ime ali geslo.',
    tooMany: 'Preveč neuspelih prijav s tega naslova: poskusite znova čez deset minut.',
    noAccounts: 'Ni nastavljenih računov: dodajte access.accounts v nastavitveno datoteko (config/README.md).',
  },
  sr: {
    title: 'boardcast · sudije',
    name: 'Ime',
    password: 'Lozinka',
    logIn: 'Prijava',
    publicView: 'Javni prikaz',
    wrong: 'Pogrešno ime ili lozinka.',
    tooMany: 'Previše neuspelih prijava sa ove adrese: pokušajte ponovo za deset minuta.',
    noAccounts: 'Nema podešenih naloga: dodajte access.accounts u konfiguracionu datoteku (config/README.md).',
  },
  sk: {
    title: 'boardcast · rozhodcovia',
    name: 'Meno',
    password: 'Heslo',
    logIn: 'Prihlásiť sa',
    publicView: 'Verejný pohľad',
    wrong: 'Nesprávne meno alebo heslo.',
    tooMany: 'Príliš veľa neúspešných prihlásení z tejto adresy: skúste to znova o desať minút.',
    noAccounts: 'Nie sú nastavené žiadne účty: pridajte access.accounts do konfiguračného súboru (config/README.md).',
  },
} as const;
type LoginTexts = (typeof TEXTS)[keyof typeof TEXTS];

/** The language of the page asked for (`?lang=` in next), else the browser's first choice we have. */
function textsFor(next: string, acceptLanguage: string | undefined): LoginTexts {
  const fromNext = new URL(next, 'http://localhost').searchParams.get('lang');
  const wanted = [fromNext, ...(acceptLanguage ?? '').split(',').map((l) => l.trim().slice(0, 2).toLowerCase())];
  for (const l of wanted) if (l && l in TEXTS) return TEXTS[l as keyof typeof TEXTS];
  return TEXTS.en;
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Where to go after logging in: a path on this server only (never `//elsewhere` or a full URL). */
export function safeNext(raw: unknown): string {
  const s = typeof raw === 'string' ? raw : '';
  return /^\/(?![/\\])[^\s]*$/.test(s) && s.length <= 500 ? s : '/arbiter';
}

/** `/login?next=<the page asked for>`. */
export function loginUrl(next: string): string {
  return `/login?next=${encodeURIComponent(next)}`;
}

function page(title: string, body: string, lang = 'en'): string {
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · boardcast</title>
<style>
body { font: 16px/1.4 system-ui, sans-serif; background: #f4f1ea; color: #222; margin: 0; }
main { max-width: 22rem; margin: 12vh auto; background: #fff; padding: 1.5rem 2rem; border-radius: 8px; box-shadow: 0 1px 4px #0002; }
h1 { font-size: 1.3rem; margin-top: 0; }
label { display: block; margin: 0.8rem 0 0.2rem; }
input[type=text], input[type=password] { width: 100%; box-sizing: border-box; padding: 0.4rem; font: inherit; }
button { margin-top: 1.2rem; padding: 0.5rem 1.2rem; font: inherit; }
.error { color: #a00; }
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

function loginPage(t: LoginTexts, next: string, name: string, error: string | null): string {
  const lang = (Object.keys(TEXTS) as (keyof typeof TEXTS)[]).find((k) => TEXTS[k] === t) ?? 'en';
  return page(
    t.logIn,
    `<h1>${escapeHtml(t.title)}</h1>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/login" class="login-form">
<input type="hidden" name="next" value="${escapeHtml(next)}">
<label for="login-name">${escapeHtml(t.name)}</label>
<input id="login-name" type="text" name="name" value="${escapeHtml(name)}" autocomplete="username" required autofocus>
<label for="login-password">${escapeHtml(t.password)}</label>
<input id="login-password" type="password" name="password" autocomplete="current-password" required>
<button type="submit">${escapeHtml(t.logIn)}</button>
</form>
<p><a href="/">${escapeHtml(t.publicView)}</a></p>`,
    lang,
  );
}

function invitationGone(): string {
  return page(
    'Invitation',
    `<h1>boardcast · officials</h1>
<p class="error">This invitation has been used or has expired: ask for a new one.</p>
<p><a href="/login">Log in</a></p>`,
  );
}

/** The page an official of the wrong role meets (403). */
function wrongRolePage(p: Principal, allowed: readonly OfficialRole[]): string {
  const who = p.kind === 'account' ? `${p.name} (${p.role})` : 'this login';
  return page(
    'Not allowed',
    `<h1>Not allowed</h1>
<p class="error">This page is for ${allowed.map((r) => `${r}s`).join(' and ')}; you are logged in as ${escapeHtml(who)}.</p>
<form method="post" action="/logout"><button type="submit" class="logout">Log out</button></form>
<p><a href="/">Public view</a></p>`,
  );
}

/** No browser cache and no referrer for anything an official sees. */
function privatePage(res: Response): Response {
  return res.set('Cache-Control', 'no-store').type('text/html');
}

/**
 * GET /login (the form), POST /login (name and password: a session cookie and back to the page
 * asked for), POST /logout. Logging out is a POST so that no link or image can do it.
 */
/** One line for the operator's log per login, failed login, logout and invitation used (never a password). */
export type AccessLog = (message: string, fields: Record<string, string | number>) => void;

export function loginRouter(access: Access, log: AccessLog = () => undefined): Router {
  const r = express.Router();
  const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });
  const failures = new Map<string, { count: number; since: number }>();

  r.get('/login', (req, res) => {
    const next = safeNext(req.query.next);
    const t = textsFor(next, req.headers['accept-language']);
    privatePage(res).send(loginPage(t, next, '', access.hasAccounts ? null : t.noAccounts));
  });
  r.post('/login', form, (req, res, next) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const target = safeNext(body.next);
    const t = textsFor(target, req.headers['accept-language']);
    const ip = req.socket.remoteAddress ?? '?';
    const at = Date.now();
    // Old entries go, so that many addresses cannot grow the table without end.
    if (failures.size > 10_000) for (const [k, v] of failures) if (at - v.since > FAILURE_WINDOW_MS) failures.delete(k);
    const f = failures.get(ip);
    if (f && at - f.since > FAILURE_WINDOW_MS) failures.delete(ip);
    if ((failures.get(ip)?.count ?? 0) >= MAX_FAILURES) {
      res.set('Retry-After', String(Math.ceil(FAILURE_WINDOW_MS / 1000)));
      log('login held off', { name, ip });
      privatePage(res.status(429)).send(loginPage(t, target, name, t.tooMany));
      return;
    }
    access.login(name, password).then((done) => {
      if (!done.ok) {
        const cur = failures.get(ip) ?? { count: 0, since: at };
        failures.set(ip, { count: cur.count + 1, since: cur.since });
        log('login refused', { name, ip, failures: cur.count + 1 });
        privatePage(res.status(401)).send(loginPage(t, target, name, t.wrong));
        return;
      }
      failures.delete(ip);
      log('logged in', { name: done.value.name, role: done.value.role, ip });
      res.set('Set-Cookie', access.sessionCookie(done.value.id));
      res.redirect(303, target);
    }, next);
  });
  // A one-time invitation: opening the link only shows who it is for (link previews and
  // prefetchers must not use it up); the button POSTs, which logs in once and kills the code.
  r.get('/invite/:code', (req, res) => {
    const inv = access.invitation(String(req.params.code));
    if (!inv) return void privatePage(res.status(410)).send(invitationGone());
    privatePage(res).send(
      page(
        'Invitation',
        `<h1>boardcast · officials</h1>
<p>This invitation logs you in once as <strong class="invited-name">${escapeHtml(inv.name)}</strong> (${inv.role}).</p>
<form method="post" action="" class="accept-form"><button type="submit">Log in as ${escapeHtml(inv.name)}</button></form>`,
      ),
    );
  });
  r.post('/invite/:code', (req, res) => {
    const done = access.accept(String(req.params.code));
    if (!done) return void privatePage(res.status(410)).send(invitationGone());
    log('logged in by invitation', { name: done.name, role: done.role, ip: req.socket.remoteAddress ?? '?' });
    res.set('Set-Cookie', access.sessionCookie(done.id));
    res.redirect(303, '/arbiter');
  });
  r.post('/logout', (req, res) => {
    const id = access.sessionId(req);
    const who = access.session(id);
    if (who) log('logged out', { name: who.name, role: who.role });
    access.logout(id);
    res.set('Set-Cookie', access.clearedCookie());
    res.redirect(303, '/login?next=%2Farbiter');
  });
  return r;
}

/**
 * Guards an official page: a spectator is sent to /login (and back after), an official of
 * another role gets 403. With `spectator: 'login-form'` the spectator gets 401 and the login form
 * at the page's own address instead (it still comes back here after): the page says in its status
 * that it is not public, and a browser shows the form all the same. A `?token=` in the URL is
 * never accepted: the request is redirected to the same page without it (the login form when
 * there is no session), so the secret leaves the address bar and the history at once.
 */
export function officialPage(access: Access, roles: readonly OfficialRole[], spectator: 'redirect' | 'login-form' = 'redirect'): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const url = new URL(req.originalUrl, 'http://localhost');
    const hadToken = url.searchParams.has('token');
    url.searchParams.delete('token');
    const here = `${url.pathname}${url.search}`;
    const p = access.principal(req);
    if (p.kind === 'spectator' && (hadToken || spectator === 'redirect')) res.redirect(302, loginUrl(here));
    else if (p.kind === 'spectator') {
      const t = textsFor(here, req.headers['accept-language']);
      privatePage(res.status(401)).send(loginPage(t, here, '', access.hasAccounts ? null : t.noAccounts));
    } else if (hadToken) res.redirect(302, here);
    else if (!roles.includes(p.role)) privatePage(res.status(403)).send(wrongRolePage(p, roles));
    else {
      res.set('Cache-Control', 'no-store');
      next();
    }
  };
}
