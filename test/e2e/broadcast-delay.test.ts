import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GameChange, GameState, MoveRecord } from '../../protocols/feed/model.ts';
import { runCli, servingUrl, type Child } from '../runtime/daemon-child.ts';
import { TestClient } from '../server/ws-client.ts';

// `boardcast serve --delay S` on the emulated hall: the public API, the round PGN, the LCC JSON
// and the public websocket feed show every move no earlier than S seconds after it was made, and
// no later than that plus the time a timer and a poll take; the arbiter's token reads it live.
const TOKEN = 'delay-e2e-secret';
const DELAY_S = 5;
/** What a timer on a loaded two-core machine and one HTTP round trip may add to the delay. */
const SLACK_MS = 3000;
const root = mkdtempSync(join(tmpdir(), 'boardcast-delay-'));
const children: Child[] = [];
afterAll(() => {
  for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

const fetchGame = async (url: string, token?: string): Promise<GameState> => {
  const res = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(res.status).toBe(200);
  return (await res.json()) as GameState;
};

describe('the broadcast delay on a running daemon', () => {
  it('every public output lags the live game by the delay, never less and not much more; the arbiter is live', async () => {
    const child = runCli(['serve', '--port', '0', '--data', join(root, 'data'), '--pace', '20', '--delay', String(DELAY_S), '--no-viewer'], { BOARDCAST_ARBITER_TOKEN: TOKEN });
    children.push(child);
    const url = await servingUrl(child);
    const feed = await TestClient.open(url.replace('http', 'ws') + '/ws');
    feed.send({ v: 1, type: 'subscribe', scope: { kind: 'game', gameId: 'r1-t1' } });
    const seenOnFeed: { move: MoveRecord; receivedAt: number }[] = [];
    feed.ws.on('message', () => {
      const last = feed.messages.at(-1);
      if (last?.type !== 'delta') return;
      const change = (last as { change: GameChange }).change;
      if (change.kind === 'move') seenOnFeed.push({ move: change.move, receivedAt: Date.now() });
    });

    let lagSeen = false;
    let publicMoves = 0;
    const until = Date.now() + 40_000;
    while (Date.now() < until && (publicMoves < 6 || !lagSeen)) {
      const asked = Date.now();
      const [live, pub] = await Promise.all([fetchGame(`${url}/api/games/r1-t1`, TOKEN), fetchGame(`${url}/api/games/r1-t1`)]);
      const answered = Date.now();
      // Never earlier: each move shown publicly was made at least the delay before the answer.
      for (const m of pub.moves) expect(m.at + DELAY_S * 1000, `ply ${m.ply} shown early`).toBeLessThanOrEqual(answered);
      // Not much later: every live move made the delay (and the slack) before the question is shown.
      const due = live.moves.filter((m) => m.at + DELAY_S * 1000 + SLACK_MS <= asked).length;
      expect(pub.moves.length, `public at ply ${pub.moves.length}, ${due} moves due`).toBeGreaterThanOrEqual(due);
      // The public record is the live one, behind it.
      expect(pub.moves.map((m) => m.san)).toEqual(live.moves.slice(0, pub.moves.length).map((m) => m.san));
      expect(pub.incidents).toEqual([]);
      if (live.moves.length > pub.moves.length) lagSeen = true;
      publicMoves = pub.moves.length;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(lagSeen, 'the arbiter saw moves the public did not yet').toBe(true);
    expect(publicMoves).toBeGreaterThanOrEqual(6);

    // The round PGN and the LCC game file are the delayed view too.
    const asked = Date.now();
    const [live, pgn, lcc] = await Promise.all([
      fetchGame(`${url}/api/games/r1-t1`, TOKEN),
      fetch(`${url}/relay/round-1.pgn`).then((r) => r.text()),
      fetch(`${url}/lcc/round-1/game-1.json`).then((r) => r.json() as Promise<{ moves: string[] }>),
    ]);
    const answered = Date.now();
    const dueBy = (t: number): number => live.moves.filter((m) => m.at + DELAY_S * 1000 <= t).length;
    const firstGame = pgn.split('\n\n[Event')[0]!;
    const pgnPlies = (firstGame.replace(/\{[^}]*\}/g, '').match(/\b(?:[KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](?:=[QRBN])?|O-O(?:-O)?)[+#]?/g) ?? []).length;
    expect(pgnPlies).toBeGreaterThanOrEqual(dueBy(asked - SLACK_MS));
    expect(pgnPlies).toBeLessThanOrEqual(dueBy(answered));
    expect(lcc.moves.length).toBeGreaterThanOrEqual(dueBy(asked - SLACK_MS));
    expect(lcc.moves.length).toBeLessThanOrEqual(dueBy(answered));

    // The public feed: each move arrived no earlier than the delay after it was made.
    expect(seenOnFeed.length, JSON.stringify(feed.messages.slice(-4)).slice(0, 1500)).toBeGreaterThanOrEqual(4);
    for (const { move, receivedAt } of seenOnFeed) expect(move.at + DELAY_S * 1000, `ply ${move.ply} on the feed early`).toBeLessThanOrEqual(receivedAt);
    await feed.close();
    child.proc.kill('SIGTERM');
    expect(await child.exit).toBe(0);
  }, 90_000);
});
