import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { PtyDevice } from '../../daemon/simulation/pty-board.ts';
import { PtyPair } from '../../daemon/transport/pty.ts';
import { socatAvailable } from './socat.ts';

const run = promisify(execFile);

const socat = socatAvailable('driver-boards');

describe.skipIf(!socat)('boardcast boards on pseudo-terminals', () => {
  let dir: string;
  let device: PtyDevice;
  let silent: PtyPair;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'boardcast-boards-e2e-'));
    device = new PtyDevice(new BoardEmulator({ serial: '13579', version: { major: 1, minor: 7 } }), join(dir, 'board1'), join(dir, 'board1.emu'));
    const opened = await device.open();
    if (!opened.ok) throw new Error(opened.error);
    // A serial port with nothing DGT behind it: nobody reads the other end.
    silent = new PtyPair(join(dir, 'modem'), join(dir, 'modem.other'));
    const s = await silent.start();
    if (!s.ok) throw new Error(s.error);
  });

  afterAll(async () => {
    await device?.close();
    await silent?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('identifies the emulated board by serial and version and tells the other port apart', async () => {
    const { stdout } = await run(process.execPath, ['daemon/cli/boardcast.mjs', 'boards', '--json', '--no-scan', '--timeout', '800', '--port', device.hostPath, '--port', silent.hostPath], {
      timeout: 60_000,
    });
    const rows = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { path: string; dgt: boolean; serial?: string; version?: unknown; reason?: string });
    expect(rows).toHaveLength(2);
    const board = rows.find((r) => r.path === device.hostPath);
    expect(board).toMatchObject({ dgt: true, serial: '13579', longSerial: '0000013579', version: { major: 1, minor: 7 } });
    const other = rows.find((r) => r.path === silent.hostPath);
    expect(other).toMatchObject({ dgt: false, reason: expect.stringMatching(/no DGT answer/) });
    // Identification asks only for identity: the board was not put into an update mode.
    expect(device.hostBytes).toEqual([0x45, 0x55, 0x4d]);
  });
});
