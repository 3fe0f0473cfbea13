import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GameState } from '../../protocols/feed/model.ts';
import { openStore } from '../../daemon/store/store.ts';
import { eventually, getJson, runCli, servingUrl, type Child } from '../runtime/daemon-child.ts';
import { withSql } from '../store/helpers.ts';

const root = mkdtempSync(join(tmpdir(), 'boardcast-tools-'));
const data = join(root, 'data');
const children: Child[] = [];
afterAll(() => {
  for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

function cli(args: string[]): Child {
  const c = runCli(args);
  children.push(c);
  return c;
}

/** SAN tokens of a PGN's movetext (comments, move numbers and the result dropped). */
function sans(pgn: string): string[] {
  const text = pgn
    .split('\n\n')
    .slice(1)
    .join(' ')
    .replace(/\{[^}]*\}/g, ' ');
  return text.split(/\s+/).filter((t) => t && !/^\d+\.+$/.test(t) && !['1-0', '0-1', '1/2-1/2', '*'].includes(t));
}

describe('export and replay on a stored hall', () => {
  it('export writes PGN with tags and %clk equal to the stored moves; replay shows each event and its moves', async () => {
    const serve = cli(['serve', '--port', '0', '--data', data, '--pace', '30', '--no-viewer']);
    const url = await servingUrl(serve);
    await eventually(async () => ((await getJson<GameState>(`${url}/api/games/r1-t1`)).ply >= 8 ? true : undefined), 20_000, 'eight plies on table 1');
    serve.proc.kill('SIGTERM');
    expect(await serve.exit).toBe(0);

    const store = openStore(join(data, 'boardcast.sqlite'));
    if (!store.ok) throw new Error(store.error.message);
    const id = withSql(store.value.file, (db) => db.prepare('SELECT id FROM games WHERE table_number = 1 ORDER BY id').pluck().get()) as number;
    const stored = store.value.moves(id).map((m) => m.san);
    store.value.close();
    expect(stored.length).toBeGreaterThanOrEqual(8);

    const out = join(root, 'round1.pgn');
    const exp = cli(['export', '--data', data, '--game', 'r1-t1', '--out', out]);
    expect(await exp.exit).toBe(0);
    const pgn = readFileSync(out, 'utf8');
    expect(pgn).toContain('[Event "boardcast demo"]');
    expect(pgn).toContain('[Board "1"]');
    expect(pgn).toContain('[TimeControl "5400+30"]');
    expect(pgn).toMatch(/\{ \[%clk \d:\d\d:\d\d\] \}/);
    expect(sans(pgn)).toEqual(stored);

    const all = cli(['export', '--data', data, '--round', '1']);
    expect(await all.exit).toBe(0);
    expect(all.stdout().match(/^\[Event /gm)).toHaveLength(8);

    const rep = cli(['replay', '--data', data, '--game', 'r1-t1']);
    expect(await rep.exit).toBe(0);
    const moves = [...rep.stdout().matchAll(/→ move (\d+): (\S+)/g)].map((m) => m[2]);
    expect(moves.slice(0, stored.length)).toEqual(stored);
    expect(rep.stdout()).toMatch(/^#\d+ \S+ table 1 r1-t1: board dump/m);
    // Clock presses confirm moves: printed as confirmations, never as amended moves (a clean game).
    expect(rep.stdout()).toMatch(/→ confirmed \d+: \S+ by the clock press \(clock \d+:\d\d:\d\d\)/);
    expect(rep.stdout()).not.toContain('amended from ply');

    const js = cli(['replay', '--data', data, '--game', 'r1-t1', '--json']);
    expect(await js.exit).toBe(0);
    const steps = js
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { step: string; id?: number; raw?: string; produced: { kind: string; san?: string }[] });
    expect(steps.every((st) => st.step === 'event' || st.step === 'arbiter')).toBe(true);
    expect(steps.filter((st) => st.step === 'event').every((st) => typeof st.id === 'number' && /^[0-9a-f]*$/.test(st.raw ?? ''))).toBe(true);
    const jsonMoves = steps.flatMap((st) => st.produced.filter((p) => p.kind === 'move').map((p) => p.san));
    expect(jsonMoves.slice(0, stored.length)).toEqual(stored);
    expect(steps.some((st) => st.produced.some((p) => p.kind === 'confirmation'))).toBe(true);
  }, 90_000);

  it('usage errors exit 2, a missing store exits 1', async () => {
    const noData = cli(['replay', '--table', '1']);
    expect(await noData.exit).toBe(2);
    const both = cli(['replay', '--data', data, '--speed', '2', '--step']);
    expect(await both.exit).toBe(2);
    const missing = cli(['export', '--data', join(root, 'nowhere')]);
    expect(await missing.exit).toBe(1);
    expect(missing.stderr()).toContain('no boardcast store');
  }, 30_000);
});
