import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, servingUrl, stopChildren, waitForOutput, type Child } from '../runtime/daemon-child.ts';

// The paths an organiser takes to give an official a login: `boardcast hash-password`, the hash
// pasted into the config, `boardcast serve`, and the arbiter logging in with the password; or
// `boardcast invite` against the running daemon, and the link used once.
const root = mkdtempSync(join(tmpdir(), 'boardcast-hash-password-'));
const children: Child[] = [];
const TOKEN = 'invite-e2e-token';
let url = '';

afterAll(async () => {
  await stopChildren(children);
  rmSync(root, { recursive: true, force: true });
});

/** Runs `boardcast hash-password --stdin` with `input` on its standard input. */
function hashPassword(input: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ['daemon/cli/boardcast.mjs', 'hash-password', '--stdin'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.once('exit', (code) => resolve({ code, out, err }));
    proc.stdin.end(input);
  });
}

const login = (url: string, name: string, password: string): Promise<Response> =>
  fetch(`${url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ name, password, next: '/arbiter' }).toString(),
  });

/**
 * Runs `boardcast hash-password` on a terminal (a pseudo-terminal from util-linux `script`), types
 * each answer once its prompt has appeared, and gives everything the terminal showed.
 */
function hashOnTerminal(answers: string[]): Promise<{ code: number | null; shown: string }> {
  return new Promise((resolve) => {
    const proc = spawn('script', ['-qec', `${process.execPath} daemon/cli/boardcast.mjs hash-password`, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let shown = '';
    const prompts = ['Password: ', 'Again: '];
    let next = 0;
    const onOutput = (d: Buffer): void => {
      shown += d.toString();
      // Type only after the prompt: raw mode (no echo) is on by then.
      while (next < answers.length && shown.includes(prompts[next]!)) proc.stdin.write(`${answers[next++]}\r`);
    };
    proc.stdout.on('data', onOutput);
    proc.stderr.on('data', onOutput);
    proc.once('exit', (code) => resolve({ code, shown }));
  });
}

describe('boardcast hash-password', () => {
  it('refuses a short password and prints nothing', async () => {
    const r = await hashPassword('short\n');
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('at least 8 characters');
  });

  it('on a terminal, asks twice without showing the password; two different entries print nothing', async () => {
    const good = await hashOnTerminal(['typed on a terminal', 'typed on a terminal']);
    expect(good.code, good.shown).toBe(0);
    expect(good.shown).toMatch(/scrypt\$32768\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+/);
    expect(good.shown).not.toContain('typed on a terminal');
    const differ = await hashOnTerminal(['first password', 'second password']);
    expect(differ.code).toBe(1);
    expect(differ.shown).toContain('the two entries differ');
    expect(differ.shown).not.toContain('scrypt$');
  });

  it('prints a hash that, pasted into the config, lets the official log in with the password and nothing else', async () => {
    const r = await hashPassword('the arbiter password\n');
    expect(r.code, r.err).toBe(0);
    const hash = r.out.trim();
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(r.out).not.toContain('the arbiter password');
    const config = join(root, 'hall.json');
    writeFileSync(
      config,
      JSON.stringify({
        event: { name: 'Hash e2e' },
        rounds: { count: 1 },
        timeControl: '90+30',
        emulate: { count: 1 },
        httpPort: 0,
        dataDir: './data',
        access: { accounts: [{ name: 'IA Hash', role: 'arbiter', password: hash }], sessionHours: 2 },
      }),
    );
    const daemon = runCli(['serve', '--config', config], { BOARDCAST_ARBITER_TOKEN: TOKEN });
    children.push(daemon);
    url = await servingUrl(daemon);
    expect((await login(url, 'IA Hash', 'the arbiter passwort')).status).toBe(401);
    const ok = await login(url, 'IA Hash', 'the arbiter password');
    expect(ok.status).toBe(303);
    expect(ok.headers.get('set-cookie')).toMatch(/^boardcast_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=7200$/);
    const cookie = ok.headers.get('set-cookie')!.split(';')[0]!;
    const me = await fetch(`${url}/api/arbiter/whoami`, { headers: { cookie } });
    expect(await me.json()).toEqual({ role: 'arbiter', name: 'IA Hash', via: 'session' });
    // The operator's log has one line per login and refusal, and never a password.
    const accessLines = (out: string) =>
      out
        .split('\n')
        // Whole lines only: the last one may still be being written.
        .slice(0, -1)
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { component: string; message: string; name?: string })
        .filter((l) => l.component.endsWith('access'));
    const lines = await waitForOutput(daemon, (out) => (accessLines(out).length >= 2 ? accessLines(out) : undefined));
    expect(lines.map((l) => [l.message, l.name])).toEqual([
      ['login refused', 'IA Hash'],
      ['logged in', 'IA Hash'],
    ]);
    expect(daemon.stdout() + daemon.stderr()).not.toContain('the arbiter passwor');
  }, 60_000);

  it('boardcast invite prints a link that logs in once as the invited official', async () => {
    const c = runCli(['invite', '--url', url, '--name', 'Deputy Arbiter', '--role', 'arbiter', '--hours', '3'], { BOARDCAST_ARBITER_TOKEN: TOKEN });
    children.push(c);
    expect(await c.exit, c.stderr()).toBe(0);
    const link = c.stdout().trim();
    expect(link).toMatch(new RegExp(`^${url}/invite/[A-Za-z0-9_-]{43}$`));
    expect(c.stderr()).toContain('one login as Deputy Arbiter (arbiter), valid until');
    const used = await fetch(link, { method: 'POST', redirect: 'manual' });
    expect(used.status).toBe(303);
    const cookie = used.headers.get('set-cookie')!.split(';')[0]!;
    expect(await (await fetch(`${url}/api/arbiter/whoami`, { headers: { cookie } })).json()).toEqual({ role: 'arbiter', name: 'Deputy Arbiter', via: 'session' });
    expect((await fetch(link, { method: 'POST', redirect: 'manual' })).status).toBe(410);
    // Without the token the daemon refuses, and the command says so.
    const refused = runCli(['invite', '--url', url, '--name', 'X', '--role', 'arbiter', '--token', 'wrong']);
    children.push(refused);
    expect(await refused.exit).toBe(1);
    expect(refused.stderr()).toContain('refused (401 unauthorized)');
  });
});
