import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../daemon/store/store.ts';
import type { TournamentSetup } from '../../daemon/store/types.ts';
import { mustOpen, tempDir } from './helpers.ts';

let store: Store;
let cleanup: () => void;
beforeEach(() => {
  const t = tempDir();
  cleanup = t.cleanup;
  store = mustOpen(join(t.dir, 'b.sqlite'));
});
afterEach(() => {
  store.close();
  cleanup();
});

const open: TournamentSetup = {
  name: 'Ljubljana Open 2026',
  site: 'Ljubljana SLO',
  startDate: '2026-07-04',
  endDate: '2026-07-12',
  timeControl: '5400+30',
  rulesEdition: '2018',
  category: 'standard',
  variant: 'standard',
  roundCount: 3,
  roundDates: ['2026-07-04', '2026-07-05'],
};

describe('tournament setup in the store', () => {
  it('upserts the tournament by name and keeps one row per round', () => {
    const id = store.upsertTournament(open);
    expect(store.upsertTournament({ ...open, roundCount: 4, roundDates: [], rulesEdition: '2009' })).toBe(id);
    expect(store.tournament(id)).toMatchObject({ name: 'Ljubljana Open 2026', rulesEdition: '2009', roundCount: 4 });
    // Dates already known survive a config without them.
    expect(store.rounds(id).map((r) => [r.round, r.date, r.status])).toEqual([
      [1, '2026-07-04', 'upcoming'],
      [2, '2026-07-05', 'upcoming'],
      [3, null, 'upcoming'],
      [4, null, 'upcoming'],
    ]);
    expect(store.tournamentByName('nope')).toBeUndefined();
  });

  it('keeps the hall equal to the config and maps board serials to tables', () => {
    store.syncTables([
      { number: 1, board: '/dev/ttyUSB0', whiteOnClock: 'left' },
      { number: 2, board: '12002', whiteOnClock: 'right' },
      { number: 3, board: null, whiteOnClock: 'left' },
    ]);
    store.assignBoardSerial('12002', 2, 1000);
    store.assignBoardSerial('31337', 1, 1000);
    store.assignBoardSerial('31337', 3, 2000); // the board was carried to another table
    expect(store.tableForSerial('31337')).toBe(3);
    expect(store.tableForSerial('99999')).toBeUndefined();
    store.syncTables([
      { number: 2, board: '12002', whiteOnClock: 'left' },
      { number: 3, board: null, whiteOnClock: 'left' },
    ]);
    expect(store.hallTables()).toEqual([
      { number: 2, board: '12002', whiteOnClock: 'left' },
      { number: 3, board: null, whiteOnClock: 'left' },
    ]);
    expect(store.assignBoardSerial('55555', 9, 0)).toEqual({ ok: false, error: 'board 55555: table 9 is not in the hall' });
    expect(store.tableForSerial('55555')).toBeUndefined();
  });
});
