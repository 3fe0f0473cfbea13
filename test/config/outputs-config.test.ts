import { describe, expect, it } from 'vitest';
import { lichessToken, liveChessBoards } from '../../daemon/app/outputs.ts';
import { parseConfig } from '../../daemon/tournament/config.ts';

/** Issue 10, item 1: the outputs are config keys (`outputs.liveChessApi`, `outputs.lichessPush`). */

const base = { event: { name: 'Outputs Open' }, rounds: { count: 3 }, timeControl: '90+30', emulate: { count: 2 } };
const parse = (outputs: unknown) => parseConfig({ ...base, outputs }, null, '/tmp');
const errors = (outputs: unknown): string[] => {
  const r = parse(outputs);
  return r.ok ? [] : r.error.messages;
};

describe('outputs config', () => {
  it('is off unless configured', () => {
    const r = parseConfig(base, null, '/tmp');
    expect(r.ok && r.value.outputs).toEqual({ liveChessApi: null, lichessPush: null, pgnFolder: null });
  });

  it('turns the PGN folder on, its path relative to the config file', () => {
    const r = parseConfig({ ...base, outputs: { pgnFolder: { path: 'broadcast/pgn' } } }, '/srv/open/boardcast.json', '/srv/open');
    expect(r.ok && r.value.outputs.pgnFolder).toEqual({ path: '/srv/open/broadcast/pgn' });
    expect(parse({ pgnFolder: { path: '/var/lib/pgn' } }).ok && (parse({ pgnFolder: { path: '/var/lib/pgn' } }) as { value: { outputs: { pgnFolder: unknown } } }).value.outputs.pgnFolder).toEqual({
      path: '/var/lib/pgn',
    });
    expect(errors({ pgnFolder: {} })[0]).toContain('outputs.pgnFolder');
    expect(errors({ pgnFolder: { path: '' } })[0]).toContain('outputs.pgnFolder.path: must be the folder to write the PGN files into');
    expect(errors({ pgnFolder: { path: 'x', pth: 'y' } })).toContain('config error: outputs.pgnFolder.pth: unknown key');
  });

  it('turns the LiveChess API on with LiveChess defaults (127.0.0.1:1982)', () => {
    const r = parse({ liveChessApi: {} });
    expect(r.ok && r.value.outputs.liveChessApi).toEqual({ port: 1982, host: '127.0.0.1' });
    const other = parse({ liveChessApi: { port: 1983, host: '0.0.0.0' } });
    expect(other.ok && other.value.outputs.liveChessApi).toEqual({ port: 1983, host: '0.0.0.0' });
  });

  it('reads lichess push targets, the base URL defaulting to lichess.org', () => {
    const r = parse({ lichessPush: { rounds: [{ round: 1, roundId: 'aBcD1234' }], token: 'lip_abc' } });
    expect(r.ok && r.value.outputs.lichessPush).toEqual({ rounds: [{ round: 1, roundId: 'aBcD1234' }], token: 'lip_abc', baseUrl: 'https://lichess.org' });
    const noToken = parse({ lichessPush: { rounds: [{ round: 2, roundId: 'zzzzzzzz' }], baseUrl: 'http://127.0.0.1:9000' } });
    expect(noToken.ok && noToken.value.outputs.lichessPush).toMatchObject({ token: null, baseUrl: 'http://127.0.0.1:9000' });
  });

  it('names what is wrong', () => {
    expect(errors({ liveChessApi: { port: 70000 } })).toEqual(['config error: outputs.liveChessApi.port: must be <= 65535']);
    expect(errors({ lichessPush: { rounds: [{ round: 1, roundId: 'short' }] } })[0]).toContain('outputs.lichessPush.rounds[0].roundId: must be the 8-character lichess round id');
    expect(errors({ lichessPush: { rounds: [] } })[0]).toContain('outputs.lichessPush.rounds');
    expect(errors({ lichessPush: { rounds: [{ round: 1, roundId: 'aBcD1234' }], baseUrl: 'lichess.org' } })[0]).toContain('must be an http(s) URL');
    expect(errors({ lichessPush: { rounds: [{ round: 1, roundId: 'aBcD1234' }], tokn: 'x' } })).toContain('config error: outputs.lichessPush.tokn: unknown key');
    expect(parseConfig({ ...base, httpPort: 1982, outputs: { liveChessApi: {} } }, null, '/tmp')).toEqual({
      ok: false,
      error: { file: null, messages: ["config error: outputs.liveChessApi.port: 1982 is httpPort; the LiveChess API needs a port of its own (LiveChess's is 1982)"] },
    });
    expect(errors({ liveChesApi: {} })).toContain('config error: outputs.liveChesApi: unknown key');
    expect(
      errors({
        lichessPush: {
          rounds: [
            { round: 1, roundId: 'aBcD1234' },
            { round: 2, roundId: 'aBcD1234' },
          ],
        },
      }),
    ).toEqual(['config error: outputs.lichessPush.rounds[1].roundId: aBcD1234 is already outputs.lichessPush.rounds[0]']);
  });

  it('takes the token from the config, else BOARDCAST_LICHESS_TOKEN, and refuses to start without one', () => {
    const withToken = parse({ lichessPush: { rounds: [{ round: 1, roundId: 'aBcD1234' }], token: 'lip_cfg' } });
    const without = parse({ lichessPush: { rounds: [{ round: 1, roundId: 'aBcD1234' }] } });
    const off = parse({});
    if (!withToken.ok || !without.ok || !off.ok) throw new Error('configs should parse');
    expect(lichessToken(withToken.value, { BOARDCAST_LICHESS_TOKEN: 'lip_env' })).toEqual({ ok: true, value: 'lip_cfg' });
    expect(lichessToken(without.value, { BOARDCAST_LICHESS_TOKEN: 'lip_env' })).toEqual({ ok: true, value: 'lip_env' });
    const missing = lichessToken(without.value, {});
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.error).toContain('BOARDCAST_LICHESS_TOKEN');
    expect(lichessToken(off.value, {})).toEqual({ ok: true, value: null });
  });
});

describe('boards on the LiveChess API', () => {
  it('lists tables with a known serial, their link state in LiveChess words', () => {
    expect(
      liveChessBoards([
        { table: 1, serial: '24611', state: 'live' },
        { table: 2, serial: '24612', state: 'out-of-step' },
        { table: 3, serial: '24613', state: 'silent' },
        { table: 4, serial: '24614', state: 'searching' },
        { table: 5, serial: null, state: 'connecting' },
      ]),
    ).toEqual([
      { serialnr: '24611', state: 'ACTIVE', table: 1 },
      { serialnr: '24612', state: 'DELAYED', table: 2 },
      { serialnr: '24613', state: 'NOTRESPONDING', table: 3 },
      { serialnr: '24614', state: 'INACTIVE', table: 4 },
    ]);
  });
});
