import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TokenCheck } from './arbiter-auth.ts';
import { parsePasswordHash, verifyPassword, type PasswordHash } from './passwords.ts';
import { err, ok, type Result } from '../../protocols/result.ts';

/** What an official may do: arbiters decide on games; organisers run the hall (rounds), not games. */
export type OfficialRole = 'arbiter' | 'organiser';

/** An account from the config file (`access.accounts`). */
export interface AccountConfig {
  name: string;
  role: OfficialRole;
  /** `scrypt$N$r$p$salt$hash`, from `boardcast hash-password`. */
  password: string;
}

/**
 * Who made a request: an account logged in through /login (its session cookie), a script with the
 * shared arbiter token as `Authorization: Bearer`, or a spectator.
 */
export type Principal = { kind: 'account'; name: string; role: OfficialRole } | { kind: 'token'; role: 'arbiter' } | { kind: 'spectator' };

export const SESSION_COOKIE = 'boardcast_session';

interface Session {
  name: string;
  role: OfficialRole;
  expiresAt: number;
}

/** A one-time invitation: whoever opens its link first is logged in once as `name` with `role`. */
interface Invitation {
  name: string;
  role: OfficialRole;
  expiresAt: number;
}

/** Invitations last a day unless asked otherwise, at most a week. */
export const DEFAULT_INVITATION_HOURS = 24;
export const MAX_INVITATION_HOURS = 7 * 24;

interface Account {
  name: string;
  role: OfficialRole;
  hash: PasswordHash;
}

export interface AccessOptions {
  accounts?: readonly AccountConfig[];
  /** How long a session lasts after login (default 12 hours); it is not extended by use. */
  sessionTtlMs?: number;
  /** Mark the cookie Secure (only sent over https): for a daemon behind a TLS proxy. */
  secureCookie?: boolean;
}

export const DEFAULT_SESSION_TTL_MS = 12 * 3600_000;

/** Checks the accounts of a config (unique names, readable hashes) before anything starts. */
export function checkAccounts(accounts: readonly AccountConfig[]): Result<Account[], string[]> {
  const problems: string[] = [];
  const seen = new Set<string>();
  const out: Account[] = [];
  accounts.forEach((a, i) => {
    if (seen.has(a.name)) problems.push(`access.accounts[${i}].name: "${a.name}" is used by another account`);
    seen.add(a.name);
    const h = parsePasswordHash(a.password);
    if (!h.ok) problems.push(`access.accounts[${i}].password: ${h.error}`);
    else out.push({ name: a.name, role: a.role, hash: h.value });
  });
  return problems.length > 0 ? err(problems) : ok(out);
}

/** One `name=value` cookie from a request's Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * Accounts, sessions and the shared token: answers "who is this request" for the HTTP routes and
 * the websocket upgrade alike. Sessions live in memory: a restart logs everyone out, which is
 * the safe direction (no session secrets on disk).
 */
export class Access {
  private readonly accounts = new Map<string, Account>();
  private readonly sessions = new Map<string, Session>();
  /** By the SHA-256 of the code: the codes themselves are kept nowhere. */
  private readonly invitations = new Map<string, Invitation>();
  readonly sessionTtlMs: number;
  readonly secureCookie: boolean;
  /** A hash to check against when the name is unknown, so an unknown name costs as long as a wrong password. */
  private readonly decoy: PasswordHash | null;

  constructor(
    private readonly checkToken: TokenCheck,
    opts: AccessOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    const checked = checkAccounts(opts.accounts ?? []);
    if (!checked.ok) throw new Error(checked.error.join('; '));
    for (const a of checked.value) this.accounts.set(a.name, a);
    this.sessionTtlMs = opts.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
    this.secureCookie = opts.secureCookie ?? false;
    this.decoy = checked.value[0]?.hash ?? null;
  }

  get hasAccounts(): boolean {
    return this.accounts.size > 0;
  }

  /** Checks a name and password; a new session id on success. */
  async login(name: string, password: string): Promise<Result<{ id: string; name: string; role: OfficialRole }, 'bad-credentials'>> {
    const account = this.accounts.get(name);
    const hash = account?.hash ?? this.decoy;
    if (!hash) return err('bad-credentials');
    const good = await verifyPassword(hash, password);
    if (!account || !good) return err('bad-credentials');
    return ok({ id: this.startSession(account.name, account.role), name: account.name, role: account.role });
  }

  /** Whether `name` belongs to an account of the config (an invitation may not borrow it). */
  isAccount(name: string): boolean {
    return this.accounts.has(name);
  }

  /** A new one-time invitation; answers its code (for the link /invite/<code>) and when it expires. */
  invite(name: string, role: OfficialRole, hours: number): { code: string; expiresAt: number } {
    this.sweep();
    const code = randomBytes(32).toString('base64url');
    const expiresAt = this.now() + hours * 3600_000;
    this.invitations.set(digest(code), { name, role, expiresAt });
    return { code, expiresAt };
  }

  /** Who an invitation is for, without using it up (the page that asks to accept it). */
  invitation(code: string): { name: string; role: OfficialRole } | null {
    const inv = this.invitations.get(digest(code));
    if (!inv || inv.expiresAt <= this.now()) return null;
    return { name: inv.name, role: inv.role };
  }

  /** Uses an invitation up: a session for its name and role, or null when it is unknown, used or expired. */
  accept(code: string): { id: string; name: string; role: OfficialRole } | null {
    const key = digest(code);
    const inv = this.invitations.get(key);
    this.invitations.delete(key);
    if (!inv || inv.expiresAt <= this.now()) return null;
    return { id: this.startSession(inv.name, inv.role), name: inv.name, role: inv.role };
  }

  private startSession(name: string, role: OfficialRole): string {
    this.sweep();
    const id = randomBytes(32).toString('base64url');
    this.sessions.set(id, { name, role, expiresAt: this.now() + this.sessionTtlMs });
    return id;
  }

  logout(id: string | null): void {
    if (id) this.sessions.delete(id);
  }

  /** The session cookie's id in a request, if any. */
  sessionId(req: IncomingMessage): string | null {
    const v = cookieValue(req.headers.cookie, SESSION_COOKIE);
    return v && /^[A-Za-z0-9_-]{20,100}$/.test(v) ? v : null;
  }

  /** The account of a live session; an expired one is forgotten. */
  session(id: string | null): { name: string; role: OfficialRole } | null {
    if (!id) return null;
    const s = this.sessions.get(id);
    if (!s) return null;
    if (s.expiresAt <= this.now()) {
      this.sessions.delete(id);
      return null;
    }
    return { name: s.name, role: s.role };
  }

  /** Who sent `req`: the session cookie first, then a Bearer token; else a spectator. */
  principal(req: IncomingMessage): Principal {
    const s = this.session(this.sessionId(req));
    if (s) return { kind: 'account', ...s };
    if (this.bearerIsArbiter(req)) return { kind: 'token', role: 'arbiter' };
    return { kind: 'spectator' };
  }

  /** The shared token as `Authorization: Bearer`: the scripts' way in (API stability). */
  bearerIsArbiter(req: IncomingMessage): boolean {
    const auth = req.headers.authorization;
    return typeof auth === 'string' && auth.startsWith('Bearer ') && this.checkToken(auth.slice(7).trim());
  }

  /** The shared token in a feed `auth` message. */
  tokenIsArbiter(token: string): boolean {
    return this.checkToken(token);
  }

  /** The Set-Cookie value that starts a session. */
  sessionCookie(id: string): string {
    return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(this.sessionTtlMs / 1000)}${this.secureCookie ? '; Secure' : ''}`;
  }

  /** The Set-Cookie value that ends one. */
  clearedCookie(): string {
    return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${this.secureCookie ? '; Secure' : ''}`;
  }

  private sweep(): void {
    const t = this.now();
    for (const [id, s] of this.sessions) if (s.expiresAt <= t) this.sessions.delete(id);
    for (const [k, i] of this.invitations) if (i.expiresAt <= t) this.invitations.delete(k);
  }
}

const digest = (code: string): string => createHash('sha256').update(code).digest('base64url');
