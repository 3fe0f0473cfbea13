import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARED_GAMES_DIR, sharedDataPresent } from '../shared-data.ts';
import { decodeAll } from '../../protocols/dgt/index.ts';
import { BoardEmulator } from '../../daemon/simulation/emulator/board-emulator.ts';
import { concatBytes, runScript } from '../../daemon/simulation/emulator/script.ts';
import { Tabletop, observe } from '../../daemon/simulation/emulator/tabletop.ts';
import { loadPgn } from '../../daemon/simulation/games/pgn.ts';
import { randomGame } from '../../daemon/simulation/games/random.ts';
import type { SourceGame } from '../../daemon/simulation/games/game.ts';
import { playNoisy, type NoiseModel } from '../../daemon/simulation/noisy-player/player.ts';
import { cmd } from './helpers.ts';

const GAMES = join(SHARED_GAMES_DIR, 'London1851.pgn');

/**
 * A whole game played by the noisy player through the emulator, read back with the codec: the
 * field updates must be exactly what the physical model says the board saw, and the last dump the
 * final board. This ties the emulator, Tabletop and the decoder together on realistic streams.
 */
function replay(game: SourceGame, model: NoiseModel, seed: number) {
  const script = playNoisy(game, { model, seed });
  const emu = new BoardEmulator({ serial: '12345', board: script.board, clock: script.clock });
  const init = Uint8Array.of(...cmd('send-board'), ...cmd('send-update-nice'));
  const out = runScript(emu, script.actions, { host: [{ at: 0, bytes: init }], afterPlug: init, tailMs: 1500 });
  const { frames, stats, pendingBytes } = decodeAll(concatBytes(out));
  expect(stats.discardedBytes).toBe(0);
  expect(pendingBytes).toBe(0);
  const fields = frames.flatMap((f) => (f.message.type === 'field-update' ? [[f.message.field, f.message.piece]] : []));
  const seen = observe(script.actions, { board: script.board, clock: script.clock });
  expect(fields).toEqual(seen.flatMap((e) => (e.type === 'field' ? [[e.field, e.piece]] : [])));
  const table = new Tabletop({ board: script.board, clock: script.clock });
  for (const a of script.actions) table.apply(a);
  emu.receive(cmd('send-board'), emu.time);
  const last = decodeAll(emu.takeOutput()).frames.at(-1)?.message;
  expect(last).toEqual({ type: 'board-dump', board: table.board() });
  // Clock readings: only the side to move loses time between two readings (while the cable is
  // out, presses go unreported, so that holds only for scripts without a disconnect).
  const unplugged = script.actions.some((a) => a.kind === 'unplug');
  const clocks = frames.flatMap((f) => (f.message.type === 'clock-times' ? [f.message] : []));
  if (script.clock) expect(clocks.length).toBeGreaterThan(0);
  for (let k = 1; k < (unplugged ? 0 : clocks.length); k++) {
    const [a, b] = [clocks[k - 1]!, clocks[k]!];
    if (!a.status.leftToMove) expect(b.left.ms).toBeGreaterThanOrEqual(a.left.ms);
    if (!a.status.rightToMove) expect(b.right.ms).toBeGreaterThanOrEqual(a.right.ms);
  }
  return { frames: frames.length, script };
}

describe('replaying whole games through the emulator', () => {
  for (const [i, model] of (['clean', 'slide', 'capture-both-seen', 'disconnect', 'mixed'] as NoiseModel[]).entries()) {
    it(`random game ${i + 1}, noise "${model}": field updates and final board match the physical model`, () => {
      const r = replay(randomGame(100 + i, {}), model, 7 + i);
      expect(r.frames).toBeGreaterThan(r.script.actions.length / 2);
    });
  }

  if (!existsSync(GAMES)) console.warn(`SKIPPED: real-game replay needs ${GAMES} (shared data absent)`);
  it.skipIf(!sharedDataPresent(GAMES, 'a real game'))(`a real game from ${GAMES}`, () => {
    const { games } = loadPgn(readFileSync(GAMES, 'utf8'), 'London1851.pgn');
    expect(games.length).toBeGreaterThan(0);
    replay(games[0]!, 'scan-order', 3);
    replay(games[1]!, 'disconnect', 4);
  });
});
