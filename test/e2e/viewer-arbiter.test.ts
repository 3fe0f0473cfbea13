import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GameState, GameSummary, RoundInfo } from '../../protocols/feed/model.ts';
import { openStore } from '../../daemon/store/store.ts';
import { getJson, runCli, servingUrl, stopChildren, type Child } from '../runtime/daemon-child.ts';

// The arbiter's desk as an arbiter meets it: `boardcast serve` in rounds.start "arbiter" mode with
// three emulated tables (real serial/codec/session code in-process), pairings imported with the
// real CLI, a real chromium clicking the buttons, and the store's audit trail checked at the end.
const SHOTS = 'test-results/screenshots';
const TOKEN = 'desk-e2e-secret';
const ARBITER = 'IA Desk Tester';
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

async function open(path: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  page.on('pageerror', (e) => pageErrors.push(`${path}: ${e.message}`));
  await page.goto(`${url}${path}`);
  return page;
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
  it('a wrong token shows the 401 message and changes nothing', async () => {
    const page = await open('/arbiter?token=not-the-token&lang=en');
    // Said on arrival (GET /api/arbiter/whoami), before any action.
    await expect.poll(() => page.locator('.auth-banner').isVisible()).toBe(true);
    expect(await page.locator('.auth-banner').textContent()).toContain('the arbiter token is missing or wrong');
    await roundRow(page, 1).locator('.round-start').click();
    const msg = roundRow(page, 1).locator('.action-msg');
    await expect.poll(() => msg.getAttribute('data-kind')).toBe('error');
    expect(await msg.textContent()).toContain('The arbiter token was refused');
    expect(await msg.textContent()).toContain('arbiter actions need Authorization');
    expect(await page.locator('.auth-banner').isVisible()).toBe(true);
    expect((await getJson<RoundInfo[]>(`${url}/api/rounds`)).map((r) => r.status)).toEqual(['upcoming', 'upcoming']);
    await page.close();
  });

  it('starts round 1, shows the refusal to close, sets results, closes; the game page sets a result too', async () => {
    const page = await open(`/arbiter?token=${TOKEN}&lang=en`);
    await page.locator('input.arbiter-name').fill(ARBITER);
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
      expect(await row.locator('a.dg-open').getAttribute('href')).toContain(`/arbiter/r1-t${table}?token=`);
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

    // A result from the game page, reached through the desk's link (the token travels with it).
    const link = await gameRow(page, 'r1-t1').locator('a.dg-open').getAttribute('href');
    const game = await open(`${link!}&lang=en`);
    await game.locator('.arbiter-actions .res-btn').first().waitFor();
    expect(await game.locator('input.arbiter-name').inputValue()).toBe(''); // another browser context: its own storage
    await game.locator('input.arbiter-name').fill(ARBITER);
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
    await game.close();

    // Reinstate on the game page: select an earlier move, confirm, the later plies are taken back.
    const g2 = await open(`/arbiter/r1-t2?token=${TOKEN}&lang=en`);
    const moves = () => g2.locator('ol.moves button.san:not(.empty)').count();
    await expect.poll(moves, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);
    const reinstate = g2.locator('.reinstate-btn');
    expect(await reinstate.isDisabled()).toBe(true); // nothing selected: following the game
    await g2.locator('ol.moves button.san[data-ply="2"]').click();
    expect(await g2.locator('.reinstate-what').getAttribute('data-ply')).toBe('2');
    await reinstate.click();
    const rmsg = g2.locator('.arbiter-actions .reinstate-btn + .action-msg');
    await expect.poll(() => rmsg.textContent()).toMatch(/^Take back the \d+ later plies\?/);
    await rmsg.locator('.confirm-yes').click();
    await expect.poll(() => rmsg.getAttribute('data-kind')).toBe('ok');
    expect((await getJson<GameState>(`${url}/api/games/r1-t2`)).ply).toBe(2);
    await expect.poll(moves).toBe(2);
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
    const g3 = await open(`/arbiter/r1-t3?token=${TOKEN}&lang=en`);
    const fen = '8/8/4k3/8/8/4K3/4P3/8 w - - 0 1';
    await g3.locator('input.fen-input').fill(fen);
    await g3.locator('.fen-btn').click();
    await g3.locator('.arbiter-actions .confirm-yes').click();
    await expect.poll(() => g3.locator('.fen-row + .action-msg').getAttribute('data-kind')).toBe('ok');
    // The record starts from it. The emulated players play on without setting the pieces to it, so
    // once a clock is pressed the page follows the board as it stands and says the record cannot.
    const followed = async (): Promise<string> => {
      if ((await g3.locator('.board-wrap').getAttribute('data-fen')) === fen) return 'the position set';
      return (await g3.locator('.review-note').textContent())?.startsWith('The record has lost the thread') ? 'the board, with the note' : 'neither';
    };
    await expect.poll(followed).not.toBe('neither');
    expect(await g3.locator('ol.moves button.san').count()).toBe(0);
    const set = await getJson<GameState>(`${url}/api/games/r1-t3`);
    expect([set.startFen, set.fen, set.moves.length]).toEqual([fen, fen, 0]);
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

    // The name typed is remembered for the next visit.
    await page.reload();
    expect(await page.locator('input.arbiter-name').inputValue()).toBe(ARBITER);
    await page.close();
  }, 90_000);

  it('round 2 from a phone: start, then close anyway once the refusal is confirmed (force)', async () => {
    const page = await open(`/arbiter?token=${TOKEN}&lang=sl&round=2`, { width: 390, height: 844 });
    await roundRow(page, 2).locator('.round-start').click();
    await expect.poll(() => page.locator('.desk-games .desk-game').count(), { timeout: 15_000 }).toBe(3);
    // Round 2 was paired with colours reversed.
    expect(await gameRow(page, 'r2-t1').locator('.dg-players').textContent()).toBe('Horvat, Marko – Novak, Ana');
    expect(await page.locator('.desk-head').isVisible()).toBe(false);
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
    await page.close();
  }, 60_000);

  it('the audit trail names the arbiter typed on the pages', async () => {
    await stopChildren(children);
    const store = openStore(join(root, 'data', 'boardcast.sqlite'));
    if (!store.ok) throw new Error(store.error.message);
    const audit = store.value.amendments().map((a) => [a.action, a.arbiter, a.action === 'set-result' ? a.reason : '']);
    store.value.close();
    expect(audit).toEqual([
      ['start-round', ARBITER, ''],
      ['set-result', ARBITER, 'draw agreed'],
      // The reinstate came from a fresh browser with no name typed: the API's default.
      ['reinstate', 'arbiter', ''],
      ['set-position', 'arbiter', ''],
      ['set-result', ARBITER, 'Black resigned'],
      ['set-result', ARBITER, 'White did not come'],
      ['close-round', ARBITER, ''],
      // So did the phone.
      ['start-round', 'arbiter', ''],
      ['close-round', 'arbiter', ''],
    ]);
  });
});
