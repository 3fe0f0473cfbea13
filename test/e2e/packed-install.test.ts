import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { servingUrl, stopChildren, type Child } from '../runtime/daemon-child.ts';

/**
 * What a user gets from the published package: `npm pack` (which builds), then `npm install -g` of
 * the tarball into a clean prefix. The installed `boardcast` runs the compiled output: no tsx or
 * esbuild is installed beside it, and it serves the embedded default with its prebuilt viewer.
 */
const work = mkdtempSync(join(tmpdir(), 'boardcast-pack-'));
const children: Child[] = [];
afterAll(async () => {
  await stopChildren(children);
  rmSync(work, { recursive: true, force: true });
});

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_loglevel: 'error' } });
}

describe('the packed package installed globally', () => {
  it('gives a working boardcast command without tsx or esbuild at run time', async () => {
    // npm pack runs the prepare script (npm run build), so the tarball holds a fresh dist/.
    npm(['pack', '--pack-destination', work], process.cwd());
    const file = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!file) throw new Error(`npm pack wrote no tarball into ${work}`);
    const prefix = join(work, 'global');
    npm(['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--allow-scripts=better-sqlite3,@serialport/bindings-cpp', join(work, file)], work);

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
    const rounds = (await (await fetch(`${url}/api/rounds`)).json()) as { gameCount: number }[];
    expect(rounds[0]?.gameCount).toBe(8);
    const viewer = await fetch(`${url}/viewer.js`);
    expect(viewer.status).toBe(200);
    expect((await viewer.text()).length).toBeGreaterThan(10_000);
    expect(existsSync(join(run, 'data', 'boardcast.sqlite'))).toBe(true);
  });
});
