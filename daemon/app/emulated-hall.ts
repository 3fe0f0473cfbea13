import type { Logger } from '../log/logger.ts';
import { demoGame, type GameSource } from '../runtime/demo-games.ts';
import { resumeAt } from '../runtime/demo-resume.ts';
import { EmulatedTable } from '../runtime/emulated-table.ts';
import type { TableTrack } from '../runtime/hall-router.ts';
import type { MemoryLiveSource } from '../runtime/memory-live-source.ts';
import { emulatorBinding } from '../simulation/emulator-binding.ts';
import type { NoiseModel } from '../simulation/noisy-player/player.ts';
import type { BoardcastConfig, EmulateConfig } from '../tournament/config.ts';
import { serialTransportFactory } from '../transport/serial-transport.ts';
import type { HallBoard } from './hall-boards.ts';

/**
 * Plugs an emulated board in for every emulated table (the emulator binding; the real serial
 * transport, codec and session read it). An in-process board dies with the daemon, so each one
 * resumes its script where the store says its game stands, on the very board the host last saw
 * (a finished game: the next one), and a restart neither replays nor skips moves.
 */
export function plugEmulatedBoards(
  boards: readonly HallBoard[],
  tracks: readonly TableTrack[],
  live: MemoryLiveSource,
  hall: { config: EmulateConfig; source: GameSource },
  config: BoardcastConfig,
  pace: number,
  log: Logger,
): void {
  const { config: e, source } = hall;
  log.info('emulated hall', { tables: e.count, games: source.kind === 'files' ? `${source.games.length} games from ${source.dir}` : `random (seed ${source.seed})` });
  const script = (table: number, k: number) => demoGame(source, e.count, table, k, e.noise as NoiseModel, e.seed, config.timeControl).script;
  boards.forEach((b, i) => {
    if (b.transport !== null || !b.board.startsWith('emulated:')) return;
    const track = tracks[i]!;
    const current = track.gameId ? live.game(track.gameId) : undefined;
    const resume = !current
      ? undefined
      : current.status === 'finished'
        ? { gameIndex: track.games.length, atMs: 0 }
        : { gameIndex: track.games.length - 1, atMs: resumeAt(script(b.number, track.games.length - 1), track, current.ply) };
    const device = new EmulatedTable({ serial: b.board.slice('emulated:'.length), nextGame: (k) => script(b.number, k), ...(resume ? { resume } : {}) });
    const start = performance.now();
    const path = `/boardcast-emulated/${process.pid}/table${b.number}`;
    b.link = emulatorBinding.plug(path, device, { now: () => (performance.now() - start) * pace });
    b.transport = serialTransportFactory(path, emulatorBinding.portFactory);
  });
}
