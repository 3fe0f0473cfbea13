import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GameState, GameSummary, RoundInfo } from '../../protocols/feed/model.ts';
import { openStore } from '../../daemon/store/store.ts';
import { getJson, runCli, servingUrl, stopChildren, type Child } from '../runtime/daemon-child.ts';
import { hashPassword } from '../../daemon/server/passwords.ts';
import { loginThroughForm, pageUrls, type Official } from './login.ts';

// The arbiter's desk as an arbiter meets it: `boardcast serve` in rounds.start "arbiter" mode with
// three emulated tables (real serial/codec/session code in-process), pairings imported with the
// real CLI, a real chromium logging in through the form and clicking the buttons, and the store's
// audit trail (naming the accounts) checked at the end.
const SHOTS = 'test-results/screenshots';
const TOKEN = 'desk-e2e-secret';
const ARBITER: Official = { name: 'IA Desk Tester', role: 'arbiter', password: 'desk tester password' };
const ORGANISER: Official = { name: 'Hall Organiser', role: 'organiser', password: 'organiser password 2' };
const root = mkdtempSync(join(tmpdir(), 'boardcast-viewer-arbiter-'));
const children: Child[] = [];
let url: string;
let browser: Browser;
const pageErrors: string[] = [];

const PAIRINGS = [
  ['1', 'Novak, Ana', 'Horvat, Marko'],
  ['2', 'Kranjc, Eva', 'Zupan, Luka'],
  ['3', 'Kos, Nina', 'Vidmar, Jan'],
];

async function done(c: Child): Promise<{ code: number | null; err: string }> {
  const code = await c.exit;
  return { code, err: c.stderr() };
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const config = join(root, 'hall.json');
  writeFileSync(
    config,
    JSON.stringify({
      event: { name: 'Desk e2e Open', site: 'Ljubljana SLO' },
      rounds: { count: 2, start: 'arbiter' },
      timeControl: '90+30',
      emulate: { count: 3, games: 'random', seed: 7 },
      httpPort: 0,
      dataDir: './data',
      access: { accounts: await Promise.all([ARBITER, ORGANISER].map(async (a) => ({ name: a.name, role: a.role, password: await hashPassword(a.password) }))) },
    }),
  );
  for (const round of [1, 2]) {
    const csv = join(root, `round${round}.csv`);
    const rows = PAIRINGS.map(([b, w, k]) => (round === 1 ? `${b},"${w}","${k}"` : `${b},"${k}","${w}"`));
    writeFileSync(csv, `board,white,black\n${rows.join('\n')}\n`);
    const c = runCli(['import-pairings', '--config', config, '--round', String(round), csv]);
    children.push(c);
    const r = await done(c);
    expect(r.code, r.err).toBe(0);
  }
  const daemon = runCli(['serve', '--config', config, '--pace', '10'], { BOARDCAST_ARBITER_TOKEN: TOKEN });
  children.push(daemon);
  url = await servingUrl(daemon);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stopChildren(children);
  rmSync(root, { recursive: true, force: true });
  expect(pageErrors).toEqual([]);
});

/** The arbiter's browser, logged in through the form by the second test. */
let arbiter: BrowserContext;
/** The feed's websocket addresses every page opened. */
const socketUrls: string[] = [];

function watch(page: Page, label: string): Page {
  page.on('pageerror', (e) => pageErrors.push(`${label}: ${e.message}`));
  page.on('websocket', (ws) => socketUrls.push(ws.url()));
  return page;
}

async function open(path: string, context = arbiter): Promise<Page> {
  const page = watch(await context.newPage(), path);
  await page.goto(`${url}${path}`);
  return page;
}

/** No address a page produces carries the token (or any secret): links, forms, the feed. */
async function expectNoSecretIn(page: Page): Promise<void> {
  const urls = [...(await pageUrls(page)), page.url(), ...socketUrls];
  expect(urls.length).toBeGreaterThan(1);
  for (const u of urls) {
    expect(u).not.toContain('token');
    expect(u).not.toContain(TOKEN);
  }
}

const roundRow = (page: Page, n: number): Locator => page.locator(`.desk-round[data-round="${n}"]`);
const gameRow = (page: Page, id: string): Locator => page.locator(`.desk-game[data-game="${id}"]`);

/**
 * Clicks a result button and waits for the result to show. An emulated game may end on its own
 * board in the meantime; the desk then asks before replacing that result, and this confirms.
 */
async function setResult(row: Locator, result: string, reason: string): Promise<void> {
  await row.locator('input.reason').fill(reason);
  await row.locator(`.res-btn[data-result="${result}"]`).click();
  await expect
    .poll(
      async () => {
        const confirm = row.locator('.confirm-yes');
        if (await confirm.isVisible()) await confirm.click();
        return row.getAttribute('data-result');
      },
      { timeout: 15_000 },
    )
    .toBe(result);
}

describe("the arbiter's desk on the running daemon ('arbiter' mode)", () => {
  it('a spectator is sent to the login form, even with the token in the URL; a wrong password opens nothing', async () => {
    const context = await browser.newContext();
    const page = watch(await context.newPage(), 'spectator');
    await page.goto(`${url}/arbiter?token=${TOKEN}&lang=en`);
    // The token in the address is not accepted; it is dropped, and the login form asks instead.
    await expect.poll(() => page.url()).toBe(`${url}/login?next=${encodeURIComponent('/arbiter?lang=en')}`);
    expect(await page.locator('h1').textContent()).toBe('boardcast · officials');
    await page.screenshot({ path: `${SHOTS}/login.png` });
    await page.locator('#login-name').fill(ARBITER.name);
    await page.locator('#login-password').fill('not the password');
    await page.locator('.login-form button[type="submit"]').click();
    await expect.poll(() => page.locator('.error').textContent()).toBe('Wrong name or password.');
    expect(await context.cookies()).toEqual([]);
    for (const path of ['/arbiter/r1-t1', '/arbiter/replay/r1-t1']) {
      await page.goto(`${url}${path}`);
      expect(new URL(page.url()).pathname).toBe('/login');
    }
    const refused = await page.evaluate(async () => (await fetch('/api/arbiter/rounds/1/start', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status);
    expect(refused).toBe(401);
    expect((await getJson<RoundInfo[]>(`${url}/api/rounds`)).map((r) => r.status)).toEqual(['upcoming', 'upcoming']);
    await context.close();
  });

  it('logs in through the form, starts round 1, shows the refusal to close, sets results, closes; the game page sets a result too; logs out', async () => {
    const logged = await loginThroughForm(browser, url, ARBITER);
    arbiter = logged.context;
    const page = watch(logged.page, '/arbiter');
    await expect.poll(() => page.locator('.session-name').textContent()).toBe(`${ARBITER.name} · arbiter`);
    await expect.poll(() => roundRow(page, 1).getAttribute('data-status')).toBe('upcoming');
    expect(await roundRow(page, 1).locator('.round-close').isVisible()).toBe(false);
    expect(await page.locator('.desk-empty').isVisible()).toBe(true);

    await roundRow(page, 1).locator('.round-start').click();
    await expect.poll(() => page.locator('.desk-games .desk-game').count(), { timeout: 15_000 }).toBe(3);
    await expect.poll(() => roundRow(page, 1).getAttribute('data-status')).toBe('live');
    for (const [table, white, black] of PAIRINGS) {
      const row = gameRow(page, `r1-t${table}`);
      expect(await row.locator('.dg-players').textContent()).toBe(`${white} – ${black}`);
      expect(await row.locator('.dg-table').textContent()).toBe(table);
      expect(await row.locator('a.dg-open').getAttribute('href')).toBe(`/arbiter/r1-t${table}?lang=en`);
    }
    expect(await roundRow(page, 1).locator('.round-start').isVisible()).toBe(false);
    // Close with games unfinished: the server's refusal is shown with a "close anyway" offer; cancel it.
    await roundRow(page, 1).locator('.round-close').click();
    const closeMsg = roundRow(page, 1).locator('.action-msg');
    await expect.poll(() => closeMsg.getAttribute('data-kind')).toBe('confirm');
    expect(await closeMsg.textContent()).toContain('unfinished, on table(s)');
    expect(await closeMsg.locator('.confirm-yes').textContent()).toBe('Close anyway');
    await page.screenshot({ path: `${SHOTS}/arbiter-desk.png`, fullPage: true });
    await closeMsg.locator('.confirm-no').click();
    expect(await closeMsg.textContent()).toBe('');
    expect((await getJson<RoundInfo[]>(`${url}/api/rounds`))[0]!.status).toBe('live');

    await expectNoSecretIn(page);
    // A result from the game page, reached through the desk's link (the session cookie goes with it).
    const link = await gameRow(page, 'r1-t1').locator('a.dg-open').getAttribute('href');
    const game = await open(link!);
    await game.locator('.arbiter-actions .res-btn').first().waitFor();
    await expect.poll(() => game.locator('.arbiter-actions .session-name').textContent()).toBe(`${ARBITER.name} · arbiter`);
    await expectNoSecretIn(game);
    const panel = game.locator('.arbiter-actions');
    // A bad FEN is refused with the server's message, next to the field.
    await panel.locator('input.fen-input').fill('not a fen');
    await panel.locator('.fen-btn').click();
    await panel.locator('.confirm-yes').click();
    await expect.poll(() => panel.locator('.action-msg[data-kind="error"]').textContent()).toContain('not a valid FEN');
    await panel.locator('.result-controls input.reason').fill('draw agreed');
    await panel.locator('.res-btn[data-result="1/2-1/2"]').click();
    await expect.poll(() => game.locator('.result-line').textContent()).toContain('1/2-1/2');
    expect((await getJson<GameState>(`${url}/api/games/r1-t1`)).result).toBe('1/2-1/2');
    await game.screenshot({ path: `${SHOTS}/arbiter-game.png` });
    // The desk follows through the feed.
    await expect.poll(() => gameRow(page, 'r1-t1').locator('.dg-result').textContent()).toBe('½-½');

    // The result is listed among the game's amendments; its Undo (with a reason) restores the game.
    const setRow = panel.locator('li.amendment[data-action="set-result"]');
    await expect.poll(() => setRow.getAttribute('data-undone')).toBe('false');
    expect(await setRow.textContent()).toContain(`${ARBITER.name} · set-result · draw agreed`);
    const amendMsg = panel.locator('.amendments .action-msg');
    await setRow.locator('.undo-btn').click();
    await expect.poll(() => amendMsg.getAttribute('data-kind')).toBe('error'); // no reason given
    await panel.locator('input.undo-reason').fill('result entered on the wrong game');
    await setRow.locator('.undo-btn').click();
    await amendMsg.locator('.confirm-yes').click();
    await expect.poll(() => amendMsg.getAttribute('data-kind')).toBe('ok');
    await expect.poll(() => setRow.getAttribute('data-undone')).toBe('true');
    expect(await panel.locator('li.amendment[data-action="undo"]').textContent()).toContain('result entered on the wrong game');
    // The undo restores the game as the board made it (the emulated game may have ended on its own since).
    const restored = await getJson<GameState>(`${url}/api/games/r1-t1`);
    expect(restored.termination).not.toBe('arbiter decision');
    await expect.poll(() => game.locator('.result-line').textContent()).not.toContain('arbiter');
    await expect.poll(() => gameRow(page, 'r1-t1').getAttribute('data-result')).toBe(restored.result);
    await game.screenshot({ path: `${SHOTS}/arbiter-game-undone.png` });
    // And the result again, for the rest of the round.
    await panel.locator('.result-controls input.reason').fill('draw agreed');
    await panel.locator('.res-btn[data-result="1/2-1/2"]').click();
    await expect
      .poll(async () => {
        const confirm = panel.locator('.result-controls .confirm-yes');
        if (await confirm.isVisible()) await confirm.click();
        return (await getJson<GameState>(`${url}/api/games/r1-t1`)).result;
      })
      .toBe('1/2-1/2');
    await game.close();

    // Reinstate on the game page: select an earlier move, confirm, the later plies are taken back.
    const g2 = await open('/arbiter/r1-t2?lang=en');
    const moves = () => g2.locator('ol.moves button.san:not(.empty)').count();
    await expect.poll(moves, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);
    const reinstate = g2.locator('.reinstate-btn');
    expect(await reinstate.isDisabled()).toBe(true); // nothing selected: following the game
    await g2.locator('ol.moves button.san[data-ply="2"]').click();
    expect(await g2.locator('.reinstate-what').getAttribute('data-ply')).toBe('2');
    await reinstate.click();
    const rmsg = g2.locator('.arbiter-actions .reinstate-btn + .action-msg');
    await expect.poll(() => rmsg.textContent()).toMatch(/^Take back the \d+ later plies\?/);
    const reinstatedAt = Date.now();
    await rmsg.locator('.confirm-yes').click();
    await expect.poll(() => rmsg.getAttribute('data-kind')).toBe('ok');
    // The later plies are taken back. The emulated players do not put the position back on the
    // board: a press of theirs sends the record on from the board as it stands (never frozen), so
    // whatever follows ply 2 by now was read after the reinstatement, and the page shows the game.
    const after = await getJson<GameState>(`${url}/api/games/r1-t2`);
    expect(after.moves.length).toBeGreaterThanOrEqual(2);
    expect(after.moves.slice(2).filter((m) => m.at < reinstatedAt)).toEqual([]);
    await expect.poll(async () => (await moves()) === (await getJson<GameState>(`${url}/api/games/r1-t2`)).moves.length).toBe(true);
    expect(await g2.locator('.back-live').isVisible()).toBe(false); // back to following the game
    await g2.setViewportSize({ width: 390, height: 844 });
    // (chessground's file letters stick out 10 px on every game page; the arbiter's panel must fit.)
    await expect
      .poll(async () => {
        const box = await g2.locator('.arbiter-actions').boundingBox();
        return box ? box.x + box.width : Infinity;
      })
      .toBeLessThanOrEqual(390);
    await g2.screenshot({ path: `${SHOTS}/arbiter-game-phone.png`, fullPage: true });
    await g2.close();

    // A new position from a FEN: the page shows it (a fresh snapshot), with no moves.
    const g3 = await open('/arbiter/r1-t3?lang=en');
    const fen = '8/8/4k3/8/8/4K3/4P3/8 w - - 0 1';
    await g3.locator('input.fen-input').fill(fen);
    await g3.locator('.fen-btn').click();
    await g3.locator('.arbiter-actions .confirm-yes').click();
    await expect.poll(() => g3.locator('.fen-row + .action-msg').getAttribute('data-kind')).toBe('ok');
    // The record starts from it. The emulated players play on without setting the pieces to it, so
    // once a clock is pressed the page follows the board as it stands and says the record cannot;
    // at the next press the record breaks and follows the board again (no note then).
    const followed = async (): Promise<string> => {
      if ((await g3.locator('.board-wrap').getAttribute('data-fen')) === fen) return 'the position set';
      if ((await getJson<GameState>(`${url}/api/games/r1-t3`)).moves[0]?.san === '--') return 'a break from the position set';
      return (await g3.locator('.review-note').textContent())?.startsWith('The record has lost the thread') ? 'the board, with the note' : 'neither';
    };
    await expect.poll(followed).not.toBe('neither');
    // Either nothing was pressed yet (no moves), or a press came and the record broke at its first
    // ply, from the position set (the players play on at the emulator's pace: either can be seen).
    const set = await getJson<GameState>(`${url}/api/games/r1-t3`);
    expect(set.startFen).toBe(fen);
    if (set.moves.length === 0) expect(set.fen).toBe(fen);
    else expect(set.moves[0]!.san).toBe('--');
    await g3.close();

    await setResult(gameRow(page, 'r1-t2'), '1-0', 'Black resigned');
    await setResult(gameRow(page, 'r1-t3'), '0-1', 'White did not come');
    const games = await getJson<GameSummary[]>(`${url}/api/rounds/1/games`);
    expect(games.map((g) => g.result)).toEqual(['1/2-1/2', '1-0', '0-1']);

    await roundRow(page, 1).locator('.round-close').click();
    // (The round may already read `finished` once all its games have results: wait for the answer.)
    await expect.poll(() => roundRow(page, 1).locator('.action-msg').getAttribute('data-kind')).toBe('ok');
    expect(await roundRow(page, 1).getAttribute('data-status')).toBe('finished');
    expect(await roundRow(page, 1).locator('.round-status').textContent()).toBe('Finished');
    expect(await roundRow(page, 1).locator('.round-close').isVisible()).toBe(false);
    expect((await getJson<RoundInfo[]>(`${url}/api/rounds`))[0]!.status).toBe('finished');

    await expectNoSecretIn(page);
    // A game page left open in another tab: once the session is gone, it says so and offers to log in again.
    const stale = await open('/arbiter/r1-t1?lang=en');
    await stale.locator('.arbiter-actions .fen-btn').waitFor();

    // Log out: back to the login form, and the desk and the API are closed to this browser again.
    await page.locator('.desk-bar button.logout').click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
    expect((await arbiter.cookies()).filter((c) => c.name === 'boardcast_session')).toEqual([]);
    await page.goto(`${url}/arbiter?lang=en`);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await page.evaluate(async () => (await fetch('/api/arbiter/whoami')).status)).toBe(401);
    await page.close();
    await stale.locator('input.fen-input').fill('8/8/4k3/8/8/4K3/4P3/8 w - - 0 1');
    await stale.locator('.fen-btn').click();
    await stale.locator('.arbiter-actions .confirm-yes').click();
    await expect.poll(() => stale.locator('.auth-banner').textContent()).toContain('Not logged in, or the session has ended: arbiter actions need a login');
    expect(await stale.locator('.auth-banner a.login-link').getAttribute('href')).toBe(`/login?next=${encodeURIComponent('/arbiter/r1-t1?lang=en')}`);
    await stale.close();
  }, 90_000);

  it("the organiser, from a phone: round 2 started, then closed anyway once the refusal is confirmed (force); a game's arbiter page is not the organiser's", async () => {
    const logged = await loginThroughForm(browser, url, ORGANISER, '/arbiter?lang=sl&round=2', { width: 390, height: 844 });
    const page = watch(logged.page, 'organiser');
    await expect.poll(() => page.locator('.session-name').textContent()).toBe(`${ORGANISER.name} · organiser`);
    await roundRow(page, 2).locator('.round-start').click();
    await expect.poll(() => page.locator('.desk-games .desk-game').count(), { timeout: 15_000 }).toBe(3);
    // Round 2 was paired with colours reversed.
    expect(await gameRow(page, 'r2-t1').locator('.dg-players').textContent()).toBe('Horvat, Marko – Novak, Ana');
    expect(await page.locator('.desk-head').isVisible()).toBe(false);
    // The organiser gets no game controls (they would be refused): rounds only.
    expect(await gameRow(page, 'r2-t1').locator('.res-btn').first().isVisible()).toBe(false);
    expect(await gameRow(page, 'r2-t1').locator('a.dg-open').isVisible()).toBe(false);
    expect(await page.locator('.round-status').first().textContent()).toBe('Končano');
    // A fresh desk knows round 1 was closed (RoundInfo.closed): no Close button on it.
    expect(await roundRow(page, 1).locator('.round-close').isVisible()).toBe(false);
    expect(await roundRow(page, 1).locator('.round-start').isVisible()).toBe(false);
    // Nothing overflows the phone's width.
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${SHOTS}/arbiter-desk-phone.png`, fullPage: true });

    const unfinished = (await getJson<GameSummary[]>(`${url}/api/rounds/2/games`)).filter((g) => g.result === '*');
    expect(unfinished.length).toBeGreaterThan(0);
    await roundRow(page, 2).locator('.round-close').click();
    const msg = roundRow(page, 2).locator('.action-msg');
    await expect.poll(() => msg.getAttribute('data-kind')).toBe('confirm');
    expect(await msg.locator('.confirm-yes').textContent()).toBe('Vseeno zaključi');
    await msg.locator('.confirm-yes').click();
    await expect.poll(() => roundRow(page, 2).getAttribute('data-status')).toBe('finished');
    expect((await getJson<RoundInfo[]>(`${url}/api/rounds`))[1]!.status).toBe('finished');
    const game = await page.goto(`${url}/arbiter/r2-t1`);
    expect(game?.status()).toBe(403);
    expect(await page.locator('.error').textContent()).toContain('you are logged in as Hall Organiser (organiser)');
    await logged.context.close();
  }, 60_000);

  it('the audit trail names the accounts that acted', async () => {
    await stopChildren(children);
    const store = openStore(join(root, 'data', 'boardcast.sqlite'));
    if (!store.ok) throw new Error(store.error.message);
    const audit = store.value.amendments().map((a) => [a.action, a.arbiter, a.action === 'set-result' ? a.reason : '']);
    store.value.close();
    expect(audit).toEqual([
      ['start-round', ARBITER.name, ''],
      ['set-result', ARBITER.name, 'draw agreed'],
      ['undo', ARBITER.name, ''],
      ['set-result', ARBITER.name, 'draw agreed'],
      ['reinstate', ARBITER.name, ''],
      ['set-position', ARBITER.name, ''],
      ['set-result', ARBITER.name, 'Black resigned'],
      ['set-result', ARBITER.name, 'White did not come'],
      ['close-round', ARBITER.name, ''],
      ['start-round', ORGANISER.name, ''],
      ['close-round', ORGANISER.name, ''],
    ]);
  });
});
