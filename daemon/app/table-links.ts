import { BoardSession } from '../board/session.ts';
import type { Timers } from '../board/timers.ts';
import type { HostAnchor } from '../board/catch-up-events.ts';
import type { BusTableLink, TableLink } from '../runtime/bus-tables.ts';
import type { HallRouter, TableTrack } from '../runtime/hall-router.ts';
import type { EmulatedLine } from '../simulation/emulator-binding.ts';
import type { BoardcastConfig } from '../tournament/config.ts';
import type { HallBoard } from './hall-boards.ts';

/** A table as the running daemon holds it: where its events go, and the link to its board. */
export interface HallTable {
  track: TableTrack;
  readonly board: string;
  session: TableLink;
  link: EmulatedLine | null;
}

/** A link per table: its bus line's, or a board session of its own that catches up from the board's log. */
export function tableLinks(
  boards: readonly HallBoard[],
  busLinks: ReadonlyMap<number, BusTableLink>,
  router: HallRouter,
  config: BoardcastConfig,
  timers: Timers,
  /** Brings the table's track up to the store before the board's log is read against it (a table served from its live snapshot). */
  settle: (table: number) => void = () => undefined,
): HallTable[] {
  return boards.map((b) => {
    // After a reconnect or a restart, the board's log (a single board's EEPROM, a bus board's
    // first change list) fills in what happened meanwhile, from where the stored events left off.
    const anchor = (): HostAnchor | 'unknown' => {
      // The log is read from where the stored events end: a table the start served from its
      // live snapshot is caught up first, or the log would be read from an older board.
      settle(b.number);
      const t = router.track(b.number);
      // A board never seen (fresh data directory, a table added, the daemon started late):
      // its game since the pieces were last set up comes from the log too.
      return t.seenBoard ? { board: t.board, recentFields: t.recentFields, lastAt: t.lastAt, lastClock: t.lastClock } : 'unknown';
    };
    return {
      track: router.track(b.number),
      // The board as it is now: the organiser may change it during the event (board-changes.ts).
      get board() {
        return b.board;
      },
      link: b.link,
      session:
        busLinks.get(b.number)?.catchUpFrom(anchor) ??
        new BoardSession({
          transport: b.transport!,
          timers,
          catchUp: anchor,
          whiteOnClock: config.tables.find((t) => t.number === b.number)?.whiteOnClock ?? 'left',
        }),
    };
  });
}
