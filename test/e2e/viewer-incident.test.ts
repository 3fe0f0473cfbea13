import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Chess } from 'chessops/chess';
import { parseSquare } from 'chessops/util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GameState } from '../../protocols/feed/model.ts';
import type { Timeline } from '../../protocols/feed/timeline.ts';
import { PIECE, squareToField } from '../../protocols/dgt/squares.ts';
import { startDaemon, type RunningDaemon } from '../../daemon/app/daemon.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { hashPassword } from '../../daemon/server/passwords.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import type { PhysicalAction } from '../../daemon/simulation/emulator/physical.ts';
import { PtyDevice } from '../../daemon/simulation/pty-board.ts';
import { parseConfig } from '../../daemon/tournament/config.ts';
import { moveActions } from '../board/catchup-helpers.ts';
import { eventually, getJson } from '../runtime/daemon-child.ts';
import { loginThroughForm, type Official } from './login.ts';
import { socatAvailable } from './socat.ts';

// An illegal move as the people in the hall meet it: a daemon reading one board over a real
// pseudo-terminal (socat), moves played by hand on the emulated board, a real chromium for the
// arbiter (logged in through the form) and another for a spectator. Black's king jumps e8-e6 and
// Black presses the clock: the incident is on the arbiter's game page, its link opens the replay
// at the press, where the arbiter steps through the events and sees the differing squares; the
// arbiter decides, the spectator's page shows it within a second, and the undo restores it.
//
// The Laws' decision for a first illegal move is two minutes to the opponent (7.5.5), but the game
// page has no clock-correction control (and a correction made only in the record would be
// replaced by the running DGT clock's next reading): the arbiter records the decision the page
// offers, a result, with the reason.
const socat = socatAvailable('viewer incident');
const SHOTS = 'test-results/screenshots';
const TOKEN = 'incident-e2e-token';
const ARBITER: Official = { name: 'IA Incident', role: 'arbiter', password: 'incident arbiter password' };
const GAME = 'r1-t1';
// The in-process daemon's server reads the arbiter token from the environment; put back after.
const tokenBefore = process.env.BOARDCAST_ARBITER_TOKEN;
process.env.BOARDCAST_ARBITER_TOKEN = TOKEN;
const root = mkdtempSync(join(tmpdir(), 'boardcast-viewer-incident-'));
const logLines: string[] = [];
const pageErrors: string[] = [];
let daemon: RunningDaemon | null = null;
let device: PtyDevice | null = null;
let browser: Browser | null = null;
const board = new BoardEmulator({ serial: '61001', clock: { baseMs: 15 * 60_000, incrementMs: 10_000 }, whiteOnClock: 'left' });

afterAll(async () => {
  if (tokenBefore === undefined) delete process.env.BOARDCAST_ARBITER_TOKEN;
  else process.env.BOARDCAST_ARBITER_TOKEN = tokenBefore;
  await browser?.close();
  await daemon?.stop();
  await device?.close();
  rmSync(root, { recursive: true, force: true });
  expect(pageErrors).toEqual([]);
});

// Human pace between hand movements (the board sends each one as it happens), not synchronisation.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Hand movements on the board, 120 ms apart, then the mover's clock press. */
async function byHand(actions: PhysicalAction[], by: 'white' | 'black'): Promise<void> {
  for (const a of actions) {
    device!.withDevice((_d, at) => board.act({ ...a, at }));
    await sleep(120);
  }
  await sleep(200);
  device!.withDevice((_d, at) => board.act({ kind: 'press', at, by }));
  await sleep(250);
}

async function ply(pos: Chess, san: string): Promise<void> {
  const by = pos.turn;
  await byHand(moveActions(pos, san, 0, 0).actions, by);
}

async function arbiterJson<T>(path: string): Promise<T> {
  const res = await fetch(`${daemon!.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

async function tableState(): Promise<string | undefined> {
  return (await getJson<{ tables: { table: number; state: string }[] }>(`${daemon!.url}/health`)).tables.find((t) => t.table === 1)?.state;
}

function watch(page: Page, label: string): Page {
  page.on('pageerror', (e) => pageErrors.push(`${label}: ${e.message}`));
  return page;
}

/**
 * Waits (at most 1 s) for `done` after `act`, measured from the moment the action is taken to
 * the DOM change; answers the milliseconds it took.
 */
async function within1s(act: () => Promise<void>, done: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  await act();
  await expect.poll(done, { timeout: 1000, interval: 10 }).toBe(true);
  return Date.now() - t0;
}

/**
 * The squares marked as differing on the replay's sensor board, as drawn: chessground keeps the
 * square elements it no longer needs, hidden, for reuse.
 */
async function marked(replay: Page): Promise<string> {
  return replay.locator('.replay-board.sensors cg-board square.differs').evaluateAll((els) =>
    els
      .filter((e) => (e as HTMLElement).style.display !== 'none')
      .map((e) => (e as HTMLElement & { cgKey: string }).cgKey)
      .sort()
      .join(' '),
  );
}

describe.skipIf(!socat)('an illegal move on a board read over a real pseudo-terminal, from the hall to the arbiter and the spectators', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    device = new PtyDevice(board, join(root, 'board1'), join(root, 'board1.emu'));
    const opened = await device.open();
    if (!opened.ok) throw new Error(opened.error);
    const cfg = parseConfig(
      {
        event: { name: 'Incident e2e Open' },
        rounds: { count: 1 },
        timeControl: '15+10',
        rules: { edition: '2018', category: 'rapid' },
        httpPort: 0,
        dataDir: join(root, 'data'),
        tables: [{ number: 1, board: device.hostPath }],
        access: { accounts: [{ name: ARBITER.name, role: ARBITER.role, password: await hashPassword(ARBITER.password) }] },
      },
      null,
      root,
    );
    if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
    const started = await startDaemon({ config: cfg.value, log: createLogger({ write: (_level, line) => logLines.push(line), pretty: false }), port: 0, host: '127.0.0.1' });
    if (!started.ok) throw new Error(started.error);
    daemon = started.value;
    await eventually(async () => ((await tableState()) === 'live' ? true : undefined), 20_000, 'the board live');
    // Black starts White's clock.
    device.withDevice((_d, at) => board.act({ kind: 'press', at, by: 'black' }));
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 60_000);

  it('the incident, the replay at its moment, the decision seen by a spectator within a second, and its undo', async () => {
    const url = daemon!.url;
    // 1. e4 e5 2. Nf3 by hand, then Black's king jumps two squares (e8-e6) and Black presses.
    const pos = Chess.default();
    for (const san of ['e4', 'e5', 'Nf3']) await ply(pos, san);
    await eventually(async () => ((await getJson<GameState>(`${url}/api/games/${GAME}`)).ply === 3 ? true : undefined), 10_000, 'three plies');
    await byHand(
      [
        { kind: 'lift', at: 0, field: squareToField(parseSquare('e8')!) },
        { kind: 'place', at: 0, field: squareToField(parseSquare('e6')!), piece: PIECE.BKING },
      ],
      'black',
    );
    const incident = await eventually(async () => (await arbiterJson<GameState>(`/api/games/${GAME}`)).incidents.find((i) => i.kind === 'illegal-move'), 10_000, 'an illegal-move incident');
    expect(incident.message).toContain('black completed an illegal move');
    // The move is not in the record: the game stands after 2. Nf3.
    expect((await getJson<GameState>(`${url}/api/games/${GAME}`)).moves.map((m) => m.san)).toEqual(['e4', 'e5', 'Nf3']);

    // A spectator follows the game on the public page (no login).
    const spectator = watch(await (await browser!.newContext()).newPage(), 'spectator');
    await spectator.goto(`${url}/game/${GAME}?lang=en`);
    const spectatorResult = spectator.locator('.result-line');
    await expect.poll(() => spectatorResult.textContent()).toBe('In progress');
    await expect.poll(() => spectator.locator('ol.moves button.san:not(.empty)').count()).toBe(3);
    const before = await spectatorResult.textContent();
    // Incidents are the arbiters' business: the public page lists none.
    expect(await spectator.locator('.incidents').count()).toBe(0);

    // The arbiter logs in, opens the game, and follows the incident's link into the replay.
    const { context, page: game } = await loginThroughForm(browser!, url, ARBITER, `/arbiter/${GAME}?lang=en`, { width: 1280, height: 1100 });
    watch(game, 'arbiter game');
    const item = game.locator('.incidents li.incident[data-kind="illegal-move"]');
    await item.waitFor();
    expect(await item.locator('.inc-msg').textContent()).toBe(incident.message);
    const link = item.locator('a.inc-replay');
    expect(await link.getAttribute('href')).toBe(`/arbiter/replay/${GAME}?incident=${incident.id}&lang=en`);
    const replay = watch(await context.newPage(), 'replay');
    await replay.goto(`${url}${(await link.getAttribute('href'))!}`);
    await replay.waitForSelector('.replay[data-step]');

    // The timeline the replay is built from: the incident's step, and what differs at each step.
    const timeline = await arbiterJson<Timeline>(`/api/arbiter/games/${GAME}/timeline`);
    const atIncident = timeline.incidents.find((i) => i.id === incident.id);
    expect(atIncident?.kind).toBe('illegal-move');
    const step = atIncident!.step;
    expect(step).toBeGreaterThan(0);
    // (chessground draws the marks at the next animation frame: polled.)
    const shown = async (): Promise<{ step: number; sensors: string; engine: string; text: string; marked: string }> => ({
      step: Number(await replay.getAttribute('.replay', 'data-step')),
      sensors: (await replay.getAttribute('.replay-board.sensors', 'data-differ')) ?? '',
      engine: (await replay.getAttribute('.replay-board.engine', 'data-differ')) ?? '',
      text: (await replay.locator('.replay-differ').textContent()) ?? '',
      marked: await marked(replay),
    });
    const expected = (i: number) => {
      const differ = timeline.steps[i]!.differ;
      return {
        step: i,
        sensors: differ.join(' '),
        engine: differ.join(' '),
        text: differ.length ? `Differing squares: ${differ.join(' ')}` : 'Board and engine agree',
        marked: differ.slice().sort().join(' '),
      };
    };
    // Opened at the incident: the king stands on e6 for the sensors, on e8 for the engine.
    expect(timeline.steps[step]!.differ.slice().sort()).toEqual(['e6', 'e8']);
    await expect.poll(shown).toEqual(expected(step));
    expect(await replay.locator('.replay-produced li.produced-incident').textContent()).toContain('illegal-move');
    // Step back through the events and forward again with the arrow keys.
    await replay.focus('.replay');
    await replay.keyboard.press('ArrowLeft');
    await expect.poll(shown).toEqual(expected(step - 1));
    await replay.keyboard.press('ArrowLeft');
    await expect.poll(shown).toEqual(expected(step - 2));
    await replay.keyboard.press('ArrowRight');
    await replay.keyboard.press('ArrowRight');
    await expect.poll(shown).toEqual(expected(step));
    await replay.screenshot({ path: `${SHOTS}/replay-incident.png`, fullPage: true });

    // The arbiter decides on the game page (back in front: a background tab draws no frames); the
    // spectator's page shows it within a second.
    await game.bringToFront();
    const panel = game.locator('.arbiter-actions');
    await panel.locator('.result-controls input.reason').fill('illegal move Ke8-e6 (Art 7.5.1)');
    const decided = await within1s(
      () => panel.locator('.res-btn[data-result="1-0"]').click(),
      async () => ((await spectatorResult.textContent()) ?? '').startsWith('1-0'),
    );
    expect(decided).toBeLessThan(1000);
    expect((await getJson<GameState>(`${url}/api/games/${GAME}`)).result).toBe('1-0');

    // The undo, from the amendments list with its reason: the spectator sees the game in progress again.
    const setRow = panel.locator('li.amendment[data-action="set-result"]');
    await expect.poll(() => setRow.getAttribute('data-undone')).toBe('false');
    expect(await setRow.textContent()).toContain(`${ARBITER.name} · set-result · illegal move Ke8-e6 (Art 7.5.1)`);
    await panel.locator('input.undo-reason').fill('decision entered too early');
    await setRow.locator('.undo-btn').click();
    const amendMsg = panel.locator('.amendments .action-msg');
    await expect.poll(() => amendMsg.getAttribute('data-kind')).toBe('confirm');
    const undone = await within1s(
      () => amendMsg.locator('.confirm-yes').click(),
      async () => (await spectatorResult.textContent()) === before,
    );
    expect(undone).toBeLessThan(1000);
    await expect.poll(() => setRow.getAttribute('data-undone')).toBe('true');
    expect(await panel.locator('li.amendment[data-action="undo"]').textContent()).toContain('decision entered too early');
    const restored = await getJson<GameState>(`${url}/api/games/${GAME}`);
    expect([restored.result, restored.moves.map((m) => m.san)]).toEqual(['*', ['e4', 'e5', 'Nf3']]);
    expect(await spectator.locator('ol.moves button.san:not(.empty)').count()).toBe(3);
    // The arbiter's page shows the game as it is again too, the incident still listed.
    await expect.poll(() => game.locator('.result-line').textContent()).toBe(before);
    expect(await game.locator('.incidents li.incident[data-kind="illegal-move"] .inc-msg').textContent()).toBe(incident.message);

    // The replay's decisions panel lists the decision and its undo, the decision struck through.
    await replay.reload();
    await replay.waitForSelector('.replay[data-step]');
    expect(await replay.locator('.replay-amendments li.amendment[data-action="set-result"][data-undone="true"]').count()).toBe(1);
    expect(await replay.locator('.replay-amendments li.amendment[data-action="undo"]').textContent()).toContain('decision entered too early');

    // The other amendments from the game page's controls, each with a reason.
    await game.bringToFront();
    const amend = panel.locator('.amend-controls');
    const names = (g: GameState) => [g.white.name, g.black.name];
    const players = names(await getJson<GameState>(`${url}/api/games/${GAME}`));
    await amend.locator('.amend-reason').fill('players sat at the wrong colours');
    await amend.locator('.amend-swap').click();
    await expect.poll(async () => names(await getJson<GameState>(`${url}/api/games/${GAME}`))).toEqual(players.slice().reverse());
    // Black's clock after 1...e5 was misread: the move is selected in the list, its %clk corrected.
    await game.locator('ol.moves button.san:not(.empty)').nth(1).click();
    await amend.locator('.amend-black').fill('1:20:00');
    await amend.locator('.amend-reason').fill('clock misread after 1...e5');
    await amend.locator('.amend-clock').click();
    await expect.poll(async () => (await getJson<GameState>(`${url}/api/games/${GAME}`)).moves[1]?.clockMs).toBe(4_800_000);
    await amend.locator('.amend-chess960').fill('518');
    await amend.locator('.amend-reason').fill('the pairing sheet says Chess960');
    await amend.locator('.amend-mark-960').click();
    await expect.poll(async () => (await getJson<GameState>(`${url}/api/games/${GAME}`)).variant).toBe('chess960');
    const after = await getJson<GameState>(`${url}/api/games/${GAME}`);
    expect([names(after), after.moves.map((m) => m.san), after.moves[1]!.clockMs]).toEqual([players.slice().reverse(), ['e4', 'e5', 'Nf3'], 4_800_000]);
    for (const action of ['swap-colours', 'set-clock', 'chess960']) await expect.poll(() => panel.locator(`li.amendment[data-action="${action}"]`).count()).toBe(1);
    await context.close();
  }, 120_000);
});
