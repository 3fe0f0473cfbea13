import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sharedDataPresent } from '../shared-data.ts';
import { startDaemon, type RunningDaemon } from '../../daemon/app/daemon.ts';
import { rebuildHall } from '../../daemon/runtime/store-replay.ts';
import { SHARED_GAMES_DIR } from '../../daemon/runtime/demo-games.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { parseConfig } from '../../daemon/tournament/config.ts';
import type { GameState, GameSummary } from '../../protocols/feed/model.ts';
import { eventually, getJson } from './daemon-child.ts';

// Table 1 of a one-table hall plays the file's first game, then its second: Tata Steel 2022 round 1,
// Esipenko-Carlsen, agreed drawn after 21 moves (no mate on the board), then Caruana-Rapport.
const TATA = join(SHARED_GAMES_DIR, 'tatamast22.pgn');
const shared = sharedDataPresent(TATA, 'demo hall test');

const root = mkdtempSync(join(tmpdir(), 'boardcast-demo-hall-'));
let daemon: RunningDaemon | null = null;
afterAll(async () => {
  await daemon?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!shared)('demo hall replaying real games', () => {
  it('shows the real players and ends an agreed draw with its PGN result via the result pieces, then plays on', async () => {
    const cfg = parseConfig(
      {
        event: { name: 'demo hall test', site: 'localhost' },
        rounds: { count: 1 },
        timeControl: '90+30',
        rules: { edition: '2018', category: 'standard' },
        httpPort: 0,
        dataDir: join(root, 'data'),
        emulate: { count: 1, games: TATA, seed: 1, noise: 'clean', serialBase: 20001 },
      },
      null,
      root,
    );
    if (!cfg.ok) throw new Error(cfg.error.messages.join('\n'));
    const started = await startDaemon({ config: cfg.value, log: createLogger({ write: () => {} }), port: 0, host: '127.0.0.1', pace: 100, viewer: false });
    if (!started.ok) throw new Error(started.error);
    daemon = started.value;
    const url = daemon.url;

    const [g] = await eventually(
      async () => {
        const games = await getJson<GameSummary[]>(`${url}/api/rounds/1/games`);
        return games.length === 1 ? games : undefined;
      },
      20_000,
      'the game of round 1',
    );
    expect(g!.white).toEqual({ name: 'Esipenko, Andrey', title: 'GM', rating: 2714, federation: null, fideId: 24175439 });
    expect(g!.black).toEqual({ name: 'Carlsen, Magnus', title: 'GM', rating: 2865, federation: null, fideId: 1503014 });

    const done = await eventually(
      async () => {
        const s = await getJson<GameState>(`${url}/api/games/${g!.id}`);
        return s.status === 'finished' ? s : undefined;
      },
      30_000,
      'the game to finish',
    );
    expect(done.ply).toBe(42);
    expect(done.result).toBe('1/2-1/2');
    expect(done.termination).toBe('result set on the board');

    const pgn = await (await fetch(`${url}/api/games/${g!.id}/pgn`)).text();
    expect(pgn).toContain('[White "Esipenko, Andrey"]');
    expect(pgn).toContain('[BlackElo "2865"]');
    expect(pgn).toContain('[Result "1/2-1/2"]');

    // The table sets up and plays its next game (the next round), with its players.
    const next = await eventually(
      async () => {
        const games = await getJson<GameSummary[]>(`${url}/api/rounds/2/games`);
        return games.length === 1 && games[0]!.ply >= 2 ? games[0] : undefined;
      },
      30_000,
      'the next game to start',
    );
    expect(next!.white.name).toBe('Caruana, Fabiano');

    // What `boardcast export` rebuilds from the store alone carries the same players.
    const rebuilt = rebuildHall(daemon.store, cfg.value);
    const exported = rebuilt.pgn(g!.id)!;
    expect(exported).toContain('[White "Esipenko, Andrey"]');
    expect(exported).toContain('[BlackFideId "1503014"]');
    expect(exported).toContain('[Result "1/2-1/2"]');

    // A restart puts the finished game back from its snapshot (its table moved on) and replays
    // only the game on the table; the verification that follows replays everything and agrees.
    const before = await getJson<GameState>(`${url}/api/games/${g!.id}`);
    await daemon.stop();
    const again = await startDaemon({ config: cfg.value, log: createLogger({ write: () => {} }), port: 0, host: '127.0.0.1', pace: 100, viewer: false });
    if (!again.ok) throw new Error(again.error);
    daemon = again.value;
    expect(daemon.rebuilt.restoredGames).toBe(1);
    expect(await getJson<GameState>(`${daemon.url}/api/games/${g!.id}`)).toEqual(before);
    type Verification = { state: string; games: number; differences: unknown[] };
    const verified = await eventually(
      async () => {
        const v = (await getJson<{ store: { verification: Verification } }>(`${daemon!.url}/health`)).store.verification;
        return v.state === 'running' ? undefined : v;
      },
      30_000,
      'the verification after the restart',
    );
    expect(verified).toMatchObject({ state: 'passed', differences: [] });
    expect(verified.games).toBeGreaterThanOrEqual(1);
  }, 90_000);
});
