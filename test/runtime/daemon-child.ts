import { spawn, type ChildProcess } from 'node:child_process';

/** A `boardcast <command>` child process with its output collected. */
export interface Child {
  proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Child {
  const proc = spawn(process.execPath, ['daemon/cli/boardcast.mjs', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, stdout: () => out, stderr: () => err, exit };
}

/** Waits until `test` finds what it wants in the child's stdout (or fails with its output). */
export async function waitForOutput<T>(child: Child, test: (stdout: string) => T | undefined, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = test(child.stdout());
    if (found !== undefined) return found;
    if (child.proc.exitCode !== null) throw new Error(`exited ${child.proc.exitCode}\nstdout: ${child.stdout()}\nstderr: ${child.stderr()}`);
    if (Date.now() > until) throw new Error(`timed out\nstdout: ${child.stdout()}\nstderr: ${child.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The URL from the daemon's "serving" log line. */
export function servingUrl(child: Child, timeoutMs = 30_000): Promise<string> {
  return waitForOutput(
    child,
    (out) => {
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        const rec = JSON.parse(line) as { message?: string; url?: string };
        if (rec.message === 'serving' && rec.url) return rec.url;
      }
      return undefined;
    },
    timeoutMs,
  );
}

export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

/** Polls `fn` until it returns a value (not undefined) or the time runs out. */
export async function eventually<T>(fn: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${last ? `: ${JSON.stringify(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Ends every child still running: SIGTERM first, because `boardcast emulate` stops its socat
 * children only when it shuts down itself; SIGKILL whatever is left after 5 s.
 */
export async function stopChildren(children: readonly Child[]): Promise<void> {
  const running = children.filter((c) => c.proc.exitCode === null);
  for (const c of running) c.proc.kill('SIGTERM');
  await Promise.race([Promise.all(running.map((c) => c.exit)), new Promise((r) => setTimeout(r, 5000))]);
  for (const c of running) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
}
