import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSquare } from 'chessops/util';
import { afterAll, describe, expect, it } from 'vitest';
import { PIECE, squareToField, type PieceCode } from '../../protocols/dgt/squares.ts';
import type { EmulatorAction } from '../../daemon/simulation/emulator/board-emulator.ts';
import type { GameState, GameSummary, RoundInfo } from '../../protocols/feed/model.ts';
import { openStore } from '../../daemon/store/store.ts';
import { eventually, getJson, runCli, servingUrl, stopChildren, waitForOutput, type Child } from '../runtime/daemon-child.ts';
import { socatAvailable } from './socat.ts';
import { withSql } from '../store/helpers.ts';
import { decodeStoredEvent } from '../../daemon/store/raw-events.ts';

const socat = socatAvailable('daemon-rounds');
const TOKEN = 'rounds-e2e-secret';
const root = mkdtempSync(join(tmpdir(), 'boardcast-rounds-e2e-'));
const children: Child[] = [];
afterAll(async () => {
  await stopChildren(children);
  rmSync(root, { recursive: true, force: true });
});

const field = (name: string) => squareToField(parseSquare(name)!);

/** Moves played by hand (lift, place, clock press), 800 ms apart, from `startMs` on. */
function play(startMs: number, moves: [string, string, PieceCode][]): EmulatorAction[] {
  return moves.flatMap(([from, to, piece], i) => {
    const at = startMs + i * 800;
    return [
      { kind: 'lift', at, field: field(from) },
      { kind: 'place', at: at + 200, field: field(to), piece },
      { kind: 'press', at: at + 400, by: i % 2 === 0 ? 'white' : 'black' },
    ] as EmulatorAction[];
  });
}

// Late enough for the daemon to start and the arbiter to start the round while the boards stand
// in the start position (the games open then, and wait for the first move).
const FIRST_MOVE_MS = 12_000;

const cli = (args: string[]): Child => {
  const c = runCli(args, { BOARDCAST_ARBITER_TOKEN: TOKEN });
  children.push(c);
  return c;
};

async function done(c: Child): Promise<{ code: number | null; out: string; err: string }> {
  const code = await c.exit;
  return { code, out: c.stdout(), err: c.stderr() };
}

describe.skipIf(!socat)("a round on the running daemon ('arbiter' mode), boards on a pty and on a bus line", () => {
  it('starts with `boardcast round start`, plays, refuses to close with a game unfinished, survives SIGKILL, and closes once results are in', async () => {
    const t1 = join(root, 'table1.json');
    const t2 = join(root, 'table2.json');
    writeFileSync(
      t1,
      JSON.stringify({
        actions: play(FIRST_MOVE_MS, [
          ['f2', 'f3', PIECE.WPAWN],
          ['e7', 'e5', PIECE.BPAWN],
          ['g2', 'g4', PIECE.WPAWN],
          ['d8', 'h4', PIECE.BQUEEN],
        ]),
      }),
    );
    writeFileSync(
      t2,
      JSON.stringify({
        actions: play(FIRST_MOVE_MS, [
          ['e2', 'e4', PIECE.WPAWN],
          ['e7', 'e5', PIECE.BPAWN],
          ['g1', 'f3', PIECE.WKNIGHT],
        ]),
      }),
    );
    const t0 = Date.now();
    const single = cli(['emulate', '--boards', '1', '--serial-base', '12001', '--dir', join(root, 'single'), '--script', t1]);
    const bus = cli(['emulate', '--bus', '--boards', '1', '--serial-base', '12002', '--dir', join(root, 'bus'), '--script', t2]);
    const singlePath = await waitForOutput(single, (out) => /board 1: (\S+) serial 12001/.exec(out)?.[1]);
    const busPath = await waitForOutput(bus, (out) => /board 1: (\S+) serial 12002 address \d+ bus/.exec(out)?.[1]);

    const config = join(root, 'hall.json');
    writeFileSync(
      config,
      JSON.stringify({
        event: { name: 'Rounds e2e Open', site: 'Ljubljana SLO' },
        rounds: { count: 2, start: 'arbiter', dates: ['2026-11-22', '2026-11-23'] },
        timeControl: '90+30',
        tables: [
          { number: 1, board: singlePath },
          { number: 2, board: '12002', bus: busPath },
        ],
        httpPort: 0,
        dataDir: './data',
      }),
    );
    const pairings = join(root, 'round1.csv');
    writeFileSync(pairings, 'board,white,black,white_title,white_rating,black_title,black_rating\n1,"Novak, Ana","Horvat, Marko",IM,2411,FM,2302\n2,"Kranjc, Eva","Zupan, Luka",,2150,GM,2550\n');
    const imported = await done(cli(['import-pairings', '--config', config, '--round', '1', pairings]));
    expect(imported.code, imported.err).toBe(0);

    let daemon = cli(['serve', '--config', config]);
    let url = await servingUrl(daemon);
    await eventually(
      async () => {
        const h = await getJson<{ tables: { table: number; state: string; device: string | null }[] }>(`${url}/health`);
        return h.tables.every((t) => t.state === 'live') ? h : undefined;
      },
      15_000,
      'both tables live',
    );
    expect((await getJson<RoundInfo[]>(`${url}/api/rounds`)).map((r) => r.status)).toEqual(['upcoming', 'upcoming']);
    expect(await getJson<GameSummary[]>(`${url}/api/rounds/1/games`)).toEqual([]);

    const refused = await done(cli(['round', 'close', '1', '--url', url, '--token', TOKEN]));
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('no games yet');
    const started = await done(cli(['round', 'start', '1', '--url', url, '--token', TOKEN, '--arbiter', 'IA Test']));
    expect(started.code, started.err).toBe(0);
    expect(started.out).toContain('round 1 started');
    expect(started.out).toContain('table 1: Novak, Ana - Horvat, Marko');
    expect(Date.now() - t0).toBeLessThan(FIRST_MOVE_MS); // else the boards were no longer in the start position

    const games = await eventually(
      async () => {
        const g = await getJson<GameSummary[]>(`${url}/api/rounds/1/games`);
        return g.length === 2 && g[0]!.status === 'finished' && g[1]!.ply === 3 ? g : undefined;
      },
      30_000,
      'the mate on table 1 and three plies on table 2',
    );
    expect(games.map((g) => [g.id, g.white.name, g.black.name, g.result])).toEqual([
      ['r1-t1', 'Novak, Ana', 'Horvat, Marko', '0-1'],
      ['r1-t2', 'Kranjc, Eva', 'Zupan, Luka', '*'],
    ]);
    const unfinished = await done(cli(['round', 'close', '1', '--config', config, '--url', url]));
    expect(unfinished.code).toBe(1);
    expect(unfinished.err).toContain('table(s) 2');

    // SIGKILL mid-round: the restart rebuilds the round from raw events and the audit trail.
    const before = await Promise.all(['r1-t1', 'r1-t2'].map((id) => getJson<GameState>(`${url}/api/games/${id}`)));
    daemon.proc.kill('SIGKILL');
    await daemon.exit;
    daemon = cli(['serve', '--config', config]);
    url = await servingUrl(daemon);
    for (const was of before) {
      const now = await getJson<GameState>(`${url}/api/games/${was.id}`);
      expect({ moves: now.moves.map((m) => [m.san, m.at]), result: now.result, white: now.white }).toEqual({ moves: was.moves.map((m) => [m.san, m.at]), result: was.result, white: was.white });
    }
    expect((await getJson<RoundInfo[]>(`${url}/api/rounds`))[0]!.status).toBe('live');

    const result = await fetch(`${url}/api/arbiter/games/r1-t2/result`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ result: '1/2-1/2', reason: 'draw agreed', arbiter: 'IA Test' }),
    });
    expect(result.status).toBe(200);
    const closed = await done(cli(['round', 'close', '1', '--url', url]));
    expect(closed.code, closed.err).toBe(0);
    const status = await done(cli(['round', 'status', '--url', url]));
    expect(status.out).toContain('round 1: finished, 2 game(s), 2026-11-22');
    expect(status.out).toContain('round 2: upcoming, 0 game(s)');
    const pgn = await (await fetch(`${url}/api/rounds/1/pgn`)).text();
    expect(pgn).toContain('[White "Novak, Ana"]');
    expect(pgn).toContain('[WhiteTitle "IM"]');
    const movetext = pgn.replace(/\s*\{[^}]*\}/g, '').replace(/\s+/g, ' ');
    expect(movetext).toContain('1. f3 e5 2. g4 Qh4# 0-1');
    expect(movetext).toContain('1. e4 e5 2. Nf3 1/2-1/2');
    expect(pgn).toContain('[Termination "adjudication"]\n[TerminationDetail "arbiter decision"]');

    daemon.proc.kill('SIGTERM');
    expect(await daemon.exit).toBe(0);
    const store = openStore(join(root, 'data', 'boardcast.sqlite'));
    if (!store.ok) throw new Error(store.error.message);
    const audit = store.value.amendments().map((a) => [a.action, a.arbiter]);
    expect(audit).toEqual([
      ['start-round', 'IA Test'],
      ['set-result', 'IA Test'],
      ['close-round', 'arbiter'],
    ]);
    const rows = store.value.gamesOfRound(store.value.round(store.value.tournamentByName('Rounds e2e Open')!.id, 1)!.id);
    expect(rows.map((g) => [g.table, g.result, g.resultSource, g.white?.name])).toEqual([
      [1, '0-1', 'engine', 'Novak, Ana'],
      [2, '1/2-1/2', 'arbiter', 'Kranjc, Eva'],
    ]);
    // Which board stood at which table.
    const serials = withSql(store.value.file, (db) => db.prepare('SELECT serial, table_number FROM board_serials ORDER BY table_number').all()) as { serial: string; table_number: number }[];
    // (A single board reports its short and its long serial number; both are kept.)
    expect([...new Set(serials.map((r) => `${r.table_number}:${r.serial.slice(-5)}`))]).toEqual(['1:12001', '2:12002']);
    // Clock readings are derived rows too: one per clock message routed to a game, kept once across the restart.
    const clocks = withSql(store.value.file, (db) =>
      db.prepare('SELECT c.raw_event_id AS raw, r.event_json AS ev, r.mono_ms AS mono FROM clock_readings c JOIN raw_events r ON r.id = c.raw_event_id WHERE c.game_id = ?').all(rows[0]!.id),
    ) as { raw: number; ev: string; mono: number }[];
    expect(clocks.length).toBeGreaterThan(3);
    expect(new Set(clocks.map((c) => c.raw)).size).toBe(clocks.length);
    expect(clocks.every((c) => decodeStoredEvent(c.ev, c.mono).type === 'clock')).toBe(true);
    store.value.close();

    // The arbiter's tools read the same story from the store: replay shows the decisions in place,
    // export writes the PGN the broadcast showed.
    const replay = await done(cli(['replay', '--data', join(root, 'data'), '--config', config, '--table', '2']));
    expect(replay.code, replay.err).toBe(0);
    expect(replay.out).toContain('arbiter: round 1 started');
    expect(replay.out).toContain('arbiter: r1-t2: result 1/2-1/2');
    expect(replay.out).toMatch(/move 3: Nf3/);
    const exported = await done(cli(['export', '--data', join(root, 'data'), '--config', config, '--round', '1']));
    expect(exported.code, exported.err).toBe(0);
    expect(exported.out.replace(/\s*\{[^}]*\}/g, '').replace(/\s+/g, ' ')).toContain('1. e4 e5 2. Nf3 1/2-1/2');
    expect(exported.out).toContain('[White "Kranjc, Eva"]');
  }, 120_000);
});
