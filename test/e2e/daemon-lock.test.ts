import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, servingUrl, stopChildren, type Child } from '../runtime/daemon-child.ts';

// One daemon per data directory, held by a lock the operating system drops when the process dies;
// a port that is taken stops the daemon before it opens (let alone replays or writes) the store.
const root = mkdtempSync(join(tmpdir(), 'boardcast-lock-'));
const children: Child[] = [];
const servers: Server[] = [];
afterAll(async () => {
  await stopChildren(children);
  for (const s of servers) s.close();
  rmSync(root, { recursive: true, force: true });
});

function serve(data: string, port = '0'): Child {
  const c = runCli(['serve', '--port', port, '--data', data, '--no-viewer', '--pace', '20']);
  children.push(c);
  return c;
}

describe('the data directory lock', () => {
  it('a pid file naming a live process that is not boardcast (a reused pid) does not block a start', async () => {
    const data = join(root, 'stale');
    mkdirSync(data, { recursive: true });
    // The test runner itself: alive, and certainly not a daemon holding this directory.
    writeFileSync(join(data, 'boardcast.pid'), `${process.pid}\n`);
    const d = serve(data);
    expect(await servingUrl(d)).toMatch(/^http:/);
    d.proc.kill('SIGTERM');
    expect(await d.exit).toBe(0);
  });

  it('a second daemon on the same directory is refused and names the first; after a SIGKILL the lock is free', async () => {
    const data = join(root, 'twice');
    const first = serve(data);
    await servingUrl(first);
    const second = serve(data);
    expect(await second.exit).toBe(1);
    expect(second.stderr()).toContain(`is in use by another boardcast (pid ${first.proc.pid})`);
    first.proc.kill('SIGKILL');
    await first.exit;
    const third = serve(data);
    expect(await servingUrl(third)).toMatch(/^http:/);
    third.proc.kill('SIGTERM');
    expect(await third.exit).toBe(0);
  });
});

describe('a port in use', () => {
  it('stops the daemon before it opens the store', async () => {
    const taken = createServer();
    servers.push(taken);
    const port = await new Promise<number>((resolve) => taken.listen(0, '127.0.0.1', () => resolve((taken.address() as { port: number }).port)));
    const data = join(root, 'port');
    const d = serve(data, String(port));
    expect(await d.exit).toBe(1);
    expect(d.stderr()).toContain(`port ${port} on 127.0.0.1 is in use`);
    expect(d.stdout()).not.toContain('live state rebuilt');
    expect(existsSync(join(data, 'boardcast.sqlite'))).toBe(false);
    // The lock was released on the way out.
    const again = serve(data);
    await servingUrl(again);
    expect(statSync(join(data, 'boardcast.sqlite')).size).toBeGreaterThan(0);
    again.proc.kill('SIGTERM');
    expect(await again.exit).toBe(0);
  });
});
