import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePgn, startingPosition } from 'chessops/pgn';
import { parseSan } from 'chessops/san';
import { afterAll, describe, expect, it } from 'vitest';
import { pgnExtract } from '../pgn/pgn-extract.ts';
import { eventually, getJson, runCli, servingUrl, stopChildren, type Child } from '../runtime/daemon-child.ts';

/**
 * Issue 10: `boardcast serve` with the PGN folder output on (config `outputs.pgnFolder`), read as a
 * folder uploader reads it (lichess's Broadcaster app): the folder's round file is the served round
 * PGN, its game files are that PGN's games one by one, every file passes pgn-extract and chessops,
 * and the tags are the ones platforms read (Date of play, a TimeControl lichess can read, standard
 * Termination, GameId). pgn-extract is required here (an e2e machine has it).
 */

const root = mkdtempSync(join(tmpdir(), 'boardcast-pgn-folder-e2e-'));
const children: Child[] = [];
afterAll(async () => {
  await stopChildren(children);
  rmSync(root, { recursive: true, force: true });
});

const GAMES = [
  ['Petrović, Marko', 'Lenart, Ana', '1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0', '1-0'],
  ['Horvat, Luka', 'Kováč, Ján', '1. f3 e5 2. g4 Qh4# 0-1', '0-1'],
  ['Jovanović, Nina', 'Novak, Eva', '1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 1/2-1/2', '1/2-1/2'],
];
const pgnFile = GAMES.map(([w, b, moves, result]) => `[Event "Folder Open"]\n[Round "1"]\n[White "${w}"]\n[Black "${b}"]\n[Result "${result}"]\n\n${moves}\n`).join('\n');

const read = (file: string): string | undefined => (existsSync(file) ? readFileSync(file, 'utf8') : undefined);

/** The round PGN split into games, each as its own file would hold it. */
const splitGames = (round: string): string[] => round.split(/\n(?=\[Event )/).map((g) => g.trimEnd() + '\n');

describe('boardcast serve with the PGN folder on', () => {
  it('keeps round-N.pgn equal to the served round PGN and round-N/game-T.pgn to its games, every file valid', async () => {
    const games = join(root, 'games.pgn');
    writeFileSync(games, pgnFile);
    const config = join(root, 'hall.json');
    writeFileSync(
      config,
      JSON.stringify({
        event: { name: 'Folder Open', site: 'Ljubljana SLO' },
        rounds: { count: 1 },
        timeControl: { baseMinutes: 90, incrementSeconds: 30, movesToSecondPeriod: 40, secondPeriodMinutes: 30 },
        dataDir: join(root, 'data'),
        emulate: { count: 3, games, seed: 5 },
        outputs: { pgnFolder: { path: 'pgn-out' } },
      }),
    );
    const folder = join(root, 'pgn-out'); // relative to the config file
    const child = runCli(['serve', '--config', config, '--port', '0', '--pace', '40', '--no-viewer']);
    children.push(child);
    const url = await servingUrl(child);

    type Health = { outputs: { pgnFolder: { dir: string; writes: number; lastError: string | null } | null } };
    expect((await getJson<Health>(`${url}/health`)).outputs.pgnFolder).toMatchObject({ dir: folder, lastError: null });

    // While the games run: the folder catches up with the served PGN (compared when both agree).
    await eventually(
      async () => {
        const served = await (await fetch(`${url}/relay/round-1.pgn`)).text();
        return /\n1\. /.test(served) && read(join(folder, 'round-1.pgn')) === served ? true : undefined;
      },
      30_000,
      'the folder holding moves of the running round, as served',
    );

    // Every game decided: the served PGN no longer changes, and the folder must equal it exactly.
    const served = await eventually(
      async () => {
        const text = await (await fetch(`${url}/relay/round-1.pgn`)).text();
        const results = parsePgn(text).map((g) => g.headers.get('Result'));
        return results.length === 3 && results.every((r) => r !== '*') ? text : undefined;
      },
      60_000,
      'round 1 finished',
    );
    const files = await eventually(
      async () => {
        const round = read(join(folder, 'round-1.pgn'));
        const each = [1, 2, 3].map((t) => read(join(folder, 'round-1', `game-${t}.pgn`)));
        return round === served && each.every((g, i) => g === splitGames(served)[i]) ? { round, each: each as string[] } : undefined;
      },
      10_000,
      'the folder equal to the served round PGN',
    );
    expect(readdirSync(join(folder, 'round-1')).sort()).toEqual(['game-1.pgn', 'game-2.pgn', 'game-3.pgn']);
    // The emulated boards go on to further rounds; whatever is there, no temp file is left behind.
    expect(readdirSync(folder).filter((n) => !/^round-\d+(\.pgn)?$/.test(n))).toEqual([]);

    const first = await getJson<{ moves: { at: number }[] }>(`${url}/api/games/r1-t1`);
    const played = new Date(first.moves[0]!.at).toISOString().slice(0, 10).replaceAll('-', '.');
    for (const [text, count] of [[files.round, 3], ...files.each.map((g) => [g, 1] as const)] as const) {
      expect(pgnExtract(text)).toEqual({ diagnostics: '', games: count });
      for (const g of parsePgn(text)) {
        const pos = startingPosition(g.headers).unwrap();
        for (const n of g.moves.mainline()) pos.play(parseSan(pos, n.san)!);
      }
    }
    const parsed = parsePgn(files.round);
    expect(parsed.map((g) => [g.headers.get('White'), g.headers.get('Result'), g.headers.get('Termination'), g.headers.get('Board'), g.headers.get('GameId')])).toEqual([
      ['Petrović, Marko', '1-0', 'normal', '1', 'folder-open/r1-t1'],
      ['Horvat, Luka', '0-1', 'normal', '2', 'folder-open/r1-t2'],
      ['Jovanović, Nina', '1/2-1/2', 'normal', '3', 'folder-open/r1-t3'],
    ]);
    for (const g of parsed) {
      expect(g.headers.get('Date')).toBe(played);
      expect(g.headers.get('TimeControl')).toBe('5400+30');
    }
    expect(parsed.map((g) => g.headers.get('TerminationDetail'))).toEqual(['checkmate', 'checkmate', expect.any(String)]);
  });
});
