import { msToHms } from '../../../protocols/dgt/clock.ts';
import { EE_TAG_CODES, encodeEeprom } from '../../../protocols/dgt/eeprom.ts';
import { PIECE, type PieceCode } from '../../../protocols/dgt/squares.ts';
import { standardStartBoard } from './tabletop.ts';

/** One-byte EEPROM tags (dgtbrd.h), by their header names; the codes are the codec's. */
export const EE = {
  POWERUP: EE_TAG_CODES.powerup,
  EOF: EE_TAG_CODES.eof,
  FOURROWS: EE_TAG_CODES.fourrows,
  EMPTYBOARD: EE_TAG_CODES.emptyboard,
  DOWNLOADED: EE_TAG_CODES.downloaded,
  BEGINPOS: EE_TAG_CODES.beginpos,
  BEGINPOS_ROT: EE_TAG_CODES['beginpos-rot'],
  START_TAG: EE_TAG_CODES['start-tag'],
  WATCHDOG: EE_TAG_CODES.watchdog,
  NOP: EE_TAG_CODES.nop,
} as const;

/** The board's cyclic log holds 0x1f00 bytes; older entries are overwritten. */
export const EEPROM_SIZE = 0x1f00;

type Situation = 'begin' | 'begin-rot' | 'fourrows' | 'empty';

const START = standardStartBoard();
const START_ROT = START.slice().reverse();

function situationOf(board: PieceCode[]): Situation | null {
  if (board.every((p, i) => p === START[i])) return 'begin';
  if (board.every((p, i) => p === START_ROT[i])) return 'begin-rot';
  if (board.every((p) => p === PIECE.EMPTY)) return 'empty';
  // dgtbrd.h FOURROWS: the four outer rows full but not a normal start (a Chess960 set-up); the
  // header's wording ("16 figures in the A, B, G and H row") is ambiguous, this is our reading.
  const fourRows = board.every((p, i) => {
    const row = i >> 3;
    const outer = row < 2 || row > 5;
    return outer ? p !== PIECE.EMPTY : p === PIECE.EMPTY;
  });
  if (fourRows) return 'fourrows';
  return null;
}

const TAG: Record<Situation, number> = {
  begin: EE.BEGINPOS,
  'begin-rot': EE.BEGINPOS_ROT,
  fourrows: EE.FOURROWS,
  empty: EE.EMPTYBOARD,
};

/**
 * The board's EEPROM event log: 2-byte field updates, 3-byte clock times, 1-byte tags, in the order
 * the board writes them. Positions are absolute byte counts since the log was created (so a reader
 * can keep a pointer across the cyclic overwrite).
 */
export class EepromLog {
  private bytes: number[] = [];
  /** Absolute position of bytes[0]. */
  private base = 0;
  private lastUpdateAt = Number.NEGATIVE_INFINITY;
  /** The situation last tagged, and the board then, for the "more than two pieces out" hysteresis. */
  private tagged: { situation: Situation; board: PieceCode[] } | null = null;

  get end(): number {
    return this.base + this.bytes.length;
  }

  /** Bytes from absolute position `from` (clamped to what is still kept) to the end. */
  since(from: number): number[] {
    return this.bytes.slice(Math.max(0, from - this.base));
  }

  between(from: number, to: number): number[] {
    return this.bytes.slice(Math.max(0, from - this.base), Math.max(0, to - this.base));
  }

  /** Absolute position of the last occurrence of `tag` as an entry start, or -1. */
  lastTag(tag: number): number {
    let found = -1;
    this.walk((pos, len) => {
      if (len === 1 && this.bytes[pos - this.base] === tag) found = pos;
    });
    return found;
  }

  all(): number[] {
    return this.bytes.slice();
  }

  /** Power-on: three NOPs, POWERUP, every piece found (in field order), then the position tag. */
  powerUp(board: PieceCode[], at: number): void {
    this.write([EE.NOP, EE.NOP, EE.NOP, EE.POWERUP]);
    this.tagged = null;
    board.forEach((p, i) => {
      if (p !== PIECE.EMPTY) this.fieldChange(i, p, at, false);
    });
    this.checkSituation(board);
  }

  /** A change the board saw; `board` is the board after it. */
  field(field: number, piece: PieceCode, at: number, board: PieceCode[]): void {
    this.fieldChange(field, piece, at, true);
    this.checkSituation(board);
  }

  /** The halted side's time, written when the lever changes (dgtbrd.h: times per side, not colour). */
  clock(side: 'left' | 'right', ms: number): void {
    const { hours, minutes, seconds } = msToHms(ms);
    this.write(encodeEeprom([{ type: 'clock', side, hours, minutes, seconds }]));
  }

  tag(tag: number): void {
    this.write([tag]);
  }

  /** SET_START_GAME: START_TAG, then the whole position, so a replay from the tag needs nothing older. */
  startGame(board: PieceCode[], at: number): void {
    this.write([EE.START_TAG]);
    board.forEach((p, i) => {
      if (p !== PIECE.EMPTY) this.fieldChange(i, p, at, false);
    });
  }

  private fieldChange(field: number, piece: PieceCode, at: number, timed: boolean): void {
    // Bit 4: less than ~250 ms since the previous update tag (dgtbrd.h).
    const quick = timed && at - this.lastUpdateAt < 250;
    this.write(encodeEeprom([{ type: 'field-update', piece, field, quick }]));
    this.lastUpdateAt = at;
  }

  private checkSituation(board: PieceCode[]): void {
    if (this.tagged) {
      const was = this.tagged.board;
      let out = 0;
      for (let i = 0; i < 64; i++) if (board[i] !== was[i]) out++;
      if (out <= 2) return; // hysteresis: one or two flashing pieces do not re-arm the search
      this.tagged = null;
    }
    const s = situationOf(board);
    if (s === null) return;
    this.write([TAG[s]]);
    this.tagged = { situation: s, board: board.slice() };
  }

  private write(entry: ArrayLike<number>): void {
    for (let i = 0; i < entry.length; i++) this.bytes.push(entry[i]!);
    const over = this.bytes.length - EEPROM_SIZE;
    if (over > 0) {
      this.bytes.splice(0, over);
      this.base += over;
    }
  }

  /** Entry boundaries, for tag search; bytes cut in half by the overwrite are skipped as 1-byte entries. */
  private walk(visit: (pos: number, len: number) => void): void {
    let i = 0;
    while (i < this.bytes.length) {
      const b = this.bytes[i]!;
      const len = b >= 0x40 && b <= 0x5f ? 2 : (b >= 0x60 && b <= 0x69) || (b >= 0x70 && b <= 0x79) ? 3 : 1;
      visit(this.base + i, len);
      i += len;
    }
  }
}
