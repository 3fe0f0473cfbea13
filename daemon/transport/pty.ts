import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import type { Result } from '../../protocols/result.ts';

/**
 * Pseudo-terminal pairs made by socat: the host (driver) opens `hostPath`, an emulator sits on
 * `emuPath`. Both are symlinks to /dev/pts/N that socat creates and removes; killing socat makes
 * the device disappear exactly like unplugging a USB board, and starting it again with the same
 * link paths brings it back, for reconnect tests.
 */

export const SOCAT_MISSING = 'socat not found: install it (apt-get install socat)';

/** A pseudo-terminal set-up, or why it failed. */
export type PtyResult<T> = Result<T, string>;

export interface PtyPairOptions {
  /** How long to wait for socat to report both ends ready. */
  readyTimeoutMs?: number;
  socatPath?: string;
}

export class PtyPair {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  /** socat's stderr (its -d -d log), for error messages. */
  private log = '';

  constructor(
    readonly hostPath: string,
    readonly emuPath: string,
    private readonly opts: PtyPairOptions = {},
  ) {}

  get running(): boolean {
    return this.child !== null;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts socat and waits until both links exist and it has entered its transfer loop. */
  start(): Promise<PtyResult<PtyPair>> {
    if (this.child) return Promise.resolve({ ok: true, value: this });
    const socat = this.opts.socatPath ?? 'socat';
    // Stale links from a crashed run would make socat fail to create them.
    for (const p of [this.hostPath, this.emuPath]) if (existsSync(p)) rmSync(p, { force: true });
    this.log = '';
    return new Promise((resolve) => {
      let settled = false;
      const done = (r: PtyResult<PtyPair>): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const child = spawn(socat, ['-d', '-d', `pty,raw,echo=0,link=${this.hostPath}`, `pty,raw,echo=0,link=${this.emuPath}`], { stdio: ['ignore', 'ignore', 'pipe'] });
      this.child = child;
      this.exited = new Promise((r) => {
        child.once('close', () => r());
        child.once('error', () => r());
      });
      const timer = setTimeout(() => {
        done({ ok: false, error: `socat did not become ready within ${this.opts.readyTimeoutMs ?? 5000} ms: ${this.log.trim()}` });
        void this.stop();
      }, this.opts.readyTimeoutMs ?? 5000);
      child.on('error', (err: NodeJS.ErrnoException) => {
        this.child = null;
        done({ ok: false, error: err.code === 'ENOENT' ? SOCAT_MISSING : `socat failed to start: ${err.message}` });
      });
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (text: string) => {
        this.log += text;
        if (this.log.length > 20_000) this.log = this.log.slice(-10_000);
        if (this.log.includes('starting data transfer loop') && existsSync(this.hostPath) && existsSync(this.emuPath)) {
          done({ ok: true, value: this });
        }
      });
      child.once('exit', (code, signal) => {
        if (this.child === child) this.child = null;
        done({ ok: false, error: `socat exited (${signal ?? code}) before it was ready: ${this.log.trim()}` });
      });
    });
  }

  /** Kills socat (SIGTERM, this process only) and waits until it is gone and the links are removed. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await this.exited;
    for (const p of [this.hostPath, this.emuPath]) if (existsSync(p)) rmSync(p, { force: true });
  }

  /** The device disappears and comes back at the same path (a new /dev/pts/N behind it). */
  async restart(): Promise<PtyResult<PtyPair>> {
    await this.stop();
    return this.start();
  }
}
