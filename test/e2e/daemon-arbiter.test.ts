import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GameState } from '../../protocols/feed/model.ts';
import type { Timeline } from '../../protocols/feed/timeline.ts';
import { openStore } from '../../daemon/store/store.ts';
import { eventually, getJson, runCli, servingUrl, type Child } from '../runtime/daemon-child.ts';

const TOKEN = 'arbiter-e2e-secret';
const root = mkdtempSync(join(tmpdir(), 'boardcast-arbiter-'));
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

const post = (url: string, body: unknown, token?: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('arbiter actions on a running daemon', () => {
  it('a result needs the token, finishes the game, is stored once and survives SIGKILL + restart unchanged', async () => {
    const data = join(root, 'data');
    const first = serve(data);
    let url = await servingUrl(first);
    const game = `${url}/api/games/r1-t1`;
    await eventually(async () => ((await getJson<GameState>(game)).ply >= 4 ? true : undefined), 20_000, 'four plies on table 1');

    const resultUrl = `${url}/api/arbiter/games/r1-t1/result`;
    const anonymous = await post(resultUrl, { result: '0-1' });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect((await post(resultUrl, { result: '0-1' }, 'not-the-token')).status).toBe(401);
    expect((await getJson<GameState>(game)).status).not.toBe('finished');

    const badResult = await post(resultUrl, { result: '1-1' }, TOKEN);
    expect(badResult.status).toBe(400);
    expect(((await badResult.json()) as { error: { message: string } }).error.message).toContain('result must be one of');
    expect((await post(resultUrl, '{not json', TOKEN)).status).toBe(400);
    expect((await post(`${url}/api/arbiter/games/r1-t1/reinstate`, { ply: -1 }, TOKEN)).status).toBe(400);
    expect((await post(`${url}/api/arbiter/games/r1-t1/position`, { fen: 'nonsense' }, TOKEN)).status).toBe(400);
    expect((await post(`${url}/api/arbiter/games/r9-t99/result`, { result: '0-1' }, TOKEN)).status).toBe(404);
    // Moves that do not fit the game are refused before anything is recorded, saying which.
    const refused = await post(`${url}/api/arbiter/games/r1-t1/moves`, { fromPly: 0, sans: ['e5'] }, TOKEN);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe('e5 is not a legal move at ply 1');
    expect((await post(`${url}/api/arbiter/games/r1-t1/moves`, { fromPly: 0, sans: [] }, TOKEN)).status).toBe(400);
    // The record follows the board: there is no break to accept, and a ply that is no break is refused.
    const nothing = await post(`${url}/api/arbiter/games/r1-t1/accept-board`, {}, TOKEN);
    expect(nothing.status).toBe(409);
    expect(((await nothing.json()) as { error: { code: string } }).error.code).toBe('nothing-to-accept');
    expect((await post(`${url}/api/arbiter/games/r1-t1/accept-board`, { ply: 1 }, TOKEN)).status).toBe(409);
    expect((await post(`${url}/api/arbiter/games/r1-t1/accept-board`, {})).status).toBe(401);

    const applied = await post(resultUrl, { result: '0-1', reason: 'White resigned', arbiter: 'IA Test' }, TOKEN);
    expect(applied.status).toBe(200);
    const answered = (await applied.json()) as GameState;
    expect(answered.status).toBe('finished');
    expect(answered.result).toBe('0-1');

    const live = await getJson<GameState>(game);
    expect(live.status).toBe('finished');
    expect(live.result).toBe('0-1');
    expect(await (await fetch(`${game}/pgn`)).text()).toMatch(/\[Result "0-1"\]/);
    // The board plays on past the decision (its field changes are stored: the arbiter's timeline
    // shows them after the decision); the finished game takes no more moves.
    await eventually(
      async () => {
        const res = await fetch(`${url}/api/arbiter/games/r1-t1/timeline`, { headers: { authorization: `Bearer ${TOKEN}` } });
        const t = (await res.json()) as Timeline;
        const decision = t.steps.findIndex((s) => s.kind === 'arbiter');
        const fieldsAfter = t.steps.slice(decision + 1).filter((s) => s.event?.type === 'field').length;
        return decision >= 0 && fieldsAfter >= 4 ? true : undefined;
      },
      20_000,
      'the board to move on after the result',
    );
    const moves = (await getJson<GameState>(game)).moves.map((m) => m.uci);
    expect(moves).toEqual(live.moves.map((m) => m.uci));

    first.proc.kill('SIGKILL');
    await first.exit;

    const second = serve(data);
    url = await servingUrl(second);
    const rebuilt = await getJson<GameState>(`${url}/api/games/r1-t1`);
    expect(rebuilt.status).toBe('finished');
    expect(rebuilt.result).toBe('0-1');
    expect(rebuilt.moves.map((m) => m.uci)).toEqual(moves);
    expect(await (await fetch(`${url}/api/games/r1-t1/pgn`)).text()).toMatch(/\[Result "0-1"\]/);
    second.proc.kill('SIGTERM');
    expect(await second.exit).toBe(0);

    const store = openStore(join(data, 'boardcast.sqlite'));
    if (!store.ok) throw new Error(store.error.message);
    const rows = store.value.amendments();
    store.value.close();
    // Recorded once, replayed (not re-recorded) at the restart.
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ arbiter: 'IA Test', action: 'set-result', reason: 'White resigned' });
    expect(rows[0]!.detail).toMatchObject({ gameId: 'r1-t1', table: 1, command: { type: 'set-result', result: '0-1' } });
  }, 90_000);
});
