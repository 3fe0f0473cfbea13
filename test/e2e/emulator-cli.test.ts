import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SerialPort } from 'serialport';
import { BusReplyDecoder, DgtDecoder, encodeBusCommand, encodeCommand, type BoardMessage, type BusReplyResult } from '../../protocols/dgt/index.ts';

const root = mkdtempSync(join(tmpdir(), 'boardcast-emu-cli-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** Starts `boardcast emulate …` and waits for its "ready" line; returns the board lines. */
async function startEmulate(args: string[]): Promise<{ child: ChildProcess; lines: string[] }> {
  const child = spawn(process.execPath, ['daemon/cli/boardcast.mjs', 'emulate', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const lines = await new Promise<string[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "ready" line; stdout ${out} stderr ${err}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.split('\n').includes('ready')) {
        clearTimeout(timer);
        resolve(out.split('\n').filter((l) => l.startsWith('board ')));
      }
    });
    child.once('exit', (code) => reject(new Error(`emulate exited ${code}: ${err}`)));
  });
  return { child, lines };
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
}

async function exchange<T>(path: string, bytes: Uint8Array, decode: (chunk: Uint8Array) => T[], want: number): Promise<T[]> {
  const port = new SerialPort({ path, baudRate: 9600, autoOpen: false });
  await new Promise<void>((res, rej) => port.open((e) => (e ? rej(e) : res())));
  const got: T[] = [];
  try {
    await new Promise<void>((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`got ${JSON.stringify(got)}`)), 10_000);
      port.on('data', (c: Buffer) => {
        got.push(...decode(new Uint8Array(c)));
        if (got.length >= want) {
          clearTimeout(timer);
          res();
        }
      });
      port.write(Buffer.from(bytes));
    });
  } finally {
    await new Promise<void>((r) => port.close(() => r()));
  }
  return got;
}

describe('boardcast emulate', () => {
  it('prints one machine-readable line per board, answers on each, and cleans up on SIGTERM', async () => {
    const dir = join(root, 'single');
    const script = join(root, 'script.json');
    writeFileSync(
      script,
      JSON.stringify({
        clock: { baseMs: 60_000, incrementMs: 0 },
        actions: [
          { kind: 'lift', at: 0, field: 52 },
          { kind: 'bogus', at: 1 },
        ],
      }),
    );
    const { child, lines } = await startEmulate(['--boards', '2', '--dir', dir, '--serial-base', '20010', '--script', script]);
    // 14-bit bus addresses: 20010 & 0x3fff = 3626
    expect(lines).toEqual([`board 1: ${join(dir, 'board1')} serial 20010 address 3626`, `board 2: ${join(dir, 'board2')} serial 20011 address 3627`]);
    const decoder = new DgtDecoder();
    const msgs = await exchange<BoardMessage>(
      join(dir, 'board2'),
      Uint8Array.of(...encodeCommand({ type: 'send-serial' }), ...encodeCommand({ type: 'send-board' })),
      (c) => decoder.push(c).map((f) => f.message),
      2,
    );
    expect(msgs[0]).toEqual({ type: 'serial-number', serial: '20011' });
    expect(msgs[1]!.type === 'board-dump' && msgs[1]!.board[52]).toBe(0); // the script lifted e2
    child.kill('SIGTERM');
    expect(await exitOf(child)).toBe(0);
    expect(existsSync(join(dir, 'board1'))).toBe(false);
  });

  it('--bus: several addresses on one line', async () => {
    const dir = join(root, 'bus');
    const { child, lines } = await startEmulate(['--boards', '3', '--dir', dir, '--bus']);
    expect(lines.map((l) => l.split(' ')[2])).toEqual([join(dir, 'board1'), join(dir, 'board1'), join(dir, 'board1')]);
    const decoder = new BusReplyDecoder();
    const replies = await exchange<BusReplyResult>(join(dir, 'board1'), encodeBusCommand({ type: 'send-version' }, 10002), (c) => decoder.push(c), 1);
    expect(replies).toMatchObject([{ ok: true, address: 10002, reply: { type: 'version' } }]);
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
  });
});
