import type { BoardEvent } from '../../protocols/board-events.ts';
import { catchUpFromEeprom, catchUpFromStart, fromStartCatchUpTimes, spreadCatchUpTimes, startOf, type CatchUpAnchor, type StartFound } from '../../protocols/dgt/ee-catchup.ts';
import type { EepromEntry } from '../../protocols/dgt/eeprom.ts';
import type { PieceCode } from '../../protocols/dgt/squares.ts';
import { caughtUpEvents, type HostAnchor } from './catch-up-events.ts';
import type { ClockEvent, ClockSide } from './clock-sides.ts';

/**
 * What a board's log says happened while the host did not read it: a single board's EEPROM log
 * (BoardSession), a bus board's first change list (BusSession). One decision for both.
 */

/** What a catch-up gave, as the table's log reports it. */
export type LogCatchUpReport = { outcome: 'caught-up'; fields: number; how: 'anchored' | 'shortest' | 'from-start'; matched: number } | { outcome: 'failed'; fields: 0; detail: string };

/** The board came back other than the host left it, or (never seen) not in a start position: read its log. */
export function needsCatchUp(anchor: HostAnchor | 'unknown', dump: readonly PieceCode[]): boolean {
  return anchor === 'unknown' ? startOf(dump) === null : anchor.board.length !== dump.length || anchor.board.some((p, i) => p !== dump[i]);
}

/**
 * The board events the log gives between the host's anchor and the dump (at `dumpAt`), and what to
 * report. From the anchor (`catchUpFromEeprom`), or, for a board never seen or one set up for a new
 * game since, the game since its last start position (`catchUpFromStart`). `lastClock`: the host's
 * own last reading, if it has one (else the anchor's, from the stored events).
 */
export function catchUpFromLog(
  anchor: HostAnchor | 'unknown',
  entries: readonly EepromEntry[],
  dump: readonly PieceCode[],
  dumpAt: number,
  whiteOnClock: ClockSide,
  lastClock: ClockEvent | null,
): { report: LogCatchUpReport; events: BoardEvent[] } {
  if (anchor === 'unknown') {
    const r = catchUpFromStart(entries, dump);
    return r.ok ? fromStart(r.value, dumpAt) : failed(r.error);
  }
  const r = catchUpFromEeprom(anchor, entries, dump);
  // The host's last changes not in the log: the board may have been set up for a new game
  // since (a daemon stopped overnight, the next round begun before it was started again).
  // A game in the log from a start position that never passes the host's last board is that
  // new game; the shortest way from the host's board would be a guess across the reset.
  const fresh = !r.ok || r.value.how !== 'anchored' ? catchUpFromStart(entries, dump) : null;
  if (fresh?.ok && !sameGame(fresh.value.start, fresh.value.fields, anchor)) return fromStart(fresh.value, dumpAt);
  if (!r.ok) return failed(r.error);
  const times = spreadCatchUpTimes(r.value.fields, anchor.lastAt, dumpAt);
  const events = caughtUpEvents(r.value, times, { lastAt: anchor.lastAt, dumpAt }, whiteOnClock, lastClock ?? anchor.lastClock ?? null);
  return { report: { outcome: 'caught-up', fields: r.value.fields.length, how: r.value.how, matched: r.value.matched }, events };
}

function failed(detail: string): { report: LogCatchUpReport; events: BoardEvent[] } {
  return { report: { outcome: 'failed', fields: 0, detail }, events: [] };
}

/** The start position as a dump, then the changes since, ending at the dump's time. */
function fromStart(found: StartFound, dumpAt: number): { report: LogCatchUpReport; events: BoardEvent[] } {
  const { startAt, times } = fromStartCatchUpTimes(found.fields, dumpAt);
  const events: BoardEvent[] = [{ type: 'dump', at: startAt, board: found.start }];
  found.fields.forEach((x, i) => events.push({ type: 'field', at: times[i]!, field: x.field, piece: x.piece }));
  return { report: { outcome: 'caught-up', fields: found.fields.length, how: 'from-start', matched: 0 }, events };
}

/** How many of the host's last field changes in a row must show up in a logged game to make it the host's game. */
const SAME_GAME_RUN = 4;

/**
 * Whether the game replayed from `start` is the one the host was following: it shows the host's
 * board at some point, or contains a run of the host's last field changes (the host may have
 * stopped with a piece in the hand, a board the log's game never shows).
 */
function sameGame(start: readonly PieceCode[], fields: readonly { field: number; piece: PieceCode }[], anchor: CatchUpAnchor): boolean {
  const b = start.slice();
  const board = anchor.board;
  const same = (): boolean => b.every((p, i) => p === board[i]);
  if (same()) return true;
  for (const f of fields) {
    b[f.field] = f.piece;
    if (same()) return true;
  }
  const recent = anchor.recentFields;
  const run = Math.min(SAME_GAME_RUN, recent.length);
  if (run === 0) return false;
  for (let r = 0; r + run <= recent.length; r++) {
    for (let i = 0; i + run <= fields.length; i++) {
      let k = 0;
      while (k < run && fields[i + k]!.field === recent[r + k]!.field && fields[i + k]!.piece === recent[r + k]!.piece) k++;
      if (k === run) return true;
    }
  }
  return false;
}
