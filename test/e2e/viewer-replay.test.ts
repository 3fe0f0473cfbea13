import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GameState } from '../../protocols/feed/model.ts';
import type { Timeline } from '../../protocols/feed/timeline.ts';
import { eventually, getJson, runCli, servingUrl, stopChildren, type Child } from '../runtime/daemon-child.ts';
import { DEFAULT_CONFIG_FILE } from '../../daemon/tournament/config.ts';
import { hashPassword } from '../../daemon/server/passwords.ts';
import { loginThroughForm, type Official } from './login.ts';

// The arbiter's replay as an arbiter meets it: `boardcast serve` on its embedded default (plus an
// arbiter's account) with `mixed` noise, a real chromium logged in through the form stepping
// through a game's stored events, and the dispute report printed to PDF.
const SHOTS = 'test-results/screenshots';
const TOKEN = 'replay-e2e-secret';
const ARBITER: Official = { name: 'IA Replay', role: 'arbiter', password: 'replay arbiter password' };
const root = mkdtempSync(join(tmpdir(), 'boardcast-viewer-replay-'));
const children: Child[] = [];
let url: string;
let browser: Browser;
const pageErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const config = join(root, 'default-with-account.json');
  const base = JSON.parse(readFileSync(DEFAULT_CONFIG_FILE, 'utf8')) as Record<string, unknown>;
  writeFileSync(config, JSON.stringify({ ...base, $schema: undefined, access: { accounts: [{ name: ARBITER.name, role: ARBITER.role, password: await hashPassword(ARBITER.password) }] } }));
  const daemon = runCli(['serve', '--config', config, '--port', '0', '--data', join(root, 'data'), '--pace', '20'], { BOARDCAST_ARBITER_TOKEN: TOKEN });
  children.push(daemon);
  url = await servingUrl(daemon);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
});

afterAll(async () => {
  await browser?.close();
  await stopChildren(children);
  rmSync(root, { recursive: true, force: true });
  expect(pageErrors).toEqual([]);
});

describe('the arbiter replay in a browser', () => {
  it('steps through the stored events with both boards, and prints the dispute report', async () => {
    await eventually(async () => ((await getJson<GameState>(`${url}/api/games/r1-t1`)).ply >= 6 ? true : undefined), 30_000, 'six plies');
    // Logged in, from the arbiter's game page, its replay link.
    const { context, page } = await loginThroughForm(browser, url, ARBITER, '/arbiter/r1-t1?lang=en', { width: 1100, height: 1300 });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.locator('a.replay-link').click();
    await page.waitForSelector('.replay[data-step]');
    expect(page.url()).toContain('/arbiter/replay/r1-t1');
    const step = async (): Promise<number> => Number(await page.getAttribute('.replay', 'data-step'));
    expect(await step()).toBe(0);
    await page.focus('.replay');
    await page.keyboard.press('ArrowRight');
    expect(await step()).toBe(1);
    // Shift+→ goes to the next step that made or changed a move.
    await page.keyboard.press('Shift+ArrowRight');
    const atMove = await step();
    expect(atMove).toBeGreaterThan(1);
    expect(await page.locator('.replay-produced li').first().textContent()).toMatch(/^\d+\. /);
    // Both boards show pieces; their placements are in the page for checks.
    expect(await page.locator('.replay-board.sensors cg-board piece').count()).toBeGreaterThan(20);
    expect(await page.getAttribute('.replay-board.engine', 'data-fen')).toMatch(/^[rnbqkpRNBQKP1-8/]+$/);
    await page.screenshot({ path: `${SHOTS}/replay.png`, fullPage: true });

    // The report for the span so far, as an arbiter would print it.
    const timeline = (await (await fetch(`${url}/api/arbiter/games/r1-t1/timeline`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as Timeline;
    const last = timeline.steps.length - 1;
    const report = await context.newPage();
    report.on('pageerror', (e) => pageErrors.push(e.message));
    await report.goto(`${url}/arbiter/replay/r1-t1?lang=en&report=0-${last}`);
    await report.waitForSelector('.dispute-report');
    const pdf = await report.pdf({ format: 'A4' });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const text = (await report.locator('.dispute-report').textContent()) ?? '';
    expect(text).toContain('Dispute report · r1-t1');
    expect(text).toContain('FIDE Laws 2018');
    const moves = timeline.steps[last]!.moves;
    expect(text).toContain(`1. ${moves[0]}`);
    expect(await report.locator('.report-events tbody tr').count()).toBe(last + 1);
  }, 90_000);
});
