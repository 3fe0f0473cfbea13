import { describe, expect, it } from 'vitest';
import { decodeBwtime, encodeBwtime, type ClockTimesMessage } from '../../protocols/dgt/index.ts';
import { clockEvent } from '../../daemon/board/clock-sides.ts';

/** A BWTIME reading built from its wire bytes, as the board sends it. */
function reading(b: number[]): ClockTimesMessage {
  const m = decodeBwtime(b);
  if (m.type !== 'clock-times') throw new Error(`not clock times: ${m.type}`);
  return m;
}

// Right: 0:04:59 (flag bits clear); left: 1:02:03; status: running, left player's turn.
const LEFT_RUNS = reading([0x00, 0x04, 0x59, 0x01, 0x02, 0x03, 0x01 | 0x10]);

describe('clockEvent', () => {
  it('maps the left side to White by default layout and the running side to its colour', () => {
    expect(clockEvent(LEFT_RUNS, 'left', 7)).toEqual({
      type: 'clock',
      at: 7,
      whiteMs: 3_723_000,
      blackMs: 299_000,
      running: 'white',
      whiteFlag: false,
      blackFlag: false,
    });
    expect(clockEvent(LEFT_RUNS, 'right', 7)).toEqual({
      type: 'clock',
      at: 7,
      whiteMs: 299_000,
      blackMs: 3_723_000,
      running: 'black',
      whiteFlag: false,
      blackFlag: false,
    });
  });

  it('reports a stopped clock as running: null and flags per colour', () => {
    const stopped = reading([0x10 | 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x08]);
    expect(clockEvent(stopped, 'left', 0)).toMatchObject({ running: null, whiteFlag: false, blackFlag: true, blackMs: 0 });
    expect(clockEvent(stopped, 'right', 0)).toMatchObject({ running: null, whiteFlag: true, blackFlag: false, whiteMs: 0 });
  });

  it('ignores readings taken with no clock connected', () => {
    const none = reading([0x00, 0x05, 0x00, 0x00, 0x05, 0x00, 0x20]);
    expect(clockEvent(none, 'left', 0)).toBeNull();
    expect(encodeBwtime(none)).toEqual([0x00, 0x05, 0x00, 0x00, 0x05, 0x00, 0x20]);
  });
});
