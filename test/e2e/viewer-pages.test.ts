import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../daemon/server/server.ts';
import { Hall, LINES } from '../server/hall.ts';
import { hashPassword } from '../../daemon/server/passwords.ts';
import { loginThroughForm, pageUrls, type Official } from './login.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = 'test-results/screenshots';
const TOKEN = 'e2e-arbiter';
const ARBITER: Official = { name: 'IA Pages', role: 'arbiter', password: 'pages arbiter password' };
const TABLES = 7;

let hall: Hall;
let server: RunningServer;
let browser: Browser;
/** Uncaught errors in any page: the suite fails on them at the end. */
const pageErrors: string[] = [];
/** How far each table has got in its line. */
const played = new Map<string, number>();

function playNext(id: string): string {
  const line = LINES[(Number(id.split('-t')[1]) - 1) % LINES.length]!;
  const n = played.get(id) ?? 0;
  const san = line[n]!;
  hall.play(id, san);
  played.set(id, n + 1);
  return san;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  hall = new Hall({ tables: TABLES });
  hall.connectAll();
  for (let t = 1; t < TABLES; t++) for (let i = 0; i < 3 + t; i++) playNext(`r1-t${t}`);
  // The last table is already over: fool's mate.
  for (const san of ['f3', 'e5', 'g4', 'Qh4#']) hall.play(`r1-t${TABLES}`, san);
  played.set(`r1-t${TABLES}`, 4);
  hall.illegal('r1-t1', 'h2', 'h5');
  server = await startServer({ source: hall.source, arbiterToken: TOKEN, access: { accounts: [{ name: ARBITER.name, role: ARBITER.role, password: await hashPassword(ARBITER.password) }] } });
  expect(server.viewerError).toBeNull();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

afterAll(async () => {
  expect(pageErrors).toEqual([]);
  await browser?.close();
  await server?.close();
});

async function open(path: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  page.on('pageerror', (e) => pageErrors.push(`${path}: ${e.message}`));
  await page.goto(`${server.url}${path}`);
  return page;
}

const moveCount = (page: Page): Promise<number> => page.locator('ol.moves button.san:not(.empty)').count();

describe('viewer', () => {
  it('overview shows every table live', async () => {
    const page = await open('/?lang=en');
    await page
      .locator('.table-card')
      .nth(TABLES - 1)
      .waitFor();
    expect(await page.locator('.table-card').count()).toBe(TABLES);
    for (let t = 1; t <= TABLES; t++) {
      const card = page.locator(`.table-card[data-game="r1-t${t}"]`);
      await expect.poll(() => card.getAttribute('data-ply')).toBe(String(played.get(`r1-t${t}`)));
      expect(await card.locator('cg-board piece').count()).toBeGreaterThan(20);
    }
    await expect.poll(() => page.locator('.table-card').first().locator('.player.white .name').textContent()).toBe('Lenart, Ana');
    expect(await page.locator(`.table-card[data-game="r1-t${TABLES}"] .result`).textContent()).toBe('0-1');
    expect(await page.locator('.table-card').first().locator('.player.white .title').textContent()).toBe('WGM');
    expect(await page.locator('.table-card').first().locator('.player.white .fed').textContent()).toContain('SLO');
    const san = playNext('r1-t3');
    const card3 = page.locator('.table-card[data-game="r1-t3"]');
    await expect.poll(() => card3.getAttribute('data-ply')).toBe(String(played.get('r1-t3')));
    expect(await card3.locator('.card-last').textContent()).toContain(san);
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${SHOTS}/overview.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(200);
    await page.screenshot({ path: `${SHOTS}/overview-phone.png` });
    await page.close();
  });

  it('game page follows moves, reviews earlier positions and goes back to live', async () => {
    const page = await open('/game/r1-t2?lang=sl');
    await expect.poll(() => moveCount(page)).toBe(played.get('r1-t2'));
    const san = playNext('r1-t2');
    await expect.poll(() => moveCount(page)).toBe(played.get('r1-t2'));
    const fenNow = hall.fen('r1-t2');
    await expect.poll(() => page.locator('.board-wrap').getAttribute('data-fen')).toBe(fenNow);
    // Slovenian piece letters in the move list (Nf3 → Sf3).
    const texts = await page.locator('ol.moves button.san').allTextContents();
    expect(texts).toContain('Sf6');
    expect(texts[texts.length - 1]).toBe(san.replace('N', 'S').replace('B', 'L').replace('Q', 'D').replace('R', 'T'));
    expect(await page.locator('cg-board square.last-move').count()).toBe(2);

    await page.locator('ol.moves button.san[data-ply="2"]').click();
    await expect.poll(() => page.locator('.back-live').isVisible()).toBe(true);
    const reviewFen = await page.locator('.board-wrap').getAttribute('data-fen');
    expect(reviewFen).not.toBe(fenNow);
    // A move arriving while reviewing is listed, but the board stays on the reviewed position.
    playNext('r1-t2');
    await expect.poll(() => moveCount(page)).toBe(played.get('r1-t2'));
    expect(await page.locator('.board-wrap').getAttribute('data-fen')).toBe(reviewFen);
    await page.locator('.back-live').click();
    await expect.poll(() => page.locator('.board-wrap').getAttribute('data-fen')).toBe(hall.fen('r1-t2'));
    expect(await page.locator('.back-live').isVisible()).toBe(false);
    expect(await page.locator('.player.white .clock').textContent()).toMatch(/^1:\d\d:\d\d$/);
    expect(await page.locator('.player.to-move').count()).toBe(1);
    await page.waitForTimeout(400); // let the last move's animation finish
    await page.screenshot({ path: `${SHOTS}/game.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(200);
    // Nothing wider than the phone: no sideways scrolling on the game page.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${SHOTS}/game-phone.png`, fullPage: true });
    await page.close();
  });

  it('demonstration board shows the chosen table and its moves', async () => {
    const page = await open('/demo?tables=4,5&rotate=3600&lang=sk', { width: 1920, height: 1080 });
    await expect.poll(() => page.locator('#app').getAttribute('data-game')).toBe('r1-t4');
    await expect.poll(() => page.locator('.board-wrap').getAttribute('data-fen')).toBe(hall.fen('r1-t4'));
    const san = playNext('r1-t4');
    await expect.poll(() => page.locator('.board-wrap').getAttribute('data-fen')).toBe(hall.fen('r1-t4'));
    expect(await page.locator('.demo-last').textContent()).toContain(san.replace('N', 'J').replace('B', 'S').replace('R', 'V').replace('Q', 'D'));
    const box = await page.locator('cg-board').boundingBox();
    expect(box!.height).toBeGreaterThan(900);
    await page.waitForTimeout(400);
    await page.screenshot({ path: `${SHOTS}/demo.png` });
    await page.close();
  });

  it('a reload and a dropped websocket lose no move', async () => {
    const page = await open('/game/r1-t5');
    await expect.poll(() => moveCount(page)).toBe(played.get('r1-t5'));
    // Reload while a move is played.
    const reloading = page.reload();
    playNext('r1-t5');
    await reloading;
    await expect.poll(() => moveCount(page)).toBe(played.get('r1-t5'));

    // The server drops every websocket; moves are played before the client is back.
    const snapshotsBefore = await page.evaluate(() => (window as unknown as { boardcast: { feed: { counters: { snapshots: number } } } }).boardcast.feed.counters.snapshots);
    server.hub.disconnectAll();
    playNext('r1-t5');
    playNext('r1-t5');
    await expect.poll(() => moveCount(page), { timeout: 10_000 }).toBe(played.get('r1-t5'));
    const counters = await page.evaluate(() => (window as unknown as { boardcast: { feed: { counters: Record<string, number> } } }).boardcast.feed.counters);
    expect(counters.resumes).toBeGreaterThanOrEqual(1);
    expect(counters.snapshots).toBe(snapshotsBefore);
    expect(counters.gaps).toBe(0);
    await expect.poll(() => page.locator('.board-wrap').getAttribute('data-fen')).toBe(hall.fen('r1-t5'));
    await page.close();
  });

  it("a spectator's browser gets 401 or the login form on every official route the router has", async () => {
    const page = await open('/game/r1-t1');
    const official = server.routes.filter((r) => /^\/(api\/)?arbiter(\/|$)/.test(r.path));
    // (This server has no game or round handlers; test/server/access.test.ts walks those too.)
    expect(official.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET /api/arbiter/whoami', 'GET /arbiter', 'GET /arbiter/:id', 'GET /arbiter/replay/:id', 'POST /api/arbiter/invitations']);
    for (const r of official) {
      const path = r.path
        .replace(':id', 'r1-t1')
        .replace(':n', '1')
        .replace(':action', r.path.includes('rounds') ? 'start' : 'result');
      if (r.path.startsWith('/api/')) {
        const status = await page.evaluate(
          async ([method, p]) => (await fetch(p!, method === 'POST' ? { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' } : {})).status,
          [r.method, path],
        );
        expect(status, `${r.method} ${path}`).toBe(401);
      } else {
        await page.goto(`${server.url}${path}?token=${TOKEN}`);
        expect(page.url(), path).toBe(`${server.url}/login?next=${encodeURIComponent(path)}`);
      }
    }
    expect(hall.source.game('r1-t1')!.result).toBe('*');
    await page.close();
  });

  it('arbiter view lists incidents with their FIDE article', async () => {
    const { context, page } = await loginThroughForm(browser, server.url, ARBITER, '/arbiter/r1-t1?lang=en');
    page.on('pageerror', (e) => pageErrors.push(`arbiter: ${e.message}`));
    await page.locator('.incident').first().waitFor();
    for (const u of await pageUrls(page)) expect(u).not.toContain(TOKEN);
    expect(await page.locator('.incident .inc-art').first().textContent()).toContain('7.5.1');
    await page.screenshot({ path: `${SHOTS}/arbiter.png` });
    const pub = await open('/game/r1-t1');
    await expect.poll(() => moveCount(pub)).toBe(played.get('r1-t1'));
    expect(await pub.locator('.incident').count()).toBe(0);
    await context.close();
    await pub.close();
  });
});
