import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../daemon/server/server.ts';
import type { RequestProblem } from '../../daemon/server/error-handler.ts';
import { Hall } from './hall.ts';

const TOKEN = 'errors-test-token';
let hall: Hall;
let server: RunningServer;
const problems: RequestProblem[] = [];

beforeAll(async () => {
  hall = new Hall({ tables: 1 });
  hall.connectAll();
  server = await startServer({
    source: hall.source,
    arbiterToken: TOKEN,
    viewer: true,
    onRequestError: (p) => problems.push(p),
    arbiter: () => ({ ok: false, error: { status: 409, code: 'not-reached', message: 'the handler is not reached by these requests' } }),
  });
});
afterAll(async () => {
  await server?.close();
});

describe('requests the server cannot take', () => {
  it('a malformed %-escape anywhere gets a JSON 400, one reported line, and nothing on stderr', async () => {
    const stderr = vi.spyOn(process.stderr, 'write');
    const consoleError = vi.spyOn(console, 'error');
    try {
      for (const path of ['/api/games/%ZZ', '/api/games/%ZZ/pgn', '/game/%ZZ', '/lcc/round-1/game-%ZZ.json', '/arbiter/%ZZ']) {
        problems.length = 0;
        const res = await fetch(`${server.url}${path}`);
        expect(res.status, path).toBe(400);
        expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
        const body = (await res.json()) as { error: { status: number; code: string; message: string } };
        expect(body.error).toEqual({ status: 400, code: 'bad-path', message: 'the address holds a malformed %-escape' });
        expect(JSON.stringify(body)).not.toMatch(/node_modules|\/work\/|at /);
        expect(problems, path).toHaveLength(1);
      }
      expect(stderr).not.toHaveBeenCalled();
      expect(consoleError).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
      consoleError.mockRestore();
    }
  });

  it('a body over the limit gets 413, a body that is not JSON 400, both as JSON', async () => {
    const post = (body: string) => fetch(`${server.url}/api/arbiter/games/r1-t1/result`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body });
    const big = await post(JSON.stringify({ result: '1-0', reason: 'x'.repeat(100_000) }));
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe('too-large');
    const notJson = await post('{"result": ');
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { code: string } }).error.code).toBe('bad-json');
  });

  it('a number no game can have is refused before it is stored', async () => {
    const res = await fetch(`${server.url}/api/arbiter/games/r1-t1/reinstate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: '{"ply":1e308}',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('ply must be a whole number of plies from 0 to 10000');
  });
});
