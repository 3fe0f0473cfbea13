import { describe, expect, it } from 'vitest';
import { BoardSources } from '../../daemon/runtime/board-sources.ts';
import { boardsInForce, parseBoardChange, withBoards, type BoardChangeDetail } from '../../daemon/runtime/board-changes.ts';
import { createLogger } from '../../daemon/log/logger.ts';
import { boardFixedReason } from '../../daemon/app/board-changes.ts';
import type { AmendmentRow } from '../../daemon/store/types.ts';
import { parseConfig, type BoardcastConfig } from '../../daemon/tournament/config.ts';
import type { Identification } from '../../daemon/board/identify.ts';

const config = (tables: { number: number; board: string; bus?: string }[]): BoardcastConfig => {
  const c = parseConfig({ event: { name: 'boards' }, rounds: { count: 1 }, timeControl: '90+30', tables }, null, '/tmp');
  if (!c.ok) throw new Error(c.error.messages.join('\n'));
  return c.value;
};

let nextId = 1;
const change = (d: Omit<BoardChangeDetail, 'kind' | 'swappedWith'> & { swappedWith?: number | null }): AmendmentRow => ({
  id: nextId++,
  gameId: null,
  wallMs: 0,
  arbiter: 'organiser',
  action: 'board',
  reason: 'spare',
  detail: { kind: 'board', swappedWith: null, ...d },
});

describe('the boards tables hold after changes during the event', () => {
  const hall = config([
    { number: 1, board: '12001' },
    { number: 2, board: '12002' },
    { number: 3, board: '/dev/ttyUSB0' },
  ]);

  it('takes the last change of each table, over the config file', () => {
    const rows = [
      change({ table: 1, board: '12002', previous: '12001', configBoard: '12001', swappedWith: 2 }),
      change({ table: 2, board: '12001', previous: '12002', configBoard: '12002', swappedWith: 1 }),
      change({ table: 3, board: '12099', previous: '/dev/ttyUSB0', configBoard: '/dev/ttyUSB0' }),
      // Another tool's row and a game's amendment are not board changes.
      { id: nextId++, gameId: 7, wallMs: 0, arbiter: 'a', action: 'board', reason: 'x', detail: { kind: 'board', table: 1, board: '99999', previous: '', configBoard: '12001' } },
      { id: nextId++, gameId: null, wallMs: 0, arbiter: 'a', action: 'start-round', reason: '', detail: { kind: 'start-round' } },
    ];
    const boards = boardsInForce(rows, hall);
    expect(Object.fromEntries(boards)).toEqual({ 1: '12002', 2: '12001', 3: '12099' });
    expect(withBoards(hall, boards).tables.map((t) => t.board)).toEqual(['12002', '12001', '12099']);
  });

  it('a change back to the file’s board leaves nothing in force', () => {
    const rows = [
      change({ table: 3, board: '12099', previous: '/dev/ttyUSB0', configBoard: '/dev/ttyUSB0' }),
      change({ table: 3, board: '/dev/ttyUSB0', previous: '12099', configBoard: '/dev/ttyUSB0' }),
    ];
    expect(boardsInForce(rows, hall).size).toBe(0);
  });

  it('the file wins for a table it names another board for since the change (the organiser edited it)', () => {
    const rows = [change({ table: 3, board: '12099', previous: '/dev/ttyUSB1', configBoard: '/dev/ttyUSB1' })];
    expect(boardsInForce(rows, hall).size).toBe(0);
  });

  it('a file edited for one table of a swap would give one board to two tables: every change is set aside', () => {
    const edited = config([
      { number: 1, board: '12001' },
      { number: 2, board: '12005' },
      { number: 3, board: '/dev/ttyUSB0' },
    ]);
    const rows = [
      change({ table: 1, board: '12002', previous: '12001', configBoard: '12001', swappedWith: 2 }),
      change({ table: 2, board: '12001', previous: '12002', configBoard: '12002', swappedWith: 1 }),
    ];
    // Table 2's change is void (the file names 12005 now); table 1's alone would be 12002 for
    // table 1, which is nobody else's: it stands.
    expect(Object.fromEntries(boardsInForce(rows, edited))).toEqual({ 1: '12002' });
    const clash = [change({ table: 1, board: '12005', previous: '12001', configBoard: '12001' })];
    expect(boardsInForce(clash, edited).size).toBe(0);
  });

  it('reads a request body: a board as the config takes it and a reason', () => {
    expect(parseBoardChange(2, { board: '12003', reason: ' broken board ', arbiter: 'IA One' })).toEqual({ ok: true, value: { table: 2, board: '12003', reason: 'broken board', by: 'IA One' } });
    expect(parseBoardChange(2, { board: 'ttyUSB0', reason: 'x' })).toMatchObject({ ok: false, error: { status: 400 } });
    expect(parseBoardChange(2, { board: '12003', reason: '  ' })).toMatchObject({ ok: false, error: { status: 400 } });
    expect(parseBoardChange(2, null)).toMatchObject({ ok: false, error: { status: 400 } });
  });
});

describe('BoardSources after a change', () => {
  /** Ports with boards on them, as identify would read them. */
  const ports: Record<string, string> = { '/dev/ttyUSB0': '12001', '/dev/ttyUSB1': '12002', '/dev/ttyUSB2': '12003' };
  const identify = async (path: string): Promise<Identification> => ({ path, dgt: true, serial: ports[path]!, longSerial: null, version: null });

  function sources(matched: { table: number; path: string }[]) {
    const s = new BoardSources({
      tables: [
        { number: 1, serial: '12001' },
        { number: 2, serial: '12002' },
      ],
      reservedPaths: [],
      log: createLogger({ write: () => undefined, pretty: false }),
      onMatch: (table, path) => matched.push({ table, path }),
      listPaths: async () => Object.keys(ports),
      identify,
      intervalMs: 60_000,
    });
    return s;
  }

  it('hands a swapped board over at once, and searches for a spare', async () => {
    const matched: { table: number; path: string }[] = [];
    const s = sources(matched);
    s.start();
    await s.scan();
    expect(matched).toEqual([
      { table: 1, path: '/dev/ttyUSB0' },
      { table: 2, path: '/dev/ttyUSB1' },
    ]);
    matched.length = 0;
    s.reassign(
      [
        { table: 1, serial: '12002' },
        { table: 2, serial: '12001' },
      ],
      [],
    );
    expect(matched).toEqual([
      { table: 1, path: '/dev/ttyUSB1' },
      { table: 2, path: '/dev/ttyUSB0' },
    ]);
    matched.length = 0;
    s.reassign([{ table: 1, serial: '12003' }], []);
    expect(s.pathOf(1)).toBeNull();
    await s.scan();
    expect(matched).toEqual([{ table: 1, path: '/dev/ttyUSB2' }]);
    // A table given a device path is no longer looked for by serial number.
    s.reassign([{ table: 2, serial: null }], ['/dev/ttyUSB0']);
    expect(s.has(2)).toBe(false);
    await s.stop();
  });
});

describe('which boards the hall page offers to change', () => {
  it('a board by serial or path: yes; a bus line table or an emulated board: no, with the reason', () => {
    const hall = config([
      { number: 1, board: '12001' },
      { number: 2, board: '/dev/ttyUSB0' },
      { number: 3, board: '12003', bus: '/dev/ttyUSB9' },
    ]);
    const fixed = boardFixedReason(hall);
    expect(fixed({ number: 1, board: '12001', transport: null, link: null })).toBeNull();
    expect(fixed({ number: 2, board: '/dev/ttyUSB0', transport: null, link: null })).toBeNull();
    expect(fixed({ number: 3, board: '12003', transport: null, link: null })).toMatch(/bus line/);
    // Tables the config does not list are the emulated hall's.
    expect(fixed({ number: 4, board: 'emulated:00004', transport: null, link: null })).toMatch(/emulated/);
  });
});
