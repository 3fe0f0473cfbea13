import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePgn } from 'chessops/pgn';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { GameState } from '../../protocols/feed/model.ts';
import { eventually, getJson, runCli, servingUrl, stopChildren, type Child } from '../runtime/daemon-child.ts';

/**
 * Issue 10, "Must show": the delayed outputs lag by the configured delay and no more. `boardcast
 * serve --delay 4` with the LiveChess API and the lichess push on: the board's feed on the
 * LiveChess socket and every pushed round PGN hold only moves made at least the delay before they
 * went out, and every move due by then (give or take a timer's slack); the arbiter's API is live.
 */
const DELAY_S = 4;
const SLACK_MS = 3000;
const TOKEN = 'delay-outputs-secret';
const root = mkdtempSync(join(tmpdir(), 'boardcast-outputs-delay-'));
const children: Child[] = [];
let platform: Server | undefined;
afterAll(async () => {
  await stopChildren(children);
  await new Promise<void>((resolve) => (platform ? platform.close(() => resolve()) : resolve()));
  rmSync(root, { recursive: true, force: true });
});

const GAME = '1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be3 e5 7. Nb3 Be6 8. f3 Be7 9. Qd2 O-O 10. O-O-O Nbd7 11. g4 b5 12. g5 b4 1-0';

interface Push {
  at: number;
  plies: number;
}

describe('the broadcast delay on the platform outputs', () => {
  it('the LiveChess API and the lichess push show each move the delay after it was made, not earlier and not much later', async () => {
    const pushes: Push[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        const game = parsePgn(body)[0];
        pushes.push({ at: Date.now(), plies: game ? [...game.moves.mainline()].length : 0 });
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ games: [] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    platform = server;
    const games = join(root, 'games.pgn');
    writeFileSync(games, `[Event "Delay Open"]\n[Round "1"]\n[White "Lenart, Ana"]\n[Black "Petrović, Marko"]\n[Result "1-0"]\n\n${GAME}\n`);
    const config = join(root, 'hall.json');
    writeFileSync(
      config,
      JSON.stringify({
        event: { name: 'Delay Open' },
        rounds: { count: 1 },
        timeControl: '90+30',
        dataDir: join(root, 'data'),
        emulate: { count: 1, games, seed: 5 },
        outputs: { lichessPush: { rounds: [{ round: 1, roundId: 'dElAy123' }], baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } },
      }),
    );
    const child = runCli(['serve', '--config', config, '--port', '0', '--pace', '20', '--no-viewer', '--livechess-port', '0', '--delay', String(DELAY_S)], {
      BOARDCAST_LICHESS_TOKEN: 'lip_delay',
      BOARDCAST_ARBITER_TOKEN: TOKEN,
    });
    children.push(child);
    const url = await servingUrl(child);
    const apiUrl = (await getJson<{ outputs: { liveChessApi: { url: string } } }>(`${url}/health`)).outputs.liveChessApi.url;

    // The DGT page's calls on the LiveChess socket, each feed message stamped when it arrived.
    const feeds: { at: number; plies: number }[] = [];
    const ws = new WebSocket(apiUrl);
    ws.on('message', (data) => {
      const m = JSON.parse((data as Buffer).toString('utf8')) as { response: string; id?: number; param: unknown };
      if (m.response === 'call' && m.id === 1) {
        const serialnr = (m.param as { serialnr: string }[])[0]!.serialnr;
        ws.send(JSON.stringify({ id: 2, call: 'subscribe', param: { feed: 'eboardevent', id: 1, param: { serialnr } } }));
      } else if (m.response === 'feed') feeds.push({ at: Date.now(), plies: (m.param as { san: string[] }).san.length });
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    await eventually(
      async () => {
        ws.send('{"id":1,"call":"eboards"}');
        await new Promise((r) => setTimeout(r, 200));
        return feeds.length > 0 ? true : undefined;
      },
      20_000,
      'the board fed on the LiveChess API',
    );

    const live = async (): Promise<GameState> => {
      const res = await fetch(`${url}/api/games/r1-t1`, { headers: { authorization: `Bearer ${TOKEN}` } });
      return (await res.json()) as GameState;
    };
    // Played to its result, and the result shown publicly once the delay has passed.
    const final = await eventually(async () => ((await live()).result === '1-0' ? live() : undefined), 90_000, 'the game played to its result');
    await eventually(async () => (feeds.at(-1)?.plies === final.moves.length && pushes.at(-1)?.plies === final.moves.length ? true : undefined), 20_000, 'the whole game out on both outputs');

    const dueBy = (t: number): number => final.moves.filter((m) => m.at + DELAY_S * 1000 <= t).length;
    // Never earlier: what went out at t holds no move made less than the delay before t.
    for (const f of feeds) expect(f.plies, `LiveChess feed at ${f.at}`).toBeLessThanOrEqual(dueBy(f.at));
    for (const p of pushes) expect(p.plies, `push at ${p.at}`).toBeLessThanOrEqual(dueBy(p.at));
    // Not much later: each move went out within the delay and the slack of being made.
    for (const m of final.moves) {
      const onFeed = feeds.find((f) => f.plies >= m.ply);
      expect(onFeed!.at - m.at, `ply ${m.ply} on the LiveChess feed`).toBeLessThanOrEqual(DELAY_S * 1000 + SLACK_MS);
      expect(onFeed!.at - m.at).toBeGreaterThanOrEqual(DELAY_S * 1000);
    }
    // The push is debounced (a second) and sends the round as it stands: the last moves made
    // went out within the delay, the debounce and the slack.
    const lastMove = final.moves.at(-1)!;
    const lastPush = pushes.find((p) => p.plies === final.moves.length)!;
    expect(lastPush.at - lastMove.at).toBeGreaterThanOrEqual(DELAY_S * 1000);
    expect(lastPush.at - lastMove.at).toBeLessThanOrEqual(DELAY_S * 1000 + 1000 + SLACK_MS);
    ws.close();
    child.proc.kill('SIGTERM');
    expect(await child.exit).toBe(0);
  }, 150_000);
});
