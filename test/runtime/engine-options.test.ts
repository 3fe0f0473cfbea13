import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../daemon/tournament/config.ts';
import { engineOptions } from '../../daemon/runtime/store-replay.ts';

function options(timeControl: unknown) {
  const c = parseConfig({ event: { name: 'options test' }, rounds: { count: 1 }, timeControl, tables: [{ number: 1, board: '/dev/ttyUSB0' }] }, null, '/tmp');
  if (!c.ok) throw new Error(c.error.messages.join('\n'));
  return engineOptions(c.value);
}

describe("engineOptions: the config's time control reaches every game's engine", () => {
  it('gives the increment, which counts the presses made while a board was away', () => {
    expect(options('90+30').timeControl).toEqual({ incrementMs: 30_000 });
    expect(options('3+2').timeControl).toEqual({ incrementMs: 2_000 });
  });

  it("gives a two-period control's move of the bonus, where the times count nothing", () => {
    expect(options({ baseMinutes: 90, incrementSeconds: 30, movesToSecondPeriod: 40, secondPeriodMinutes: 30 }).timeControl).toEqual({ incrementMs: 30_000, movesToSecondPeriod: 40 });
  });

  it('gives no increment for a control without one', () => {
    expect(options({ baseMinutes: 60 }).timeControl).toEqual({ incrementMs: 0 });
  });
});
