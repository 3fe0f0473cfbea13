import { describe, expect, it } from 'vitest';
import { parseArbiterAction } from '../../daemon/runtime/arbiter.ts';
import { parseRoundAction } from '../../daemon/runtime/arbiter-actions.ts';

describe('arbiter request bodies, checked against their schemas', () => {
  it('refuses numbers no game can have and says which field is wrong', () => {
    for (const ply of [1e308, -1, 2.5, 10_001]) {
      const r = parseArbiterAction('reinstate', { ply });
      expect(r.ok, String(ply)).toBe(false);
      if (!r.ok) expect(r.error).toEqual({ status: 400, code: 'bad-request', message: 'ply must be a whole number of plies from 0 to 10000' });
    }
    expect(parseArbiterAction('reinstate', { ply: 12 })).toMatchObject({ ok: true, value: { kind: 'reinstate', ply: 12 } });
  });

  it('names the field for every other kind of bad body, and fills in who and why', () => {
    expect(parseArbiterAction('result', { result: '2-0' })).toMatchObject({ ok: false, error: { message: 'result must be one of 1-0, 0-1, 1/2-1/2' } });
    expect(parseArbiterAction('result', { result: '1-0', reason: 5 })).toMatchObject({ ok: false, error: { message: 'reason must be a string of at most 500 characters' } });
    expect(parseArbiterAction('result', [])).toMatchObject({ ok: false, error: { message: 'the body must be a JSON object' } });
    expect(parseArbiterAction('position', { fen: 'nonsense' })).toMatchObject({ ok: false, error: { status: 400 } });
    expect(parseArbiterAction('dance', {})).toMatchObject({ ok: false, error: { status: 404 } });
    expect(parseArbiterAction('moves', { fromPly: 3, sans: ['Nf3', 'Nc6'] })).toMatchObject({ ok: true, value: { kind: 'moves', fromPly: 3, sans: ['Nf3', 'Nc6'] } });
    expect(parseArbiterAction('moves', { fromPly: 3, sans: [] })).toMatchObject({ ok: false, error: { message: 'sans must be a list of 1 to 64 moves in SAN' } });
    expect(parseArbiterAction('moves', { fromPly: 3, sans: ['<script>'] })).toMatchObject({ ok: false, error: { status: 400 } });
    // A break in the record filled with the moves it hid: they take the place of one ply.
    expect(parseArbiterAction('moves', { fromPly: 1, sans: ['e5', 'Nf3', 'Nc6'], replaces: 1 })).toMatchObject({ ok: true, value: { kind: 'moves', replaces: 1 } });
    expect(parseArbiterAction('moves', { fromPly: 1, sans: ['e5'], replaces: 0 })).toMatchObject({ ok: false, error: { message: 'replaces must be a whole number of plies from 1 to 64' } });
    expect(parseArbiterAction('accept-board', { ply: 2, reason: 'the illegal move stood (A.4.2)' })).toMatchObject({
      ok: true,
      value: { kind: 'accept-board', ply: 2, reason: 'the illegal move stood (A.4.2)' },
    });
    expect(parseArbiterAction('accept-board', {})).toMatchObject({ ok: true, value: { kind: 'accept-board' } });
    expect(parseArbiterAction('accept-board', { ply: 0 })).toMatchObject({ ok: false, error: { message: 'ply must be the ply of a break in the record (1 to 10000)' } });
    expect(parseArbiterAction('result', { result: '1/2-1/2', arbiter: ' IA Novak ' })).toEqual({
      ok: true,
      value: { kind: 'result', result: '1/2-1/2', reason: 'arbiter decision', arbiter: 'IA Novak' },
    });
    expect(parseRoundAction('close', { force: 'yes' })).toMatchObject({ ok: false, error: { message: 'force must be true or false' } });
    expect(parseRoundAction('close', undefined)).toEqual({ ok: true, value: { kind: 'close', force: false, arbiter: 'arbiter', reason: 'round closed' } });
  });
});
