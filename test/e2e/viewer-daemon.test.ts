import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GameSummary, RoundInfo } from '../../protocols/feed/model.ts';
import { eventually, getJson, runCli, servingUrl, type Child } from '../runtime/daemon-child.ts';

// The viewer as a spectator meets it: `boardcast serve` on its embedded default (8 emulated DGT
// boards played through the real serial/codec/session code), a real chromium, no test doubles.
const SHOTS = 'test-results/screenshots';
const root = mkdtempSync(join(tmpdir(), 'boardcast-viewer-daemon-'));
let daemon: Child;
let url: string;
let browser: Browser;
const pageErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  daemon = runCli(['serve', '--port', '0', '--data', join(root, 'data'), '--pace', '10']);
  url = await servingUrl(daemon);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

afterAll(async () => {
  await browser?.close();
  if (daemon && daemon.proc.exitCode === null) {
    daemon.proc.kill('SIGTERM');
    await daemon.exit;
  }
  rmSync(root, { recursive: true, force: true });
  expect(pageErrors).toEqual([]);
});

async function open(path: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => pageErrors.push(`${path}: ${e.message}`));
  await page.goto(`${url}${path}`);
  return page;
}

/** A game the daemon reports live, with some moves on it. */
async function liveGame(): Promise<GameSummary> {
  return eventually(
    async () => {
      const rounds = await getJson<RoundInfo[]>(`${url}/api/rounds`);
      for (const r of rounds.filter((x) => x.status === 'live').reverse()) {
        const g = (await getJson<GameSummary[]>(`${url}/api/rounds/${r.round}/games`)).find((x) => x.status === 'live' && x.ply >= 4);
        if (g) return g;
      }
      return undefined;
    },
    30_000,
    'a live game with moves',
  );
}

describe('viewer on the running daemon', () => {
  it('overview shows all 8 emulated tables with boards and moving games', async () => {
    await liveGame();
    const page = await open('/?lang=en');
    await expect.poll(() => page.locator('.table-card').count(), { timeout: 20_000 }).toBe(8);
    for (let i = 0; i < 8; i++) expect(await page.locator('.table-card').nth(i).locator('cg-board piece').count()).toBeGreaterThan(2);
    // Boards keep moving: the sum of plies on the page grows without a reload.
    const plies = async () => {
      const all = await page.locator('.table-card').evaluateAll((cards) => cards.map((c) => Number(c.getAttribute('data-ply') ?? 0)));
      return all.reduce((a, b) => a + b, 0);
    };
    const before = await plies();
    await expect.poll(plies, { timeout: 20_000 }).toBeGreaterThan(before);
    await page.screenshot({ path: `${SHOTS}/daemon-overview.png`, fullPage: true });
  });

  it('a move played on an emulated board appears on the game page and on the demo board', async () => {
    const g = await liveGame();
    const game = await open(`/game/${g.id}?lang=en`);
    const demo = await open(`/demo?round=${g.round}&tables=${g.table}&lang=en`);
    const moves = () => game.locator('ol.moves button.san:not(.empty)').count();
    await expect.poll(moves, { timeout: 20_000 }).toBeGreaterThanOrEqual(g.ply);
    const seen = await moves();
    // The emulated player makes the next move on the board; both pages must show it.
    await expect.poll(moves, { timeout: 30_000 }).toBeGreaterThan(seen);
    const state = await getJson<{ moves: { san: string }[]; status: string }>(`${url}/api/games/${g.id}`);
    const lastOnPage = (await game.locator('ol.moves button.san:not(.empty)').last().textContent())?.trim();
    expect(state.moves.map((m) => m.san)).toContain(lastOnPage);
    // A move just shown can still be amended (a piece slid over a square on its way): the demo
    // board must show the game's last move as it stands when it is read, not a passing one.
    await expect
      .poll(
        async () => {
          const now = await getJson<{ moves: { san: string }[] }>(`${url}/api/games/${g.id}`);
          const last = now.moves[now.moves.length - 1]?.san ?? '';
          return ((await demo.locator('body').textContent()) ?? '').includes(last) ? 'shown' : `not showing ${last}`;
        },
        { timeout: 20_000 },
      )
      .toBe('shown');
    await game.screenshot({ path: `${SHOTS}/daemon-game.png` });
    await demo.screenshot({ path: `${SHOTS}/daemon-demo.png` });
  });
});
