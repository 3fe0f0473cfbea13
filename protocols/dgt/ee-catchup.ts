import { recogniseStart } from './start-position.ts';
import type { EepromEntry } from './eeprom.ts';
import { PIECE, isPieceCode, squareToField, type DgtField, type PieceCode } from './squares.ts';
import { err, ok, type Result } from '../result.ts';

/**
 * Catching up the field changes a host missed while its link to a board was down, from the board's
 * EEPROM log (EE_MOVES, dgt-protocol.md "EEPROM log"). Pure: no I/O, no clock.
 *
 * The board logs every change it sees, connected or not, so the changes after the last one the host
 * received are in the log. Field updates set a field to a piece, so replaying any stretch of the log
 * that starts early enough onto the host's board gives the board's current dump: the dump alone
 * cannot tell where the host stopped (a stretch that starts too early replays moves the host already
 * has; one that starts a repetition cycle too late skips moves yet still ends on the same board).
 * The host's last received updates locate it; the dump then verifies.
 */

export interface CatchUpAnchor {
  /** The board as the host last knew it (64 PieceCodes in DGT field order, 0 = a8). */
  board: readonly PieceCode[];
  /** The last field updates the host received before the link went away, oldest first (up to ~16). */
  recentFields: readonly { field: DgtField; piece: PieceCode }[];
  /** Time (`at`, same clock as BoardEvents) of the host's last event of that board. */
  lastAt: number;
}

/** One missed change, with what the log says about its timing. */
export interface CatchUpField {
  field: DgtField;
  piece: PieceCode;
  /** The log's bit 4: less than ~250 ms after the previous logged field update. */
  quick: boolean;
  /**
   * A clock time or a tag was logged between this change and the previous one: the lever was
   * pressed (a move ended) or the board was powered up / downloaded meanwhile, so time passed.
   */
  pause: boolean;
}

/**
 * A lever press the log recorded among the missed changes: the halted side and the time its clock
 * showed then (dgtbrd.h: on a lever change the halted side's time is written; whole seconds, as
 * the clock shows them). `before`: the index in `fields` of the first change after it
 * (`fields.length` when it came after the last one).
 */
export interface CatchUpPress {
  before: number;
  side: 'left' | 'right';
  ms: number;
  /**
   * The other side's time then, when the log tells it (that side's own last logged press, before
   * or during the outage): a halted clock keeps its time until its own side presses again.
   */
  otherMs: number | null;
}

/**
 * A whole board the log stated among the missed changes: the piece listing a board writes when it
 * powers up (power lost while away: what was moved meanwhile was never logged, only the board it
 * found). It replaces the board before `fields[before]`; the changes it implies are not in `fields`.
 */
export interface CatchUpBoard {
  before: number;
  board: PieceCode[];
}

/** What a catch-up found: the field changes the host missed, with the presses and power-up boards among them. */
export interface CaughtUp {
  fields: CatchUpField[];
  presses: CatchUpPress[];
  boards: CatchUpBoard[];
  how: 'anchored' | 'shortest';
  /** How many of the host's recent fields (newest first) matched the log at the anchor; 0 for 'shortest'. */
  matched: number;
  /**
   * The board powered up after the host last heard from it ('shortest' replays start after the
   * last listing): the clock was pressed while it was off, so the host's last reading is stale.
   */
  poweredUp: boolean;
}

/** The changes the host missed, or why the log cannot tell them. */
export type CatchUp = Result<CaughtUp, string>;

interface LoggedField extends CatchUpField {
  /**
   * Part of the piece listing a board writes after POWERUP / START_TAG: never sent to a host. The
   * listing states the whole board (squares not listed are empty), so it is read as the listed
   * pieces plus an emptying of every square not listed; the numbers say which listing.
   */
  listing: number | null;
  /** Lever presses logged between the previous field entry and this one. */
  presses: LoggedPress[];
}

interface LoggedPress {
  side: 'left' | 'right';
  ms: number;
}

/** The log's field entries, and the presses logged after the last of them. */
interface FieldLog {
  fields: LoggedField[];
  trailing: LoggedPress[];
}

/** Entries that say nothing about time passing (padding, and the end marker of a download). */
const SILENT_TAGS = new Set(['nop', 'nop-zero', 'eof']);

export function catchUpFromEeprom(anchor: CatchUpAnchor, entries: readonly EepromEntry[], dump: readonly PieceCode[]): CatchUp {
  const bad = checkBoard('host board', anchor.board) ?? checkBoard('dump', dump);
  if (bad) return err(bad);
  const { fields: log, trailing } = loggedFields(entries);
  const m = log.length;
  const verifies = verifiedStarts(anchor.board, log, dump);

  const recent = anchor.recentFields.filter((f) => isField(f.field) && isPieceCode(f.piece));
  let best: { at: number; matched: number; end: number } | null = null;
  for (let at = m - 1; at >= 0; at--) {
    // The anchor is the host's last received update: it is the entry at `at`, then earlier ones.
    const matched = tailMatch(log, at, recent);
    if (matched === 0) continue;
    // The log may run on past the dump: pieces moved while the log was asked for are logged too,
    // and reach the host live after the dump. The catch-up ends where the board equals the dump.
    const end = verifies[at + 1] ? m : reachesDump(anchor.board, log, at + 1, dump);
    if (end === null) continue;
    // Scanning from the newest: a tie keeps the later occurrence, a longer match replaces it.
    if (best === null || matched > best.matched) best = { at, matched, end };
  }
  if (best) {
    const kept = log.slice(0, best.end);
    const changes = changesAfter(anchor.board, kept, best.at + 1, best.end === m ? trailing : log[best.end]!.presses);
    return ok({ ...changes, how: 'anchored', matched: best.matched, poweredUp: changes.boards.length > 0 });
  }

  // Without the host's fields to place it, a power-up listing would explain any board at all (it
  // restates the whole board): the shortest replay starts after the last one.
  let afterListings = 0;
  for (let i = 0; i < m; i++) if (log[i]!.listing !== null) afterListings = i + 1;
  for (let start = m; start >= afterListings; start--) {
    if (verifies[start]) return ok({ ...changesAfter(anchor.board, log, start, trailing), how: 'shortest', matched: 0, poweredUp: afterListings > 0 });
  }
  if (m === 0) return err('the board log holds no field updates, and the board differs from the host board');
  const left = differingCount(replay(anchor.board, log, afterListings), dump);
  return err(
    `replaying the board log (${m} field updates) onto the host board leaves ${left} square(s) different from the dump: ` +
      'the changes the host missed are older than the log (overwritten) or were never logged',
  );
}

/**
 * How many of the host's recent fields, newest first, match the log ending at `at`. Piece listings
 * (after POWERUP / START_TAG) were never sent to the host, so the match may step over them.
 */
function tailMatch(log: readonly LoggedField[], at: number, recent: readonly { field: DgtField; piece: PieceCode }[]): number {
  let i = recent.length - 1;
  let j = at;
  if (i < 0 || log[j]!.listing !== null || !same(log[j]!, recent[i]!)) return 0;
  while (i >= 0 && j >= 0) {
    const entry = log[j]!;
    // A listed piece may look like an update the host did see (the knight it saw land on f6 is
    // listed on f6): it still is not one, so it never matches.
    if (entry.listing !== null) j--;
    else if (same(entry, recent[i]!)) {
      i--;
      j--;
    } else break;
  }
  return recent.length - 1 - i;
}

/**
 * verifies[s]: replaying log[s..] onto the host board gives the dump. Swept from the end: the
 * first write of a field met going backwards is that field's last write, and decides it.
 */
function verifiedStarts(board: readonly PieceCode[], log: readonly LoggedField[], dump: readonly PieceCode[]): boolean[] {
  const verifies = new Array<boolean>(log.length + 1).fill(false);
  const decided = new Array<boolean>(64).fill(false);
  let wrong = differingCount(board, dump);
  verifies[log.length] = wrong === 0;
  for (let s = log.length - 1; s >= 0; s--) {
    const { field, piece } = log[s]!;
    if (!decided[field]) {
      decided[field] = true;
      const before = board[field] !== dump[field];
      const after = piece !== dump[field];
      wrong += Number(after) - Number(before);
    }
    verifies[s] = wrong === 0;
  }
  return verifies;
}

/**
 * The log from `start` as changes to the host board: an update that sets a field to what it
 * already holds is dropped, its pause kept. A power-up listing that changes the board becomes a
 * whole-board statement (the moves made while the board was off were never logged: only the board
 * it found). Lever presses are kept with their place among the changes; each carries the other
 * side's time when the log tells it (that side's last press logged before it, the outage's or
 * earlier, but not from before a power-up listing: the presses made while the board was off were
 * not logged). `trailing`: presses logged after the last entry of `log`.
 */
function changesAfter(board: readonly PieceCode[], log: readonly LoggedField[], start: number, trailing: readonly LoggedPress[]): Pick<CaughtUp, 'fields' | 'presses' | 'boards'> {
  const current = board.slice();
  const fields: CatchUpField[] = [];
  const presses: CatchUpPress[] = [];
  const boards: CatchUpBoard[] = [];
  const lastMs: Record<'left' | 'right', number | null> = { left: null, right: null };
  // A listing: the board was off, the clock ran and was pressed meanwhile, and none of it was
  // logged, so no earlier press tells either side's time any more.
  const poweredUp = (): void => {
    lastMs.left = null;
    lastMs.right = null;
  };
  for (let i = 0; i < start; i++) {
    // Presses are logged before the entry they precede.
    for (const p of log[i]!.presses) lastMs[p.side] = p.ms;
    if (log[i]!.listing !== null) poweredUp();
  }
  const press = (p: LoggedPress): void => {
    presses.push({ before: fields.length, side: p.side, ms: p.ms, otherMs: lastMs[p.side === 'left' ? 'right' : 'left'] });
    lastMs[p.side] = p.ms;
  };
  let pause = false;
  for (let i = start; i < log.length; i++) {
    const e = log[i]!;
    pause ||= e.pause;
    e.presses.forEach(press);
    const listing = e.listing;
    if (listing !== null) {
      // The whole listing at once: the board the board found when it powered up.
      let j = i;
      while (j + 1 < log.length && log[j + 1]!.listing === listing) j++;
      let changed = false;
      for (let k = i; k <= j; k++) {
        const x = log[k]!;
        if (current[x.field] !== x.piece) changed = true;
        current[x.field] = x.piece;
      }
      if (changed) boards.push({ before: fields.length, board: current.slice() });
      poweredUp();
      i = j;
      continue;
    }
    if (current[e.field] === e.piece) continue;
    current[e.field] = e.piece;
    fields.push({ field: e.field, piece: e.piece, quick: e.quick, pause });
    pause = false;
  }
  trailing.forEach(press);
  return { fields, presses, boards };
}

function loggedFields(entries: readonly EepromEntry[]): FieldLog {
  const out: LoggedField[] = [];
  let pause = false;
  let presses: LoggedPress[] = [];
  let listings = 0;
  // The listing under way: which one, its last listed field, and the squares it has named.
  let listing: { id: number; after: number; named: boolean[]; first: number } | null = null as { id: number; after: number; named: boolean[]; first: number } | null;
  const endListing = (): void => {
    if (!listing) return;
    // Squares a listing does not name are empty: said explicitly, before the pieces it named, so
    // a replay across a power-up gives the board the board found.
    const empties: LoggedField[] = [];
    for (let f = 0; f < 64; f++) if (!listing.named[f]) empties.push({ field: f, piece: PIECE.EMPTY, quick: false, pause: false, listing: listing.id, presses: [] });
    const firstListed = out[listing.first];
    // The pause (and presses) before the listing move to its first entry.
    if (empties.length > 0 && firstListed) {
      empties[0] = { ...empties[0]!, pause: firstListed.pause, presses: firstListed.presses };
      out[listing.first] = { ...firstListed, pause: false, presses: [] };
    } else if (empties.length > 0) {
      empties[0] = { ...empties[0]!, pause: true };
    }
    out.splice(listing.first, 0, ...empties);
    listing = null;
  };
  for (const e of entries) {
    if (e.type === 'field-update') {
      // dgt-protocol.md: the listing names every piece found, in field order; the first lift, a
      // repeated or lower field, or any other entry ends it.
      if (listing && e.field > listing.after && e.piece !== PIECE.EMPTY) {
        listing.after = e.field;
        listing.named[e.field] = true;
        out.push({ field: e.field, piece: e.piece, quick: e.quick, pause, listing: listing.id, presses });
      } else {
        endListing();
        out.push({ field: e.field, piece: e.piece, quick: e.quick, pause, listing: null, presses });
      }
      pause = false;
      presses = [];
      continue;
    }
    if (e.type === 'tag' && (e.tag === 'powerup' || e.tag === 'start-tag')) {
      endListing();
      listing = { id: ++listings, after: -1, named: new Array<boolean>(64).fill(false), first: out.length };
      pause = true;
      continue;
    }
    if (e.type === 'tag' && SILENT_TAGS.has(e.tag)) continue;
    if (e.type === 'unknown') continue;
    // A clock time is written when the lever is pressed (a move ended); other tags mark a board
    // event (position recognised, log downloaded): either way, not the middle of a hand movement.
    if (e.type === 'clock') presses.push({ side: e.side, ms: ((e.hours * 60 + e.minutes) * 60 + e.seconds) * 1000 });
    pause = true;
    endListing();
  }
  endListing();
  return { fields: out, trailing: presses };
}

/** The first end (exclusive) at which replaying log[start..end) onto `board` gives `dump`; null when none does. */
function reachesDump(board: readonly PieceCode[], log: readonly LoggedField[], start: number, dump: readonly PieceCode[]): number | null {
  const b = board.slice();
  let wrong = differingCount(b, dump);
  if (wrong === 0) return start;
  for (let i = start; i < log.length; i++) {
    const { field, piece } = log[i]!;
    const was = b[field] === dump[field];
    b[field] = piece;
    const now = b[field] === dump[field];
    if (was !== now) wrong += now ? -1 : 1;
    if (wrong === 0) return i + 1;
  }
  return null;
}

function replay(board: readonly PieceCode[], log: readonly LoggedField[], start: number): PieceCode[] {
  const out = board.slice();
  for (let i = start; i < log.length; i++) out[log[i]!.field] = log[i]!.piece;
  return out;
}

function same(a: { field: DgtField; piece: PieceCode }, b: { field: DgtField; piece: PieceCode }): boolean {
  return a.field === b.field && a.piece === b.piece;
}

function differingCount(a: readonly PieceCode[], b: readonly PieceCode[]): number {
  let n = 0;
  for (let f = 0; f < 64; f++) if (a[f] !== b[f]) n++;
  return n;
}

function isField(f: number): boolean {
  return Number.isInteger(f) && f >= 0 && f <= 63;
}

function checkBoard(name: string, board: readonly number[]): string | null {
  if (board.length !== 64) return `the ${name} has ${board.length} squares, not 64`;
  const i = board.findIndex((p) => !isPieceCode(p));
  return i < 0 ? null : `the ${name} holds ${String(board[i])} on field ${i}, not a piece code`;
}

/** Gaps the engine reads (daemon/reconstruction/engine.ts); see `spreadCatchUpTimes`. */
export const CATCH_UP_QUICK_GAP_MS = 20;
export const CATCH_UP_REST_GAP_MS = 300;

/**
 * Event times for caught-up changes, strictly increasing inside (lastAt, dumpAt). The log has no
 * times, only bit 4 ("< ~250 ms since the previous update") and the clock/tag entries between
 * updates. The engine reads two things from event times: a piece that rested >= 250 ms
 * (RELEASE_MS) on a square before moving on was released there (Art 4.7), so shorter rests are a
 * slide; and changes stamped with the very same time are one scan (a knocked piece, a buffered
 * burst), never a takeback. Hence:
 * - a quick change comes CATCH_UP_QUICK_GAP_MS after the previous one: a slide or a fast hand stays
 *   a slide even over several squares (twelve quick steps still rest < 250 ms), yet no two changes
 *   share a time (the log cannot tell a same-scan pair from a fast hand, and a hand is likelier);
 * - any other change comes at least CATCH_UP_REST_GAP_MS later (a rest, as the log says);
 * - the time left over is shared out equally between the pauses (the gaps after a lever press or
 *   a tag, and the gaps at both ends of the outage), so moves spread over the outage as played.
 * When the interval is too short for those gaps, every gap shrinks by the same factor. When the
 * interval is empty or reversed (the host's clock went back), the changes end just before dumpAt.
 */
export function spreadCatchUpTimes(fields: readonly Pick<CatchUpField, 'quick' | 'pause'>[], lastAt: number, dumpAt: number): number[] {
  const n = fields.length;
  if (n === 0) return [];
  const gaps = catchUpGaps(fields);
  const base = gaps.reduce((a, b) => a + b, 0);
  const span = dumpAt - lastAt;
  let from = lastAt;
  if (!(span > 0)) {
    from = dumpAt - base;
  } else if (span < base) {
    for (let i = 0; i <= n; i++) gaps[i] = (gaps[i]! * span) / base;
  } else {
    const pauses: number[] = [0, n];
    for (let i = 1; i < n; i++) if (fields[i]!.pause) pauses.push(i);
    // No lever press logged (no clock at the table): every rest may be a pause.
    if (pauses.length === 2) for (let i = 1; i < n; i++) if (gaps[i] === CATCH_UP_REST_GAP_MS) pauses.push(i);
    const extra = span - base;
    const share = Math.floor(extra / pauses.length);
    for (const i of pauses) gaps[i]! += share;
    gaps[n]! += extra - share * pauses.length;
  }
  const times: number[] = [];
  let t = from;
  for (let i = 0; i < n; i++) {
    t += gaps[i]!;
    times.push(t);
  }
  return times;
}

/** gaps[i] precedes fields[i]; gaps[n] runs from the last change to the dump. */
function catchUpGaps(fields: readonly Pick<CatchUpField, 'quick' | 'pause'>[]): number[] {
  const gaps = fields.map((f) => (f.quick && !f.pause ? CATCH_UP_QUICK_GAP_MS : CATCH_UP_REST_GAP_MS));
  gaps.push(CATCH_UP_REST_GAP_MS);
  return gaps;
}

/**
 * Times for a catch-up from the start (`catchUpFromStart`): the host has no earlier event of the
 * board, so nothing bounds the stretch from below. The changes end just before the dump with the
 * gaps of `spreadCatchUpTimes` (a quick change 20 ms after the previous one, any other 300 ms, and
 * 300 ms from the last change to the dump), counted back from `dumpAt`; the start position comes
 * one gap before the first change (300 ms unless the log marks that change quick).
 */
export function fromStartCatchUpTimes(fields: readonly Pick<CatchUpField, 'quick' | 'pause'>[], dumpAt: number): { startAt: number; times: number[] } {
  const gaps = catchUpGaps(fields);
  let t = dumpAt - gaps.reduce((a, b) => a + b, 0);
  const startAt = t;
  const times: number[] = [];
  for (let i = 0; i < fields.length; i++) {
    t += gaps[i]!;
    times.push(t);
  }
  return { startAt, times };
}

// ---- a board the host has never seen ----

/** The game on a board the host never saw, from the last start position its log shows. */
export interface StartFound {
  /** The start position the board last showed (64 PieceCodes in DGT field order, 0 = a8). */
  start: PieceCode[];
  /** Scharnagl number of the start (518 = standard). */
  chess960Number: number;
  /** The start stands turned round on the board (White on the a8 side of its numbering). */
  reversed: boolean;
  /** The changes from that start to the dump, oldest first. */
  fields: CatchUpField[];
  /**
   * What the replay that reached the start began from: a power-up / START_TAG piece listing, or
   * (when the log no longer holds one) a BEGINPOS / BEGINPOS_ROT / EMPTYBOARD tag.
   */
  base: 'listing' | 'tag';
  /** Field updates logged after the board matched the dump: changes made while the log was read. */
  after: number;
}

/** The game from its last start, or why the log cannot tell it. */
export type CatchUpFromStart = Result<StartFound, string>;

/** A whole board the log states: a piece listing, or a tag naming a known position. */
type BoardStatement = { kind: 'board'; board: PieceCode[]; pause: boolean; from: 'listing' | 'tag' };
type LogOp = ({ kind: 'field' } & CatchUpField) | BoardStatement;

/**
 * The game on a board the host has never seen (no anchor), from its EEPROM log: the last time the
 * board showed a start position (standard or Chess960, either orientation), and the changes from
 * it to `dump`. Pure: no I/O, no clock.
 *
 * The log is replayed forwards. A replay needs a known board to start from: a piece listing (after
 * POWERUP / START_TAG the board lists every piece it finds, in field order: squares not listed are
 * empty), else a BEGINPOS / BEGINPOS_ROT / EMPTYBOARD tag, which the board writes when it sees that
 * position (dgt-protocol.md, "EEPROM log"). Once the board is known, tags are not needed (the replay
 * sees the start itself, Chess960 included, which the board tags only as FOURROWS) and a later
 * listing (a power-up mid-game) replaces the board: what differs from the replay was moved while
 * the board was off, and becomes changes. After every entry the replayed board is checked for a
 * start position and compared with the dump; the answer is the last start before the last point
 * where the board equals the dump (a later start, or changes after that point, are the board's
 * life while the log was being read). Verified by construction: replaying the changes onto the
 * start gives exactly the dump.
 *
 * One game can show its start twice: without a capture, a pawn move or castling, only knights can
 * go out and come back (1. Nf3 Nf6 2. Ng1 Ng8). A stretch between two equal starts in which every
 * piece put down is a knight, or the start's own piece on its own square (an adjustment), is such
 * a game, and the earlier start is taken: the moves before the return are kept.
 */
export function catchUpFromStart(entries: readonly EepromEntry[], dump: readonly PieceCode[]): CatchUpFromStart {
  const bad = checkBoard('dump', dump);
  if (bad) return err(bad);
  const ops = logOps(entries);

  let board: PieceCode[] | null = null;
  let base: 'listing' | 'tag' = 'listing';
  let wrong = 0;
  /** Every start the replay showed, oldest first (op index, board, base). */
  const starts: { at: number; board: PieceCode[]; base: 'listing' | 'tag' }[] = [];
  let found: { starts: number; end: number } | null = null;
  const set = (field: number, piece: PieceCode): void => {
    if (!board || board[field] === piece) return;
    wrong += Number(piece !== dump[field]) - Number(board[field] !== dump[field]);
    board[field] = piece;
  };
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (op.kind === 'field') set(op.field, op.piece);
    else if (board === null) {
      board = op.board.slice();
      base = op.from;
      wrong = differingCount(board, dump);
    } else if (op.from === 'listing') for (let f = 0; f < 64; f++) set(f, op.board[f]!);
    if (!board) continue;
    if (startOf(board)) starts.push({ at: i, board: board.slice(), base });
    if (wrong === 0 && starts.length > 0) found = { starts: starts.length, end: i };
  }
  if (found === null) {
    if (board === null) return err('the board log holds neither a piece listing nor a start-position tag to replay from (overwritten, or never written)');
    if (starts.length === 0) return err('the board log shows no start position: the game began before the oldest entry the board kept');
    return err(`replaying the board log from its last start position never gives the dump (${differingCount(board, dump)} square(s) differ at the end): updates were lost or the log is garbled`);
  }
  let k = found.starts - 1;
  while (k > 0 && sameGameReturn(ops, starts[k - 1]!, starts[k]!)) k--;
  const start = starts[k]!;
  const fields = changesFrom(start.board, ops, start.at + 1, found.end + 1);
  const after = ops.slice(found.end + 1).filter((o) => o.kind === 'field').length;
  const rec = startOf(start.board)!;
  return ok({ start: start.board, chess960Number: rec.chess960Number, reversed: rec.reversed, fields, base: start.base, after });
}

/**
 * The later start is the earlier one come back within one game: same arrangement, and every piece
 * put down in between was a knight or the start's own piece back on its own square.
 */
function sameGameReturn(ops: readonly LogOp[], earlier: { at: number; board: PieceCode[] }, later: { at: number; board: PieceCode[] }): boolean {
  if (differingCount(earlier.board, later.board) !== 0) return false;
  const home = later.board;
  const knight = (p: PieceCode): boolean => p === PIECE.WKNIGHT || p === PIECE.BKNIGHT;
  for (let i = earlier.at + 1; i <= later.at; i++) {
    const op = ops[i]!;
    if (op.kind === 'board') {
      if (op.from === 'listing') return false; // a power-up between: no telling what happened
      continue; // a tag on a known board changes nothing
    }
    if (op.piece !== PIECE.EMPTY && !knight(op.piece) && op.piece !== home[op.field]) return false;
  }
  return true;
}

/** The log from `from` to `to` (exclusive) as changes to `board`, pauses kept across dropped entries. */
function changesFrom(startBoard: readonly PieceCode[], ops: readonly LogOp[], from: number, to: number): CatchUpField[] {
  const board = startBoard.slice();
  const out: CatchUpField[] = [];
  let pause = false;
  const change = (field: DgtField, piece: PieceCode, quick: boolean): void => {
    if (board[field] === piece) return;
    board[field] = piece;
    out.push({ field, piece, quick, pause });
    pause = false;
  };
  for (let i = from; i < to; i++) {
    const op = ops[i]!;
    pause ||= op.pause;
    if (op.kind === 'field') change(op.field, op.piece, op.quick);
    else if (op.from === 'listing') {
      // Moved while the board was off: lifts first, then placements, as a hand would.
      for (let f = 0; f < 64; f++) if (op.board[f] === PIECE.EMPTY) change(f, PIECE.EMPTY, false);
      for (let f = 0; f < 64; f++) if (op.board[f] !== PIECE.EMPTY) change(f, op.board[f]!, false);
    }
  }
  return out;
}

/** Field updates and whole-board statements, in log order. */
function logOps(entries: readonly EepromEntry[]): LogOp[] {
  const out: LogOp[] = [];
  let pause = false;
  let listing: { board: PieceCode[]; after: number } | null = null;
  const endListing = (): void => {
    if (!listing) return;
    out.push({ kind: 'board', board: listing.board, pause: true, from: 'listing' });
    listing = null;
  };
  for (const e of entries) {
    if (e.type === 'field-update') {
      // dgt-protocol.md: the listing names every piece found, in field order; the first lift, a
      // repeated or lower field, or any other entry ends it.
      if (listing && e.field > listing.after && e.piece !== PIECE.EMPTY) {
        listing.board[e.field] = e.piece;
        listing.after = e.field;
        continue;
      }
      endListing();
      out.push({ kind: 'field', field: e.field, piece: e.piece, quick: e.quick, pause });
      pause = false;
      continue;
    }
    if (e.type === 'tag' && SILENT_TAGS.has(e.tag)) continue;
    if (e.type === 'unknown') continue;
    endListing();
    pause = true;
    if (e.type !== 'tag') continue;
    if (e.tag === 'powerup' || e.tag === 'start-tag') listing = { board: new Array<PieceCode>(64).fill(PIECE.EMPTY), after: -1 };
    else if (e.tag === 'beginpos') out.push({ kind: 'board', board: START_BOARD.slice(), pause: true, from: 'tag' });
    else if (e.tag === 'beginpos-rot') out.push({ kind: 'board', board: START_BOARD.slice().reverse(), pause: true, from: 'tag' });
    else if (e.tag === 'emptyboard') out.push({ kind: 'board', board: new Array<PieceCode>(64).fill(PIECE.EMPTY), pause: true, from: 'tag' });
  }
  endListing();
  return out;
}

/** The standard start as the board numbers it (field 0 = a8), what a BEGINPOS tag states. */
const START_BOARD: readonly PieceCode[] = (() => {
  const back = [PIECE.WROOK, PIECE.WKNIGHT, PIECE.WBISHOP, PIECE.WQUEEN, PIECE.WKING, PIECE.WBISHOP, PIECE.WKNIGHT, PIECE.WROOK];
  const board = new Array<PieceCode>(64).fill(PIECE.EMPTY);
  for (let f = 0; f < 8; f++) {
    board[f] = (back[f]! + 6) as PieceCode;
    board[8 + f] = PIECE.BPAWN;
    board[48 + f] = PIECE.WPAWN;
    board[56 + f] = back[f]!;
  }
  return board;
})();

/**
 * The start position a board in DGT field order shows, standard or Chess960, as set up or turned
 * round (the engine recognises both: protocols/rules/start-position.ts).
 */
export function startOf(board: readonly PieceCode[]): { chess960Number: number; reversed: boolean } | null {
  if (board.length !== 64) return null;
  for (const reversed of [false, true]) {
    const start = recogniseStart((s) => board[squareToField(reversed ? 63 - s : s)]!);
    if (start) return { chess960Number: start.chess960Number, reversed };
  }
  return null;
}
