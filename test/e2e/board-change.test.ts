import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chess } from 'chessops/chess';
import { parseSan } from 'chessops/san';
import type { GameState } from '../../protocols/feed/model.ts';
import { pieceToCode, squareToField, type PieceCode } from '../../protocols/dgt/squares.ts';
import { startDaemon, type RunningDaemon } from '../../daemon/app/daemon.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { hashPassword } from '../../daemon/server/passwords.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { PtyDevice } from '../../daemon/simulation/pty-board.ts';
import { parseConfig, type BoardcastConfig } from '../../daemon/tournament/config.ts';
import { moveActions } from '../board/catchup-helpers.ts';
import { eventually, getJson } from '../runtime/daemon-child.ts';
import { withSql } from '../store/helpers.ts';
import { loginThroughForm, type Official } from './login.ts';
import { socatAvailable } from './socat.ts';

// Issue 12, the organiser's hall: boards changed between tables during a round without losing the
// games, over real pseudo-terminals, from the hall page in a real chromium. Two tables configured
// by serial number, their cables crossed (swapped before the first move); then table 1's board
// breaks mid-game and a spare, set up in the game's position, is put in from the hall page; the
// game goes on from the spare with nothing lost; a restart reads the boards the organiser chose.
const socat = socatAvailable('board change');
const SHOTS = 'test-results/screenshots';
const TOKEN = 'board-change-token';
const ORGANISER: Official = { name: 'Organiser Hall', role: 'organiser', password: 'organiser hall password' };
const tokenBefore = process.env.BOARDCAST_ARBITER_TOKEN;
process.env.BOARDCAST_ARBITER_TOKEN = TOKEN;
const root = mkdtempSync(join(tmpdir(), 'boardcast-board-change-'));
const logLines: string[] = [];
let daemon: RunningDaemon | null = null;
let browser: Browser | null = null;
let config: BoardcastConfig;
const devices = new Map<string, PtyDevice>();
const boards = new Map<string, BoardEmulator>();
const pageErrors: string[] = [];

afterAll(async () => {
  if (tokenBefore === undefined) delete process.env.BOARDCAST_ARBITER_TOKEN;
  else process.env.BOARDCAST_ARBITER_TOKEN = tokenBefore;
  await browser?.close();
  await daemon?.stop();
  for (const d of devices.values()) await d.close();
  rmSync(root, { recursive: true, force: true });
  expect(pageErrors).toEqual([]);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface HealthTable {
  table: number;
  board: string;
  serial: string | null;
  state: string;
}

async function health(): Promise<HealthTable[]> {
  return (await getJson<{ tables: HealthTable[] }>(`${daemon!.url}/health`)).tables;
}

/** Waits until every table named reads the board with that serial, live. */
async function reading(want: Record<number, string>, what: string): Promise<void> {
  await eventually(
    async () => {
      const tables = await health();
      return Object.entries(want).every(([n, serial]) => {
        const t = tables.find((x) => x.table === Number(n));
        return t?.state === 'live' && t.serial?.endsWith(serial) === true;
      })
        ? true
        : undefined;
    },
    20_000,
    what,
  );
}

/** A game as the arbiter sees it (incidents included). */
async function game(id: string): Promise<GameState> {
  const res = await fetch(`${daemon!.url}/api/games/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  if (!res.ok) throw new Error(`${id}: HTTP ${res.status}`);
  return (await res.json()) as GameState;
}

/** One ply played by hand on a board at human pace (lift, place, then the mover's press). */
async function ply(serial: string, pos: Chess, san: string): Promise<void> {
  const device = devices.get(serial)!;
  const board = boards.get(serial)!;
  const by = pos.turn;
  for (const a of moveActions(pos, san, 0, 0).actions) {
    device.withDevice((_d, at) => board.act({ ...a, at }));
    await sleep(120);
  }
  await sleep(200);
  device.withDevice((_d, at) => board.act({ kind: 'press', at, by }));
  await sleep(250);
}

/** The board codes (DGT field order) of a position: a spare board set up as the game stands. */
function boardOf(pos: Chess): PieceCode[] {
  const codes = new Array<PieceCode>(64).fill(0 as PieceCode);
  for (const [sq, piece] of pos.board) codes[squareToField(sq)] = pieceToCode(piece);
  return codes;
}

async function plugIn(serial: string, name: string, board?: PieceCode[]): Promise<void> {
  const emulator = new BoardEmulator({ serial, clock: { baseMs: 15 * 60_000, incrementMs: 10_000 }, whiteOnClock: 'left', ...(board ? { board } : {}) });
  const device = new PtyDevice(emulator, join(root, name), join(root, `${name}.emu`));
  const opened = await device.open();
  if (!opened.ok) throw new Error(opened.error);
  boards.set(serial, emulator);
  devices.set(serial, device);
}

async function start(): Promise<void> {
  const started = await startDaemon({
    config,
    log: createLogger({ write: (_level, line) => logLines.push(line), pretty: false }),
    port: 0,
    host: '127.0.0.1',
    // `board?` and not the directory: the emulators' own ends (boardN.emu) sit beside the boards'.
    deviceDirs: [join(root, 'board?')],
  });
  if (!started.ok) throw new Error(started.error);
  daemon = started.value;
}

async function post(path: string, body: unknown, auth: Record<string, string> = { authorization: `Bearer ${TOKEN}` }): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${daemon!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

describe.skipIf(!socat)("changing a table's board during a round (real ptys, the hall page in chromium)", () => {
  beforeAll(async () => {
    await plugIn('43001', 'board1');
    await plugIn('43002', 'board2');
    const parsed = parseConfig(
      {
        event: { name: 'board change' },
        rounds: { count: 1 },
        timeControl: '15+10',
        rules: { edition: '2018', category: 'rapid' },
        httpPort: 0,
        dataDir: join(root, 'data'),
        tables: [
          { number: 1, board: '43001' },
          { number: 2, board: '43002' },
        ],
        access: { accounts: [{ name: ORGANISER.name, role: ORGANISER.role, password: await hashPassword(ORGANISER.password) }] },
      },
      null,
      root,
    );
    if (!parsed.ok) throw new Error(parsed.error.messages.join('\n'));
    config = parsed.value;
    await start();
    await reading({ 1: '43001', 2: '43002' }, 'both boards live');
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  }, 60_000);

  it('refuses what cannot be done, and spectators', async () => {
    expect((await post('/api/arbiter/tables/1/board', { board: '43002', reason: 'x' }, {})).status).toBe(401);
    expect(await post('/api/arbiter/tables/1/board', { board: 'board 2', reason: 'x' })).toMatchObject({ status: 400, json: { error: { code: 'bad-request' } } });
    expect(await post('/api/arbiter/tables/1/board', { board: '43002' })).toMatchObject({ status: 400 });
    expect(await post('/api/arbiter/tables/9/board', { board: '43002', reason: 'x' })).toMatchObject({ status: 404, json: { error: { code: 'unknown-table' } } });
    expect(await post('/api/arbiter/tables/1/board', { board: '43001', reason: 'x' })).toMatchObject({ status: 409, json: { error: { code: 'nothing-to-do' } } });
  });

  it('crossed cables: a swap before the first move, and the moves go to the right game', async () => {
    const swapped = await post('/api/arbiter/tables/1/board', { board: '43002', reason: 'table 1 plays on board 43002', arbiter: 'IA Desk' });
    expect(swapped).toEqual({
      status: 200,
      json: {
        changes: [
          { table: 1, board: '43002', previous: '43001' },
          { table: 2, board: '43001', previous: '43002' },
        ],
      },
    });
    await reading({ 1: '43002', 2: '43001' }, 'the boards swapped');
    const pos = Chess.default();
    // Black starts White's clock; then the first moves, on the board now read as table 1's.
    devices.get('43002')!.withDevice((_d, at) => boards.get('43002')!.act({ kind: 'press', at, by: 'black' }));
    for (const san of ['e4', 'e5', 'Nf3']) await ply('43002', pos, san);
    await eventually(async () => ((await game('r1-t1')).ply === 3 ? true : undefined), 10_000, 'three plies on table 1');
    expect((await game('r1-t2')).ply).toBe(0);
  }, 30_000);

  it('a broken board: the organiser puts a spare in from the hall page, set up as the game stands, and the game goes on from it', async () => {
    const pos = Chess.default();
    for (const san of ['e4', 'e5', 'Nf3']) pos.play(parseSan(pos, san)!);
    // The board on table 1 dies (its cable is pulled: no power, no link).
    await devices.get('43002')!.remove('unplug');
    await eventually(async () => ((await health()).find((t) => t.table === 1)?.state !== 'live' ? true : undefined), 10_000, 'table 1 away');
    await plugIn('43003', 'board3', boardOf(pos));

    // Logged in from the desk (the organiser's too), then the hall page.
    const { page } = await loginThroughForm(browser!, daemon!.url, ORGANISER, '/arbiter?lang=en', { width: 1200, height: 900 });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${daemon!.url}/hall?lang=en`);
    await page.locator('tr.hall-row[data-table="1"] .ht-change').click();
    await page.locator('.board-change .bc-board').fill('43003');
    await page.locator('.board-change .bc-reason').fill('board 43002 broken; spare set up in the position');
    await page.locator('.board-change .bc-submit').click();
    await expect.poll(() => page.locator('.bc-message').textContent(), { timeout: 10_000 }).toBe('Table 1 now reads 43003 (was 43002)');
    await expect.poll(() => page.locator('tr.hall-row[data-table="1"]').getAttribute('data-state'), { timeout: 15_000 }).toBe('live');
    expect(await page.locator('tr.hall-row[data-table="1"] .ht-serial-text').textContent()).toMatch(/43003$/);
    await page.screenshot({ path: `${SHOTS}/hall-board-change.png`, fullPage: true });

    for (const san of ['Nc6', 'Bb5']) await ply('43003', pos, san);
    const g = await eventually(
      async () => {
        const x = await game('r1-t1');
        return x.ply === 5 ? x : undefined;
      },
      10_000,
      'the game goes on on the spare',
    );
    expect(g.moves.map((m) => m.san)).toEqual(['e4', 'e5', 'Nf3', 'Nc6', 'Bb5']);
    expect(g.incidents.filter((i) => i.kind === 'illegal-move' || i.kind === 'clock-without-move')).toEqual([]);
    // The audit trail names who changed which board, and why.
    const rows = withSql(join(root, 'data', 'boardcast.sqlite'), (db) => db.prepare("SELECT arbiter, reason, detail_json FROM amendments WHERE action = 'board' ORDER BY id").all()) as {
      arbiter: string;
      reason: string;
      detail_json: string;
    }[];
    expect(rows.map((r) => [r.arbiter, JSON.parse(r.detail_json).table, JSON.parse(r.detail_json).board])).toEqual([
      ['IA Desk', 1, '43002'],
      ['IA Desk', 2, '43001'],
      [ORGANISER.name, 1, '43003'],
    ]);
  }, 60_000);

  it('a restart reads the boards the organiser chose, not the file’s, and the game is whole', async () => {
    await daemon!.stop();
    daemon = null;
    await start();
    await reading({ 1: '43003', 2: '43001' }, 'the chosen boards after a restart');
    expect((await health()).map((t) => [t.table, t.board])).toEqual([
      [1, '43003'],
      [2, '43001'],
    ]);
    expect((await game('r1-t1')).moves.map((m) => m.san)).toEqual(['e4', 'e5', 'Nf3', 'Nc6', 'Bb5']);
  }, 40_000);
});
