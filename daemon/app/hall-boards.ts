import type { Timers } from '../board/timers.ts';
import type { Logger } from '../log/logger.ts';
import { BoardSources, isSerialNumber } from '../runtime/board-sources.ts';
import { busTableLinks, type BusLineConfig, type BusTableLink } from '../runtime/bus-tables.ts';
import { isNoiseModel, resolveGameSource, type GameSource } from '../runtime/demo-games.ts';
import type { EmulatedLine } from '../simulation/emulator-binding.ts';
import { err, ok, type Result } from '../store/result.ts';
import type { BoardcastConfig, EmulateConfig } from '../tournament/config.ts';
import type { TransportFactory } from '../transport/byte-transport.ts';
import { SerialTransport, serialTransportFactory } from '../transport/serial-transport.ts';

/** One table's board as the daemon reaches it. */
export interface HallBoard {
  number: number;
  /** The configured board: a device path, a serial number, or `emulated:NNNNN`. */
  board: string;
  /** How to open its serial link; null for a bus table (its line's session reads it) until an emulated board is plugged in. */
  transport: TransportFactory | null;
  /** The emulated board's line, for an in-process table. */
  link: EmulatedLine | null;
}

export interface HallBoards {
  boards: HallBoard[];
  /** The tables on DGT bus lines: one bus session per line, a link per table. */
  busLinks: Map<number, BusTableLink>;
  /** Finds the boards configured by serial number among the serial ports. */
  sources: BoardSources;
  /** The emulated hall's settings and the games its players replay (null without `emulate`). */
  emulated: { config: EmulateConfig; source: GameSource } | null;
}

/**
 * Every table of the config and how its board is reached: a device path, a serial number found by
 * probing the ports, a DGT bus line, or an emulated board numbered after the highest real table.
 */
export function hallBoards(config: BoardcastConfig, opts: { log: Logger; timers: Timers; deviceDirs?: string[]; onMatch: (table: number) => void }): Result<HallBoards, string> {
  // Tables on a DGT bus line share one BusSession per line; their boards are addressed by serial
  // number on that line, so the serial-number probe must leave bus lines alone (it would RESET them).
  const busLines = new Map<string, BusLineConfig>();
  for (const t of config.tables) {
    if (t.bus === undefined) continue;
    const line = busLines.get(t.bus) ?? { path: t.bus, tables: [] };
    line.tables.push({ number: t.number, serial: t.board, whiteOnClock: t.whiteOnClock });
    busLines.set(t.bus, line);
  }
  const busLinks = busTableLinks([...busLines.values()], { transport: (path) => serialTransportFactory(path), timers: opts.timers });
  const sources = new BoardSources({
    tables: config.tables.filter((t) => isSerialNumber(t.board) && t.bus === undefined).map((t) => ({ number: t.number, serial: t.board })),
    reservedPaths: [...config.tables.filter((t) => !isSerialNumber(t.board)).map((t) => t.board), ...busLines.keys()],
    log: opts.log.child('board sources'),
    ...(opts.deviceDirs ? { deviceDirs: opts.deviceDirs } : {}),
    onMatch: opts.onMatch,
  });
  const boards: HallBoard[] = config.tables.map((t) => {
    if (t.bus !== undefined) return { number: t.number, board: t.board, transport: null, link: null };
    // The board is read at each (re)connection: the organiser may put another in (board-changes.ts).
    const b: HallBoard = { number: t.number, board: t.board, transport: null, link: null };
    let lastPath = '';
    let lastBoard = b.board;
    b.transport = () => {
      if (b.board !== lastBoard) lastPath = '';
      lastBoard = b.board;
      if (!isSerialNumber(b.board)) return new SerialTransport(b.board);
      // Wherever the board was last found: after re-plugging it may be on a new path.
      return new SerialTransport((lastPath = sources.pathOf(t.number) ?? lastPath));
    };
    return b;
  });

  const e = config.emulate;
  if (!e) return ok({ boards, busLinks, sources, emulated: null });
  if (!isNoiseModel(e.noise)) return err(`config error: emulate.noise: unknown noise model "${e.noise}"`);
  const source = resolveGameSource(e.games, e.seed);
  if (typeof source === 'string') return err(`config error: emulate.games: ${source}`);
  const first = config.tables.reduce((m, t) => Math.max(m, t.number), 0) + 1;
  for (let i = 0; i < e.count; i++) {
    boards.push({ number: first + i, board: `emulated:${String(e.serialBase + i).padStart(5, '0')}`, transport: null, link: null });
  }
  return ok({ boards, busLinks, sources, emulated: { config: e, source } });
}
