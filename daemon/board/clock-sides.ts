import type { Color } from 'chessops';
import type { BoardEvent } from '../../protocols/board-events.ts';
import type { ClockTimesMessage } from '../../protocols/dgt/index.ts';

/** The physical side of the clock a colour's time is shown on; set per table. */
export type ClockSide = 'left' | 'right';

export type ClockEvent = Extract<BoardEvent, { type: 'clock' }>;

/**
 * Resolves BWTIME's left/right (physical sides) to colours. Returns null when the message says no
 * clock is connected (status bit 5: the times are invalid, dgtbrd.h).
 */
export function clockEvent(message: ClockTimesMessage, whiteOnClock: ClockSide, at: number): ClockEvent | null {
  if (message.status.noClock) return null;
  const white = whiteOnClock === 'left' ? message.left : message.right;
  const black = whiteOnClock === 'left' ? message.right : message.left;
  const colourOf = (side: ClockSide): Color => (side === whiteOnClock ? 'white' : 'black');
  let running: Color | null = null;
  if (message.status.running) {
    if (message.status.leftToMove && !message.status.rightToMove) running = colourOf('left');
    else if (message.status.rightToMove && !message.status.leftToMove) running = colourOf('right');
  }
  return {
    type: 'clock',
    at,
    whiteMs: white.ms,
    blackMs: black.ms,
    running,
    whiteFlag: white.flagFallenBlocked || white.flagFallenShown,
    blackFlag: black.flagFallenBlocked || black.flagFallenShown,
  };
}
