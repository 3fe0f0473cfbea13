import { execFile, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, servingUrl, stopChildren, type Child } from '../runtime/daemon-child.ts';

/**
 * What a user gets from the published package: `npm pack` (which builds), then `npm install -g` of
 * the tarball into a clean prefix. The installed `boardcast` runs the compiled output: no tsx or
 * esbuild is installed beside it, and it serves the embedded default with its prebuilt viewer.
 */
const work = mkdtempSync(join(tmpdir(), 'boardcast-pack-'));
const children: Child[] = [];
let binaryHost: Server | undefined;
let prebuildCacheFile: string | undefined;
afterAll(async () => {
  await stopChildren(children);
  if (prebuildCacheFile) rmSync(prebuildCacheFile, { force: true });
  await new Promise<void>((done) => (binaryHost ? binaryHost.close(() => done()) : done()));
  rmSync(work, { recursive: true, force: true });
});

/** npm's output; it runs without blocking this process, which serves the binary its install fetches. */
async function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const { stdout } = await promisify(execFile)('npm', args, { cwd, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, env: { ...process.env, npm_config_loglevel: 'error', ...env } });
  return stdout;
}

/**
 * better-sqlite3's install fetches its prebuilt binary from GitHub, which a test machine may not
 * reach; without it the binary is compiled from source, about a minute and a half of one core.
 * The binary this checkout already built (the same version, Node and platform) is served on
 * 127.0.0.1 in prebuild-install's tarball layout, as the release would serve it, through the
 * package's documented mirror variable. A version it does not match is a 404, and the install
 * compiles as before.
 */
async function serveBuiltSqliteBinary(): Promise<NodeJS.ProcessEnv> {
  const pkg = join(process.cwd(), 'node_modules', 'better-sqlite3');
  const built = join(pkg, 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(built)) return {};
  const tarball = join(work, 'better-sqlite3-prebuilt.tar.gz');
  execFileSync('tar', ['-czf', tarball, '-C', pkg, 'build/Release/better_sqlite3.node']);
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
  const asset = `/v${version}/better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const server = createServer((req, res) => {
    if (req.url !== asset) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/gzip' });
    createReadStream(tarball).pipe(res);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  binaryHost = server;
  const host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // prebuild-install keeps what it fetched in npm's cache, named after the address: one file per
  // run of this test (the port changes), removed when the test ends.
  const cached = `${createHash('sha512')
    .update(host + asset)
    .digest('hex')
    .slice(0, 6)}-${basename(asset)}`;
  prebuildCacheFile = join((await npm(['config', 'get', 'cache'], work)).trim(), '_prebuilds', cached);
  return { npm_config_better_sqlite3_binary_host: host };
}

describe('the packed package installed globally', () => {
  it('gives a working boardcast command without tsx or esbuild at run time', async () => {
    // npm pack runs the prepare script (npm run build), so the tarball holds a fresh dist/.
    await npm(['pack', '--pack-destination', work], process.cwd());
    const file = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!file) throw new Error(`npm pack wrote no tarball into ${work}`);
    const prefix = join(work, 'global');
    const binary = await serveBuiltSqliteBinary();
    await npm(['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--allow-scripts=better-sqlite3,@serialport/bindings-cpp', join(work, file)], work, binary);

    const installed = join(prefix, 'lib', 'node_modules', 'boardcast');
    const deps = readdirSync(join(installed, 'node_modules'));
    expect(deps).not.toContain('tsx');
    expect(deps).not.toContain('esbuild');
    expect(existsSync(join(installed, 'dist', 'viewer', 'viewer.js'))).toBe(true);

    const bin = join(prefix, 'bin', 'boardcast');
    const help = execFileSync(bin, ['--help'], { cwd: work, encoding: 'utf8' });
    expect(help).toContain('serve');

    // The embedded default (8 emulated tables), in a clean directory, on a free port.
    const run = join(work, 'run');
    execFileSync('mkdir', ['-p', run]);
    const proc = spawn(bin, ['serve', '--port', '0', '--pace', '20'], { cwd: run, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const child: Child = { proc, stdout: () => out, stderr: () => err, exit: new Promise((r) => proc.once('exit', (c) => r(c))) };
    children.push(child);
    const url = await servingUrl(child, 60_000);
    // Each table opens its game once its board has been read: all eight, as they come.
    const games = await eventually(
      async () => {
        const rounds = (await (await fetch(`${url}/api/rounds`)).json()) as { gameCount: number }[];
        return rounds[0]?.gameCount === 8 ? rounds[0].gameCount : undefined;
      },
      30_000,
      'the 8 games of round 1',
    );
    expect(games).toBe(8);
    const viewer = await fetch(`${url}/viewer.js`);
    expect(viewer.status).toBe(200);
    expect((await viewer.text()).length).toBeGreaterThan(10_000);
    expect(existsSync(join(run, 'data', 'boardcast.sqlite'))).toBe(true);
  });
});
