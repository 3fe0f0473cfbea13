import { realpathSync } from 'node:fs';
import type { Logger } from '../log/logger.ts';
import { err, ok, type Result } from '../../protocols/result.ts';
import type { ArbiterFailure } from '../runtime/arbiter.ts';
import { isSerialNumber, type BoardSources } from '../runtime/board-sources.ts';
import { BOARD_CHANGE_ACTION, type BoardChangeDetail, type BoardChangeDone, type BoardChangeHandler, type BoardChangeRequest } from '../runtime/board-changes.ts';
import type { Store } from '../store/store.ts';
import type { BoardcastConfig } from '../tournament/config.ts';
import type { HallBoard } from './hall-boards.ts';
import type { HallTable } from './table-links.ts';

export interface BoardChangeDeps {
  /** The config as the file gives it (the boards a change is recorded against). */
  config: BoardcastConfig;
  boards: readonly HallBoard[];
  tables: ReadonlyMap<number, HallTable>;
  sources: BoardSources;
  store: Store;
  log: Logger;
  /** After a change: whatever follows the boards' paths (the device watch, the store's hall tables). */
  changed: () => void;
}

const refuse = (status: ArbiterFailure['status'], code: string, message: string): Result<never, ArbiterFailure> => err({ status, code, message });

function resolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The same board: the same serial number, or two names of one device (/dev/serial/by-id/… and /dev/ttyUSB0). */
function sameBoard(a: string, b: string): boolean {
  if (a === b) return true;
  if (isSerialNumber(a) || isSerialNumber(b)) return false;
  return resolved(a) === resolved(b);
}

/**
 * Why a table's board cannot be changed while the daemon runs (null: it can). The hall page
 * offers the change only where it can be made.
 */
export function boardFixedReason(config: BoardChangeDeps['config']): (b: HallBoard) => string | null {
  const busTables = new Set(config.tables.filter((t) => t.bus !== undefined).map((t) => t.number));
  const configBoard = new Map(config.tables.map((t) => [t.number, t.board]));
  return (b) =>
    busTables.has(b.number)
      ? `table ${b.number} is on a DGT bus line: its board is addressed on the line by serial number; change it in the config file`
      : b.link !== null || !configBoard.has(b.number)
        ? `table ${b.number} has an emulated board`
        : null;
}

/**
 * Puts another board in at a table while the daemon runs (docs/hall.md, *Changing a table's
 * board*). A board that another table has is swapped: that table gets this one's. The change is
 * written to the audit trail first, then the old links close and the new boards are opened (a
 * serial number is looked for among the ports, or handed over at once when the other table of a
 * swap had found it). The tables keep their games: the new board's first dump is read against the
 * game as it stands, so a spare set up in the game's position continues it without a gap.
 * Changes run one at a time.
 */
export function boardChanger(deps: BoardChangeDeps): BoardChangeHandler {
  const { boards, tables, sources, store, log } = deps;
  const busLines = new Set(deps.config.tables.flatMap((t) => (t.bus === undefined ? [] : [t.bus])));
  const changeable = boardFixedReason(deps.config);
  const configBoard = new Map(deps.config.tables.map((t) => [t.number, t.board]));

  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const run = queue.then(() => change(request));
    queue = run.catch(() => undefined);
    return run;
  };

  async function change(req: BoardChangeRequest): Promise<Result<BoardChangeDone, ArbiterFailure>> {
    const here = boards.find((b) => b.number === req.table);
    if (!here) return refuse(404, 'unknown-table', `no table ${req.table} in the hall`);
    const why = changeable(here);
    if (why) return refuse(409, 'not-changeable', why);
    if ([...busLines].some((line) => sameBoard(line, req.board))) return refuse(409, 'bus-line', `${req.board} is a DGT bus line, not a board`);
    if (sameBoard(here.board, req.board)) return refuse(409, 'nothing-to-do', `table ${req.table} already reads ${req.board}`);
    const other = boards.find((b) => b.number !== req.table && sameBoard(b.board, req.board));
    if (other) {
      const whyNot = changeable(other);
      if (whyNot) return refuse(409, 'not-changeable', `${req.board} is table ${other.number}'s board and ${whyNot}`);
    }
    const changes = [{ table: here.number, board: req.board, previous: here.board }, ...(other ? [{ table: other.number, board: here.board, previous: other.board }] : [])];
    const wallMs = Date.now();
    for (const c of changes) {
      const detail: BoardChangeDetail = {
        kind: 'board',
        table: c.table,
        board: c.board,
        previous: c.previous,
        configBoard: configBoard.get(c.table)!,
        swappedWith: other ? (c.table === here.number ? other.number : here.number) : null,
      };
      store.recordAmendment({ gameId: null, wallMs, arbiter: req.by, action: BOARD_CHANGE_ACTION, reason: req.reason, detail });
    }
    // The old links close before any opens: a board handed to the other table of a swap must
    // not be open twice.
    await Promise.all(changes.map((c) => tables.get(c.table)?.session.detach?.(`board changed: ${c.previous} → ${c.board}`) ?? Promise.resolve()));
    for (const c of changes) boards.find((b) => b.number === c.table)!.board = c.board;
    const reserved = [...busLines, ...boards.filter((b) => b.transport !== null && b.link === null && !isSerialNumber(b.board)).map((b) => b.board)];
    sources.reassign(
      changes.map((c) => ({ table: c.table, serial: isSerialNumber(c.board) ? c.board : null })),
      reserved,
    );
    for (const c of changes) if (!isSerialNumber(c.board)) tables.get(c.table)?.session.start();
    deps.changed();
    log.info('board changed', { by: req.by, reason: req.reason, changes });
    return ok({ changes });
  }
}
