import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GameState } from '../../protocols/feed/model.ts';
import type { AmendmentView } from '../../daemon/runtime/arbiter-actions.ts';
import { eventually, getJson, runCli, servingUrl, type Child } from '../runtime/daemon-child.ts';

const TOKEN = 'amend-e2e-secret';
const root = mkdtempSync(join(tmpdir(), 'boardcast-amend-'));
const children: Child[] = [];
afterAll(() => {
  for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

const serve = (data: string): Child => {
  const c = runCli(['serve', '--port', '0', '--data', data, '--pace', '30', '--no-viewer'], { BOARDCAST_ARBITER_TOKEN: TOKEN });
  children.push(c);
  return c;
};
const cli = async (args: string[]): Promise<{ code: number | null; out: string; err: string }> => {
  const c = runCli(args, { BOARDCAST_ARBITER_TOKEN: TOKEN });
  children.push(c);
  const code = await c.exit;
  return { code, out: c.stdout(), err: c.stderr() };
};
const post = (url: string, body: unknown, token?: string): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });

/** The PGN of table 1 in round 1's PGN. */
const roundPgnOfTable1 = async (url: string): Promise<string> => {
  const all = await (await fetch(`${url}/api/rounds/1/pgn`)).text();
  const game = all.split(/\n(?=\[Event )/).find((g) => g.includes('[Round "1.1"]'));
  if (!game) throw new Error(`no table 1 in the round PGN:\n${all}`);
  return game;
};

describe('amendments on a running daemon, from the API and from boardcast amend', () => {
  it('a result set and undone: the public API and the round PGN follow, the trail names who and why, a restart shows the same', async () => {
    const data = join(root, 'data');
    const first = serve(data);
    let url = await servingUrl(first);
    const game = `${url}/api/games/r1-t1`;
    const arbiter = `${url}/api/arbiter/games/r1-t1`;
    await eventually(async () => ((await getJson<GameState>(game)).ply >= 4 ? true : undefined), 20_000, 'four plies on table 1');

    expect((await post(`${arbiter}/result`, { result: '1/2-1/2', reason: 'draw agreed', arbiter: 'IA Test' }, TOKEN)).status).toBe(200);
    expect(await getJson<GameState>(game)).toMatchObject({ result: '1/2-1/2', termination: 'arbiter decision' });
    expect(await roundPgnOfTable1(url)).toContain('[Result "1/2-1/2"]');

    expect((await fetch(`${arbiter}/amendments`)).status).toBe(401);
    const list = (await (await fetch(`${arbiter}/amendments`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as AmendmentView[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ action: 'set-result', arbiter: 'IA Test', reason: 'draw agreed', undone: false });
    const id = list[0]!.id;

    const noReason = await post(`${arbiter}/undo`, { amendment: id }, TOKEN);
    expect(noReason.status).toBe(400);
    expect((await post(`${arbiter}/undo`, { amendment: id + 100, reason: 'x' }, TOKEN)).status).toBe(409);
    expect((await post(`${arbiter}/undo`, { amendment: id, reason: 'wrong game' })).status).toBe(401);
    const undone = await post(`${arbiter}/undo`, { amendment: id, reason: 'wrong game', arbiter: 'IA Test' }, TOKEN);
    expect(undone.status).toBe(200);
    // The undo restores the game as the board made it: no arbiter's result (the demo game may have ended on the board since).
    const after = await getJson<GameState>(game);
    expect(after.termination).not.toBe('arbiter decision');
    expect(await roundPgnOfTable1(url)).toContain(`[Result "${after.result}"]`);
    expect((await post(`${arbiter}/undo`, { amendment: id, reason: 'again' }, TOKEN)).status).toBe(409);

    // The same from the command line.
    const listed = await cli(['amend', 'r1-t1', '--list', '--url', url]);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(new RegExp(`^${id} .*IA Test  set-result  "draw agreed"  \\[undone\\]$`, 'm'));
    expect(listed.out).toMatch(new RegExp(`IA Test  undo ${id}  "wrong game"$`, 'm'));
    const before = await getJson<GameState>(game);
    const swapped = await cli(['amend', 'r1-t1', 'swap-colours', '--reason', 'colours entered wrong', '--arbiter', 'IA Cli', '--url', url]);
    expect(swapped.code).toBe(0);
    expect(swapped.out).toContain('r1-t1 amended (swap-colours)');
    expect(await getJson<GameState>(game)).toMatchObject({ white: { name: before.black.name }, black: { name: before.white.name } });
    expect(await roundPgnOfTable1(url)).toContain(`[White "${before.black.name}"]`);
    const noWhy = await cli(['amend', 'r1-t1', 'swap-colours', '--url', url]);
    expect(noWhy.code).toBe(1);
    expect(noWhy.err).toContain('reason');
    expect((await cli(['amend', 'r1-t1', 'frobnicate', '--url', url])).code).toBe(2);
    expect((await cli(['amend', 'r1-t1', 'clock', '--white', 'soon', '--reason', 'x', '--url', url])).code).toBe(2);

    first.proc.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    const second = serve(data);
    url = await servingUrl(second);
    const rebuilt = await getJson<GameState>(`${url}/api/games/r1-t1`);
    expect(rebuilt.termination).not.toBe('arbiter decision');
    expect(rebuilt).toMatchObject({ white: { name: before.black.name }, black: { name: before.white.name } });
    second.proc.kill('SIGTERM');
    expect(await second.exit).toBe(0);
  }, 120_000);
});
