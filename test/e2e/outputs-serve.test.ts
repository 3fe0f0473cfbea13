import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePgn, type Game, type PgnNodeData } from 'chessops/pgn';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { portFree } from '../../daemon/app/port-check.ts';
import type { GameState, GameSummary } from '../../protocols/feed/model.ts';
import { eventually, getJson, runCli, servingUrl, stopChildren, type Child } from '../runtime/daemon-child.ts';

/**
 * Issue 10, "Must show": `boardcast serve` with its outputs on (config `outputs`), read the way
 * their consumers read them:
 * - a websocket client making exactly the calls of lichess's DGT page (lila ui/dgt/src/play.ts:
 *   `{"id":1,"call":"eboards"}`, the `subscribe` with id 2 / subscription 1, a `setup` call) on the
 *   LiveChess API port (1982, LiveChess's own, when it is free on this machine);
 * - a local server implementing lichess's push endpoint (`POST /api/broadcast/round/{id}/push`,
 *   bearer token, PGN body, `{"games":[…]}` answer) that answers one round 429 with Retry-After
 *   once and another round 401;
 * - the round PGN, the LCC JSON (read by lichess's DgtJson rules) and /api.
 * Three emulated tables replay three games to their results; every output must then carry
 * the same games as the round PGN.
 */

const root = mkdtempSync(join(tmpdir(), 'boardcast-outputs-e2e-'));
const children: Child[] = [];
let platform: Server | undefined;
afterAll(async () => {
  await stopChildren(children);
  await new Promise<void>((resolve) => (platform ? platform.close(() => resolve()) : resolve()));
  rmSync(root, { recursive: true, force: true });
});

// Round 1 at tables 1-3 (30 plies each, so the DGT page is subscribed long before they end), then
// short games (round 2) so the boards keep playing afterwards.
const GAMES = [
  [
    'Lenart, Ana',
    'Petrović, Marko',
    '1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be3 e5 7. Nb3 Be6 8. f3 Be7 9. Qd2 O-O 10. O-O-O Nbd7 11. g4 b5 12. g5 b4 13. Ne2 Ne8 14. f4 a5 15. f5 a4 1-0',
    '1-0',
  ],
  [
    'Kováč, Ján',
    'Horvat, Luka',
    '1. d4 Nf6 2. c4 e6 3. Nc3 Bb4 4. e3 O-O 5. Bd3 d5 6. Nf3 c5 7. O-O dxc4 8. Bxc4 Nbd7 9. Qe2 b6 10. Rd1 cxd4 11. exd4 Bb7 12. d5 Bxc3 13. dxe6 fxe6 14. bxc3 Qc7 15. Bxe6+ Kh8 0-1',
    '0-1',
  ],
  [
    'Novak, Eva',
    'Jovanović, Nina',
    '1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 11. Nbd2 Bb7 12. Bc2 Re8 13. Nf1 Bf8 14. Ng3 g6 15. a4 c5 1/2-1/2',
    '1/2-1/2',
  ],
  ['Petrović, Marko', 'Lenart, Ana', '1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0', '1-0'],
  ['Horvat, Luka', 'Kováč, Ján', '1. f3 e5 2. g4 Qh4# 0-1', '0-1'],
  ['Jovanović, Nina', 'Novak, Eva', '1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 1/2-1/2', '1/2-1/2'],
];
const pgnFile = GAMES.map(([w, b, moves, result], i) => `[Event "Outputs Open"]\n[Round "${i < 3 ? 1 : 2}"]\n[White "${w}"]\n[Black "${b}"]\n[Result "${result}"]\n\n${moves}\n`).join('\n');

interface PushRequest {
  roundId: string;
  auth: string | undefined;
  body: string;
  at: number;
  status: number;
}

/** lichess's push endpoint as its API reference describes it; round NoAuth99 refuses the token. */
async function lichessStandIn(): Promise<{ base: string; requests: PushRequest[] }> {
  const requests: PushRequest[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const m = /^\/api\/broadcast\/round\/([A-Za-z0-9]{8})\/push$/.exec(req.url ?? '');
      const roundId = m?.[1] ?? '';
      const answer = (status: number, json: unknown, headers: Record<string, string> = {}) => {
        requests.push({ roundId, auth: req.headers.authorization, body, at: Date.now(), status });
        res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(json));
      };
      if (req.method !== 'POST' || !m) return answer(404, { error: 'Not found' });
      if (req.headers.authorization !== 'Bearer lip_e2e_token' || roundId === 'NoAuth99') return answer(401, { error: 'No such token' });
      if (!requests.some((r) => r.roundId === roundId)) return answer(429, { error: 'Too many requests. Try again later.' }, { 'Retry-After': '1' });
      const games = parsePgn(body).map((g) => ({ tags: Object.fromEntries(g.headers), moves: [...g.moves.mainline()].length }));
      answer(200, { games });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  platform = server;
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

interface FeedParam {
  serialnr: string;
  board: string;
  san: string[];
  clock: { white: number; black: number; run: boolean | null; time: number } | null;
}

/** What lichess's DGT page does on the LiveChess socket, for board `pick` of the eboards list. */
async function dgtPage(url: string, pick: number): Promise<{ serialnr: string; feeds: FeedParam[]; close(): void }> {
  const ws = new WebSocket(url);
  const feeds: FeedParam[] = [];
  let serialnr = '';
  const subscribed = new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const message = JSON.parse((data as Buffer).toString('utf8')) as { response: string; id: number; param: unknown };
      if (message.response === 'call' && message.id === 1) {
        const boards = message.param as { serialnr: string; state: string }[];
        serialnr = boards[pick]!.serialnr;
        ws.send(JSON.stringify({ id: 2, call: 'subscribe', param: { feed: 'eboardevent', id: 1, param: { serialnr } } }));
      } else if (message.response === 'call' && message.id === 2) {
        // A lichess game at its start: the page sends the position the board's game starts from.
        ws.send(JSON.stringify({ id: 3, call: 'call', param: { id: 1, method: 'setup', param: { fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' } } }));
      } else if (message.response === 'call' && message.id === 3) {
        resolve();
      } else if (message.response === 'feed') {
        feeds.push(message.param as FeedParam);
      } else if (message.response === 'error') {
        reject(new Error(JSON.stringify(message)));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send('{"id":1,"call":"eboards"}');
  await subscribed;
  return { serialnr, feeds, close: () => ws.close() };
}

const sans = (g: Game<PgnNodeData>): string[] => [...g.moves.mainline()].map((n) => n.san);

/** A game file read the way lichess's relay reads one (DgtJson.parseMove: SAN, then clock digits). */
const lccSans = (moves: string[]): string[] => moves.map((m) => m.split(' ')[0]!);

describe('boardcast serve with its outputs on', () => {
  it("carries the round PGN's games on the LiveChess API, the lichess push, LCC JSON and /api", async () => {
    const push = await lichessStandIn();
    const games = join(root, 'games.pgn');
    writeFileSync(games, pgnFile);
    const config = join(root, 'hall.json');
    writeFileSync(
      config,
      JSON.stringify({
        event: { name: 'Outputs Open', site: 'Ljubljana SLO' },
        rounds: { count: 2 },
        timeControl: '90+30',
        dataDir: join(root, 'data'),
        emulate: { count: 3, games, seed: 3 },
        outputs: {
          lichessPush: {
            rounds: [
              { round: 1, roundId: 'aBcD1234' },
              { round: 1, roundId: 'NoAuth99' },
            ],
            baseUrl: push.base,
          },
        },
      }),
    );
    // LiveChess's own port when this machine has it free (the DGT page's default URL), else any.
    const liveChessPort = (await portFree(1982, '127.0.0.1')).ok ? 1982 : 0;
    const child = runCli(['serve', '--config', config, '--port', '0', '--pace', '40', '--no-viewer', '--livechess-port', String(liveChessPort)], { BOARDCAST_LICHESS_TOKEN: 'lip_e2e_token' });
    children.push(child);
    const url = await servingUrl(child);
    type Health = {
      outputs: {
        liveChessApi: { url: string } | null;
        lichessPush: { roundId: string; state: string; lastPushAt: number | null; lastError: { status: number | null } | null; nextRetryAt: number | null; pushes: number }[];
      };
    };
    const health0 = await getJson<Health>(`${url}/health`);
    const apiUrl = health0.outputs.liveChessApi!.url;
    if (liveChessPort === 1982) expect(apiUrl).toBe('ws://127.0.0.1:1982/api/v1.0');
    const wsUrl = liveChessPort === 1982 ? 'ws://localhost:1982/api/v1.0' : apiUrl;

    // The DGT page once per board, while the games are played.
    const boards = await eventually(
      async () => {
        const list = await new Promise<{ serialnr: string }[]>((resolve, reject) => {
          const ws = new WebSocket(wsUrl);
          ws.once('error', reject);
          ws.once('open', () => ws.send('{"id":1,"call":"eboards"}'));
          ws.once('message', (d) => {
            ws.close();
            resolve((JSON.parse((d as Buffer).toString('utf8')) as { param: { serialnr: string }[] }).param);
          });
        });
        return list.length === 3 ? list : undefined;
      },
      20_000,
      'three boards on the LiveChess API',
    );
    // The same list over plain HTTP, as an organiser checks LiveChess before opening the page.
    const rest = await getJson<{ serialnr: string }[]>(apiUrl.replace(/^ws:/, 'http:') + '/eboards');
    expect(rest.map((b) => b.serialnr)).toEqual(boards.map((b) => b.serialnr));
    const pages = await Promise.all(boards.map((_, i) => dgtPage(wsUrl, i)));

    // Round 1 is played to its results.
    const round1 = await eventually(
      async () => {
        const g = await getJson<GameSummary[]>(`${url}/api/rounds/1/games`);
        return g.length === 3 && g.every((x) => x.status === 'finished') ? g : undefined;
      },
      90_000,
      'round 1 finished at all three tables',
    );
    const roundPgn = await (await fetch(`${url}/relay/round-1.pgn`)).text();
    const reference = parsePgn(roundPgn);
    expect(reference.map((g) => g.headers.get('Result'))).toEqual(['1-0', '0-1', '1/2-1/2']);
    expect(reference.map(sans)).toEqual(parsePgn(pgnFile).slice(0, 3).map(sans));

    // /api: the same moves and results; finished clocks stopped.
    for (const [i, s] of round1.entries()) {
      const g = await getJson<GameState>(`${url}/api/games/${s.id}`);
      expect(g.moves.map((m) => m.san)).toEqual(sans(reference[i]!));
      expect(g.result).toBe(reference[i]!.headers.get('Result'));
      if (g.clock) expect(g.clock.running).toBeNull();
    }

    // LCC JSON, read by lichess's DgtJson rules: game-M.json is board M.
    const index = await getJson<{ pairings: { white: { lname: string | null } | null; result: string | null }[] }>(`${url}/lcc/round-1/index.json`);
    expect(index.pairings.map((p) => p.result)).toEqual(['1-0', '0-1', '1/2-1/2']);
    for (const [i, s] of round1.entries()) {
      expect(s.table).toBe(i + 1);
      const lcc = await getJson<{ moves: string[]; result: string | null; clock: unknown }>(`${url}/lcc/round-1/game-${s.table}.json`);
      expect(lccSans(lcc.moves)).toEqual(sans(reference[i]!));
      expect(lcc.result).toBe({ '1-0': 'WHITEWIN', '0-1': 'BLACKWIN', '1/2-1/2': 'DRAW' }[reference[i]!.headers.get('Result')!]);
      expect(lcc.clock).toBeNull();
      expect(index.pairings[i]!.white!.lname).toBe(reference[i]!.headers.get('White')!.split(',')[0]);
    }

    // The push: the last accepted body is the round PGN itself, after one 429 waited out.
    const accepted = await eventually(
      async () => {
        const last = push.requests.filter((r) => r.roundId === 'aBcD1234' && r.status === 200).at(-1);
        return last && last.body === roundPgn ? last : undefined;
      },
      20_000,
      'the finished round pushed',
    );
    expect(accepted.auth).toBe('Bearer lip_e2e_token');
    const toGood = push.requests.filter((r) => r.roundId === 'aBcD1234');
    expect(toGood[0]!.status).toBe(429);
    // Retry-After: 1 was honoured: nothing was sent to the round for a second after the 429.
    expect(toGood[1]!.at - toGood[0]!.at).toBeGreaterThanOrEqual(990);
    expect(parsePgn(accepted.body).map(sans)).toEqual(reference.map(sans));
    // The refused token was sent once for its round, however many changes came after it.
    expect(push.requests.filter((r) => r.roundId === 'NoAuth99')).toHaveLength(1);
    const refusals = (child.stdout() + child.stderr()).split('\n').filter((l) => l.includes('the push token was refused'));
    expect(refusals, child.stdout() + child.stderr()).toHaveLength(1);

    const health = await getJson<Health>(`${url}/health`);
    const byId = new Map(health.outputs.lichessPush.map((p) => [p.roundId, p]));
    expect(byId.get('aBcD1234')).toMatchObject({ state: 'ok', lastError: { status: 429 } });
    expect(byId.get('aBcD1234')!.lastPushAt).not.toBeNull();
    expect(byId.get('NoAuth99')).toMatchObject({ state: 'unauthorized', lastError: { status: 401 }, pushes: 0, lastPushAt: null });
    expect(byId.get('NoAuth99')!.nextRetryAt).toBeGreaterThan(Date.now() + 25 * 60_000);

    // The LiveChess API: each board's page saw its round-1 game move by move, ending as the
    // round PGN has it, with the clock stopped once the result stood.
    for (const page of pages) {
      const table = boards.findIndex((b) => b.serialnr === page.serialnr) + 1;
      const want = sans(reference[table - 1]!);
      const full = page.feeds.filter((f) => f.san.join(' ') === want.join(' '));
      expect(full.length, `board ${page.serialnr} (table ${table}) fed ${JSON.stringify(page.feeds.map((f) => f.san.length))}`).toBeGreaterThan(0);
      expect(full.some((f) => f.clock === null || f.clock.run === null)).toBe(true);
      // Until then every message extended the list: no move was ever taken back or reordered.
      const upTo = page.feeds.indexOf(full[0]!);
      for (const f of page.feeds.slice(0, upTo)) expect(want.slice(0, f.san.length)).toEqual(f.san);
      page.close();
    }

    child.proc.kill('SIGTERM');
    expect(await child.exit).toBe(0);
    // Stopped with the daemon: the LiveChess port is free again.
    if (liveChessPort === 1982) expect((await portFree(1982, '127.0.0.1')).ok).toBe(true);
  });
});
