import type { Color } from 'chessops';
import type { DgtField, PieceCode } from './dgt/squares.ts';

/**
 * What one table's board and clock report, decoded and with the clock's physical sides already
 * resolved to colours. This is the input of the reconstruction engine and what the store keeps
 * (beside the raw bytes). `at` is monotonic milliseconds of the table's session (event time): the
 * engine has no clock of its own.
 */
export type BoardEvent =
  /** One square changed: a piece appeared (piece ≠ EMPTY) or the square emptied. */
  | {
      type: 'field';
      at: number;
      field: DgtField;
      piece: PieceCode;
      /** Read from the board's log (an EEPROM catch-up): the order is the board's, the time is not. */
      logged?: true;
    }
  /** A full scan of the board: 64 piece codes indexed by DgtField. */
  | { type: 'dump'; at: number; board: PieceCode[] }
  /** A clock reading. `running` is whose clock runs (null: stopped or paused). */
  | {
      type: 'clock';
      at: number;
      whiteMs: number;
      blackMs: number;
      running: Color | null;
      whiteFlag: boolean;
      blackFlag: boolean;
      /**
       * Read from the board's log of lever presses (an EEPROM catch-up): the clock as it stood at
       * the press itself, although it arrives later.
       */
      logged?: true;
      /**
       * The press is real, but one side's time is not known: a press logged after the board
       * powered up, whose other side last pressed while the board was off (unlogged). That side's
       * time here is the last one known, not the press's; the reading is no move's reading.
       */
      partial?: true;
    }
  /** The board link went away or came back (the session re-dumps after a reconnect). */
  | { type: 'connection'; at: number; connected: boolean };

export type BoardEventType = BoardEvent['type'];
