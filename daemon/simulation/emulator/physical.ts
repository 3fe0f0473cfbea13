import type { Color } from 'chessops';
import type { DgtField, PieceCode } from '../../../protocols/dgt/squares.ts';

/**
 * A physical thing a person does at a table, with its time in ms from the start of the script.
 * The emulator turns these into what a real DGT board and clock would report; the noisy-player
 * generator writes them from a game score. Scan-order effects (a destination seen occupied before
 * the source is seen empty) are expressed by the order and timing of the actions themselves.
 */
export type PhysicalAction =
  /** A piece leaves a square: the board will see it empty. */
  | { kind: 'lift'; at: number; field: DgtField }
  /** A piece (or result piece) is put on a square: the board will see it there. */
  | { kind: 'place'; at: number; field: DgtField; piece: PieceCode }
  /** A piece is knocked over: it leaves `field` and, lying down, may be seen on `onto`. */
  | { kind: 'knock'; at: number; field: DgtField; onto?: DgtField }
  /** The player of this colour presses the clock lever: their clock stops, the other starts. */
  | { kind: 'press'; at: number; by: Color }
  /**
   * Someone sets the clock by hand: `ms` is added to `by`'s time (negative takes time away), and the
   * side that ran runs on. An arbiter giving a player two minutes after the opponent's illegal
   * move (Article 7.5.5; one minute in rapid and blitz, A.4.2, B.3), or putting right a clock set
   * wrong. No lever moves: the board logs nothing, and reports the new times in its next clock
   * message when it is there to.
   */
  | { kind: 'clock-adjust'; at: number; by: Color; ms: number }
  /**
   * The board's USB cable is pulled / plugged back in. The cable carries the board's power as well
   * as its link: while out, the board is off (it sees and logs nothing; the clock runs on its own
   * batteries), and plugging it in powers it up (mode IDLE, a POWERUP listing in its log).
   */
  | { kind: 'unplug'; at: number }
  | { kind: 'plug'; at: number }
  /**
   * The serial link drops / comes back while the board keeps its power (a host restart, a Bluetooth
   * link lost, an adapter with its own supply): the board keeps its mode, scans and logs every
   * change and lever press meanwhile; only the bytes on the line are lost.
   */
  | { kind: 'link-down'; at: number }
  | { kind: 'link-up'; at: number }
  /**
   * The board loses / regains power while its serial link stays open (a loose power lead, a serial
   * adapter that keeps its port): nothing is logged while it is off, and it powers up IDLE (no
   * field updates, no clock times) with a POWERUP listing in its log; the host sees no close.
   */
  | { kind: 'power-off'; at: number }
  | { kind: 'power-on'; at: number }
  /**
   * The clock's cable is pulled from the board / put back (kicked loose, or unplugged to change
   * the clock's batteries): the clock runs on its own batteries and its lever works, but the board
   * reads no clock meanwhile (its clock messages say none is attached, which hosts drop) and logs
   * no press.
   */
  | { kind: 'clock-cable-out'; at: number }
  | { kind: 'clock-cable-in'; at: number };

export type PhysicalActionKind = PhysicalAction['kind'];
