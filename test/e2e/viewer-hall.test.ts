import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Chess } from 'chessops/chess';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseSan } from 'chessops/san';
import type { BoardEvent } from '../../protocols/board-events.ts';
import type { HallReport, TableConnection } from '../../protocols/feed/hall.ts';
import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import type { GameEvent } from '../../daemon/reconstruction/game-events.ts';
import { startDaemon, type RunningDaemon } from '../../daemon/app/daemon.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { hashPassword } from '../../daemon/server/passwords.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { PtyDevice } from '../../daemon/simulation/pty-board.ts';
import { parseConfig } from '../../daemon/tournament/config.ts';
import { moveActions } from '../board/catchup-helpers.ts';
import { eventually, getJson } from '../runtime/daemon-child.ts';
import type { Official } from './login.ts';
import { socatAvailable } from './socat.ts';

// The organiser's hall page as the organiser meets it (issue 12): a daemon reading three boards
// over real pseudo-terminals (socat), a lichess push to a "lichess" that answers 503 (a real HTTP
// server on 127.0.0.1), and a real chromium. The organiser opens /hall, is asked to log in right
// there (401 with the form), sees every table live, a move arrive, then a board's USB cable pulled:
// its row must say "retrying" within 2 s and come first. Spectators get 401 on the page and its data.
const socat = socatAvailable('viewer hall');
const SHOTS = 'test-results/screenshots';
const ORGANISER: Official = { name: 'Hall Organiser', role: 'organiser', password: 'the hall organiser password' };
const ARBITER: Official = { name: 'IA Hall Arbiter', role: 'arbiter', password: 'the hall arbiter password' };
const root = mkdtempSync(join(tmpdir(), 'boardcast-viewer-hall-'));
const logLines: string[] = [];
const pageErrors: string[] = [];
let daemon: RunningDaemon | null = null;
let lichess: Server | null = null;
let browser: Browser | null = null;
const devices: PtyDevice[] = [];
const boards: BoardEmulator[] = [];

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  for (const d of devices) await d.close();
  await new Promise<void>((resolve) => (lichess ? lichess.close(() => resolve()) : resolve()));
  rmSync(root, { recursive: true, force: true });
  expect(pageErrors).toEqual([]);
});

async function hallState(table: number): Promise<string | undefined> {
  return (await getJson<{ tables: { table: number; state: string }[] }>(`${daemon!.url}/health`)).tables.find((t) => t.table === table)?.state;
}

describe.skipIf(!socat)("the organiser's hall page on a daemon reading boards over real pseudo-terminals", () => {
  let organiser: BrowserContext;
  let page: Page;
  const row = (table: number) => page.locator(`tr.hall-row[data-table="${table}"]`);

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // "lichess" is down for maintenance: the push client retries, and the page shows when next.
    lichess = createServer((_req, res) => res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance'));
    await new Promise<void>((resolve) => lichess!.listen(0, '127.0.0.1', () => resolve()));
    const lichessUrl = `http://127.0.0.1:${(lichess.address() as AddressInfo).port}`;
    for (let t = 1; t <= 3; t++) {
      const board = new BoardEmulator({ serial: `5200${t}`, clock: { baseMs: 15 * 60_000, incrementMs: 10_000 }, whiteOnClock: 'left' });
      const device = new PtyDevice(board, join(root, `board${t}`), join(root, `board${t}.emu`));
      const opened = await device.open();
      if (!opened.ok) throw new Error(opened.error);
      boards.push(board);
      devices.push(device);
    }
    const cfg = parseConfig(
      {
        event: { name: 'Hall e2e Open' },
        rounds: { count: 1 },
        timeControl: '15+10',
        rules: { edition: '2018', category: 'rapid' },
        httpPort: 0,
        dataDir: join(root, 'data'),
        tables: devices.map((d, i) => ({ number: i + 1, board: d.hostPath })),
        access: { accounts: await Promise.all([ORGANISER, ARBITER].map(async (a) => ({ name: a.name, role: a.role, password: await hashPassword(a.password) }))) },
        outputs: { lichessPush: { rounds: [{ round: 1, roundId: 'hAlL2026' }], token: 'lip_hall_e2e', baseUrl: lichessUrl }, pgnFolder: { path: './pgn' } },
      },
      null,
      root,
    );
    if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
    const started = await startDaemon({ config: cfg.value, log: createLogger({ write: (_level, line) => logLines.push(line), pretty: false }), port: 0, host: '127.0.0.1' });
    if (!started.ok) throw new Error(started.error);
    daemon = started.value;
    await eventually(async () => ((await Promise.all([1, 2, 3].map(hallState))).every((s) => s === 'live') ? true : undefined), 20_000, 'three boards live');
    // Black starts White's clock on every board: the clocks run and report every second.
    for (let t = 0; t < 3; t++) devices[t]!.withDevice((_d, at) => boards[t]!.act({ kind: 'press', at, by: 'black' }));
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 60_000);

  it('a spectator gets 401 on the page (with the login form in place) and on its data; the public /health names no move', async () => {
    const pageRes = await fetch(`${daemon!.url}/hall`, { redirect: 'manual' });
    expect(pageRes.status).toBe(401);
    const html = await pageRes.text();
    expect(html).toContain('class="login-form"');
    expect(html).not.toContain('viewer.js');
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer not-the-token' }, { cookie: 'boardcast_session=forged-session-id-0123456789abcdef' }];
    for (const headers of attempts) {
      const data = await fetch(`${daemon!.url}/api/hall`, { headers });
      expect(data.status).toBe(401);
      expect(((await data.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
    const health = await getJson<{ tables: Record<string, unknown>[] }>(`${daemon!.url}/health`);
    expect(health.tables.every((t) => !('lastMove' in t) && 'clockConnected' in t)).toBe(true);
  });

  it('the organiser logs in on /hall itself and sees every table live, its clock, the outputs, and a move arriving', async () => {
    organiser = await browser!.newContext({ viewport: { width: 1400, height: 820 } });
    page = await organiser.newPage();
    page.on('pageerror', (e) => pageErrors.push(`hall: ${e.message}`));
    const res = await page.goto(`${daemon!.url}/hall?lang=en`);
    expect(res?.status()).toBe(401);
    await page.locator('#login-name').fill(ORGANISER.name);
    await page.locator('#login-password').fill(ORGANISER.password);
    await page.locator('.login-form button[type="submit"]').click();
    await expect.poll(() => page.url(), { timeout: 10_000 }).toBe(`${daemon!.url}/hall?lang=en`);
    await expect.poll(() => page.locator('.session-name').textContent(), { timeout: 10_000 }).toBe(`${ORGANISER.name} · organiser`);

    for (const t of [1, 2, 3]) await expect.poll(() => row(t).getAttribute('data-state'), { timeout: 10_000 }).toBe('live');
    await expect.poll(() => row(1).locator('.ht-clock').textContent(), { timeout: 10_000 }).toBe('connected');
    expect(await row(1).locator('.ht-serial .ht-serial-text').textContent()).toMatch(/52001$/);
    expect(await row(1).locator('.ht-device').textContent()).toBe(devices[0]!.hostPath);
    expect(await row(1).locator('.ht-state').textContent()).toBe('live');
    expect(await row(1).locator('.ht-battery').textContent()).toBe('—');
    expect(await row(1).locator('.ht-discarded').textContent()).toBe('0');
    expect(await row(1).locator('.ht-game').textContent()).toBe('r1-t1');
    // An organiser's link is the public game page: a game's arbiter page is not theirs.
    await expect.poll(() => row(1).locator('.ht-game a').getAttribute('href'), { timeout: 10_000 }).toBe('/game/r1-t1');
    // The push to "lichess" fails and is retried: the page says when, and why.
    const push = page.locator('.hall-output[data-output="lichessPush"]');
    await expect.poll(() => push.getAttribute('data-state'), { timeout: 15_000 }).toBe('retrying');
    await expect.poll(() => push.textContent(), { timeout: 10_000 }).toMatch(/last error .*503 .*next retry/);
    expect(await page.locator('.hall-output[data-output="pgnFolder"]').getAttribute('data-state')).toBe('ok');
    expect(await page.locator('.hall-output[data-output="liveChessApi"]').textContent()).toContain('off');

    // White plays e4 on table 3's board and presses the clock: the row shows the move.
    const pos = Chess.default();
    const { actions } = moveActions(pos, 'e4', 0, 50);
    devices[2]!.withDevice((_d, at) => {
      for (const a of actions) boards[2]!.act({ ...a, at: at + a.at });
      boards[2]!.act({ kind: 'press', at: at + 200, by: 'white' });
    });
    await expect.poll(() => row(3).locator('.ht-last-move').textContent(), { timeout: 10_000 }).toBe('e4');
    // The report is the one the page shows: the same move, as officials see it.
    const cookie = (await organiser.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const report = (await (await fetch(`${daemon!.url}/api/hall`, { headers: { cookie } })).json()) as HallReport;
    expect(report.tables.find((t) => t.table === 3)).toMatchObject({ lastMove: 'e4', gameId: 'r1-t3', state: 'live', clockConnected: true, battery: null, boardFixed: null });
    // A board on its own device path can be changed from the page: the row offers it.
    expect(await row(3).locator('.ht-change').isVisible()).toBe(true);
  });

  it("a game's engine that throws (a fault injected on table 3's next piece lifted) shows on its row, marked a problem; the table plays on", async () => {
    // The engine's own push, taken before the spy stands in for it.
    const push = (Object.getOwnPropertyDescriptor(GameEngine.prototype, 'push') as { value: (this: GameEngine, ev: BoardEvent) => GameEvent[] }).value;
    let thrown = false;
    vi.spyOn(GameEngine.prototype, 'push').mockImplementation(function (this: GameEngine, ev: BoardEvent) {
      if (!thrown && ev.type === 'field') {
        thrown = true;
        throw new Error('injected engine fault');
      }
      return push.call(this, ev);
    });
    try {
      const pos = Chess.default();
      pos.play(parseSan(pos, 'e4')!);
      const { actions } = moveActions(pos, 'e5', 0, 50);
      devices[2]!.withDevice((_d, at) => {
        for (const a of actions) boards[2]!.act({ ...a, at: at + a.at });
        boards[2]!.act({ kind: 'press', at: at + 200, by: 'black' });
      });
      await expect.poll(() => row(3).locator('.ht-state').textContent(), { timeout: 10_000 }).toBe('live · engine faults: 1 (check the record)');
      expect(await row(3).getAttribute('class')).toContain('problem');
      expect((await getJson<{ tables: TableConnection[] }>(`${daemon!.url}/health`)).tables.map((t) => t.engineFaults)).toEqual([0, 0, 1]);
      expect(logLines.filter((l) => l.includes("a game's engine failed"))).toHaveLength(1);
      expect(thrown).toBe(true);
      // The table plays on: White's next move reaches the row (moveActions played e5 on `pos`).
      const next = moveActions(pos, 'Nf3', 0, 50).actions;
      devices[2]!.withDevice((_d, at) => {
        for (const a of next) boards[2]!.act({ ...a, at: at + a.at });
        boards[2]!.act({ kind: 'press', at: at + 200, by: 'white' });
      });
      await expect.poll(() => row(3).locator('.ht-last-move').textContent(), { timeout: 10_000 }).toBe('Nf3');
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('a board unplugged shows on the hall page as retrying within 2 s, first in the list; the screenshot is in test-results', async () => {
    const pulledAt = Date.now();
    await devices[1]!.remove('unplug');
    await expect.poll(() => row(2).getAttribute('data-state'), { timeout: 2_000, interval: 50 }).toBe('retrying');
    const seenAfterMs = Date.now() - pulledAt;
    expect(seenAfterMs).toBeLessThan(2_000);
    expect(await row(2).locator('.ht-state').textContent()).toBe('retrying');
    // Problems first: the unplugged board's row leads the table.
    expect(await page.locator('tr.hall-row').first().getAttribute('data-table')).toBe('2');
    expect(await page.locator('tr.hall-row').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.table))).toEqual(['2', '1', '3']);
    await page.screenshot({ path: `${SHOTS}/hall.png`, fullPage: true });

    // Plugged back: live again, back in table order.
    const back = await devices[1]!.recreate();
    if (!back.ok) throw new Error(back.error);
    await expect.poll(() => row(2).getAttribute('data-state'), { timeout: 15_000 }).toBe('live');
    await expect.poll(() => page.locator('tr.hall-row').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.table)), { timeout: 10_000 }).toEqual(['1', '2', '3']);
  });

  it('the round is closed from the hall page with the desk’s own control, and the desk links to the hall', async () => {
    const round = page.locator('.desk-round[data-round="1"]');
    await expect.poll(() => round.getAttribute('data-status'), { timeout: 10_000 }).toBe('live');
    await round.locator('.round-close').click();
    // Games are unfinished: the refusal names them and asks before closing anyway.
    await round.locator('.confirm-yes').click();
    await expect.poll(() => round.locator('.action-msg').textContent(), { timeout: 10_000 }).toContain('Round 1');
    await expect.poll(async () => (await getJson<{ round: number; closed?: boolean }[]>(`${daemon!.url}/api/rounds`))[0]?.closed, { timeout: 10_000 }).toBe(true);

    await page.goto(`${daemon!.url}/arbiter?lang=en`);
    await page.locator('a.hall-link').click();
    await expect.poll(() => new URL(page.url()).pathname, { timeout: 10_000 }).toBe('/hall');
    await expect.poll(() => page.locator('tr.hall-row').count(), { timeout: 10_000 }).toBe(3);
    await organiser.close();
  });

  it("an arbiter's hall page links each game to its arbiter page", async () => {
    const arbiter = await browser!.newContext();
    const p = await arbiter.newPage();
    p.on('pageerror', (e) => pageErrors.push(`arbiter hall: ${e.message}`));
    expect((await p.goto(`${daemon!.url}/hall?lang=en`))?.status()).toBe(401);
    await p.locator('#login-name').fill(ARBITER.name);
    await p.locator('#login-password').fill(ARBITER.password);
    await p.locator('.login-form button[type="submit"]').click();
    await expect.poll(() => p.locator('.session-name').textContent(), { timeout: 10_000 }).toBe(`${ARBITER.name} · arbiter`);
    await expect.poll(() => p.locator('tr.hall-row[data-table="1"] .ht-game a').getAttribute('href'), { timeout: 10_000 }).toBe('/arbiter/r1-t1');
    await arbiter.close();
  });

  it('on a phone the table scrolls sideways inside its panel; when the daemon goes away the page says so instead of looking current', async () => {
    const phone = await browser!.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const p = await phone.newPage();
    p.on('pageerror', (e) => pageErrors.push(`phone hall: ${e.message}`));
    await p.goto(`${daemon!.url}/hall?lang=en`);
    await p.locator('#login-name').fill(ORGANISER.name);
    await p.locator('#login-password').fill(ORGANISER.password);
    await p.locator('.login-form button[type="submit"]').click();
    await expect.poll(() => p.locator('tr.hall-row').count(), { timeout: 10_000 }).toBe(3);
    // The page itself is no wider than the phone: only the table's own box scrolls.
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await p.screenshot({ path: `${SHOTS}/hall-phone.png`, fullPage: true });

    const stale = p.locator('.hall-stale');
    expect(await stale.isVisible()).toBe(false);
    await daemon!.stop();
    await expect.poll(() => stale.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await stale.textContent()).toMatch(/^The daemon cannot be reached: these are the last known states \(\d+\.\d s ago;/);
    // The last known rows stay, marked stale by the banner above them.
    expect(await p.locator('tr.hall-row').count()).toBe(3);
    await phone.close();
  });
});
