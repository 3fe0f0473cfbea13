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
  /** The board's cable is pulled / plugged back in (the board keeps scanning meanwhile). */
  | { kind: 'unplug'; at: number }
  | { kind: 'plug'; at: number };

export type PhysicalActionKind = PhysicalAction['kind'];
