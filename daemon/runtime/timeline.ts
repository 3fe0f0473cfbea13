import { decodeAll } from '../../protocols/dgt/decoder.ts';
import { codeToPiece, fieldToSquare, type PieceCode } from '../../protocols/dgt/squares.ts';
import type { Timeline, TimelineStep } from '../../protocols/feed/timeline.ts';
import type { Store } from '../store/store.ts';
import type { BoardcastConfig } from '../tournament/config.ts';
import { makeSquare } from 'chessops/util';
import { parseFen } from 'chessops/fen';
import { describeCommand, MoveBook, type ReplayLabel } from './replay-labels.ts';
import { amendmentGame, hallCommandOf, undoneAmendments } from './arbiter.ts';
import type { TimelineAmendment } from '../../protocols/feed/timeline.ts';
import type { AmendmentRow } from '../store/types.ts';

export type { Timeline, TimelineStep };
import { hallRouter, loadGameSettings, newLiveSource, replayTable, storedHallPairings } from './store-replay.ts';

/** What DGT message a frame with no board event holds ("undecoded" when it decodes to none). */
function messageOf(raw: Uint8Array): string {
  const frame = decodeAll(raw).frames[0];
  return frame ? frame.message.type : 'undecoded';
}

const PIECE_CHARS: Record<string, string> = { pawn: 'p', knight: 'n', bishop: 'b', rook: 'r', queen: 'q', king: 'k' };

/** The sensors' board (DGT field order, 0 = a8) as a FEN placement, in the board's own orientation. */
function sensorsPlacement(board: readonly PieceCode[]): string {
  const rows: string[] = [];
  for (let r = 0; r < 8; r++) {
    let row = '';
    let empty = 0;
    for (let f = 0; f < 8; f++) {
      const p = codeToPiece(board[r * 8 + f] ?? 0);
      if (!p) {
        empty++;
        continue;
      }
      if (empty) row += String(empty);
      empty = 0;
      const ch = PIECE_CHARS[p.role]!;
      row += p.color === 'white' ? ch.toUpperCase() : ch;
    }
    rows.push(empty ? row + String(empty) : row);
  }
  return rows.join('/');
}

/**
 * Squares where sensors and engine differ. A board set up the other way round (White on the
 * board's 8th rank) reads mirrored; the orientation with fewer differences is the board's.
 */
function differences(board: readonly PieceCode[], fen: string): string[] {
  const setup = parseFen(fen);
  if (setup.isErr) return [];
  const held = setup.value.board;
  const compare = (mirrored: boolean): string[] => {
    const out: string[] = [];
    for (let field = 0; field < 64; field++) {
      const square = fieldToSquare(field);
      const engineSquare = mirrored ? 63 - square : square;
      const seen = codeToPiece(board[field] ?? 0);
      const want = held.get(engineSquare);
      if (seen?.role !== want?.role || seen?.color !== want?.color) out.push(makeSquare(engineSquare));
    }
    return out;
  };
  const upright = compare(false);
  if (upright.length === 0) return upright;
  const reversed = compare(true);
  return reversed.length < upright.length ? reversed.sort() : upright.sort();
}

/**
 * A game's whole record for the arbiter: every stored raw event of its table while the game was
 * the table's, and every arbiter decision about it, each with what the engine made of it, the
 * sensors' board, the engine's position, where they differ, the clock and the moves so far. Built
 * by replaying the store (the same path the daemon's start-up takes), so it shows what the
 * broadcast showed. Undefined for a game the store does not hold.
 */
export function gameTimeline(store: Store, config: BoardcastConfig, gameId: string): Timeline | undefined {
  const m = /^r(\d+)-t(\d+)$/.exec(gameId);
  if (!m) return undefined;
  const table = Number(m[2]);
  const live = newLiveSource(config, store);
  const router = hallRouter(config, live, storedHallPairings(store, config));
  loadGameSettings(store, router);
  const book = new MoveBook();
  const steps: TimelineStep[] = [];
  const incidents: Timeline['incidents'] = [];
  let clock: TimelineStep['clock'] = null;
  for (const s of replayTable(store, router, table)) {
    const produced = s.changes.map((c) => book.label(c)).filter((x): x is ReplayLabel => x !== null);
    if (s.kind === 'event' && s.event.event?.type === 'clock') {
      const c = s.event.event;
      clock = { whiteMs: c.whiteMs, blackMs: c.blackMs, running: c.running, whiteFlag: c.whiteFlag, blackFlag: c.blackFlag };
    }
    const mine = s.kind === 'event' ? s.gameId === gameId : s.command.kind === 'game' ? s.command.gameId === gameId : router.track(table).gameId === gameId;
    if (!mine) continue;
    const g = live.game(gameId);
    if (!g) continue;
    const board = router.track(table).board;
    const index = steps.length;
    for (const c of s.changes) if (c.kind === 'incident' && c.gameId === gameId) incidents.push({ ...c.incident, step: index });
    steps.push({
      index,
      kind: s.kind === 'event' ? 'event' : 'arbiter',
      rawEventId: s.kind === 'event' ? s.event.id : s.afterRawEventId,
      wallMs: s.kind === 'event' ? s.event.wallMs : null,
      event: s.kind === 'event' ? s.event.event : null,
      raw: s.kind === 'event' ? Buffer.from(s.event.raw).toString('hex') : '',
      message: s.kind === 'event' && !s.event.event && s.event.raw.length > 0 ? messageOf(s.event.raw) : null,
      command: s.kind === 'command' ? { kind: s.command.kind, text: describeCommand(s.command) } : null,
      produced,
      sensors: sensorsPlacement(board),
      engine: { fen: g.fen, ply: g.ply, status: g.status, result: g.result },
      differ: differences(board, g.fen),
      clock,
      moves: g.moves.map((mv) => mv.san),
    });
  }
  const g = live.game(gameId);
  if (!g) return undefined;
  return {
    amendments: timelineAmendments(store, gameId, steps),
    gameId,
    round: g.round,
    table,
    rules: { edition: config.rules.edition, category: config.rules.category, chess960: config.rules.chess960 },
    steps,
    incidents,
  };
}

/** What an audit-trail row decided, in words. */
function amendmentText(row: AmendmentRow): string {
  const command = hallCommandOf(row);
  if (command) return describeCommand(command.command).replace(/^[^:]*: /, '');
  const d = row.detail as { kind?: unknown; fen?: unknown; undoes?: unknown } | null;
  if (d?.kind === 'swap-colours') return "the players' colours swapped";
  if (d?.kind === 'chess960') return `Chess960 from ${String(d.fen)}`;
  if (d?.kind === 'undo') return `amendment #${String(d.undoes)} undone`;
  return row.action;
}

/**
 * The game's audit trail for the replay: every row about it, with who, when, why, whether an undo
 * in force took it back, and the step it was taken at (from its place in the table's raw events).
 */
function timelineAmendments(store: Store, gameId: string, steps: readonly TimelineStep[]): TimelineAmendment[] {
  const rows = store.amendments();
  const undone = undoneAmendments(rows);
  const undoneBy = new Map<number, number>();
  for (const r of rows) {
    const d = r.detail as { kind?: unknown; undoes?: unknown } | null;
    if (d?.kind === 'undo' && typeof d.undoes === 'number') undoneBy.set(d.undoes, r.id);
  }
  return rows
    .filter((r) => amendmentGame(r)?.gameId === gameId)
    .map((r) => {
      const after = (r.detail as { afterRawEventId?: unknown } | null)?.afterRawEventId;
      let step: number | null = null;
      if (typeof after === 'number') for (const s of steps) if (s.rawEventId <= after) step = s.index;
      return {
        id: r.id,
        action: r.action,
        text: amendmentText(r),
        by: r.arbiter,
        at: r.wallMs,
        reason: r.reason,
        undone: undone.has(r.id),
        undoneBy: undone.has(r.id) ? (undoneBy.get(r.id) ?? null) : null,
        step,
      };
    });
}
