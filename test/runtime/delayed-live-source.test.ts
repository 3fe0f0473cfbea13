import { describe, expect, it } from 'vitest';
import { DelayedLiveSource, type DelayClock } from '../../daemon/runtime/delayed-live-source.ts';
import { applyToGame } from '../../protocols/feed/apply.ts';
import type { GameChange, GameState } from '../../protocols/feed/model.ts';
import { Hall } from '../server/hall.ts';

/** Virtual time: timers run when the test moves the time on, in the order they are due. */
class VirtualClock implements DelayClock {
  t = 1_800_000_000_000;
  private timers: { at: number; fn: () => void; live: boolean }[] = [];
  now = (): number => this.t;
  after = (ms: number, fn: () => void): (() => void) => {
    const timer = { at: this.t + ms, fn, live: true };
    this.timers.push(timer);
    return () => {
      timer.live = false;
    };
  };
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const next = this.timers.filter((x) => x.live && x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      next.live = false;
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = end;
  }
}

const DELAY = 15 * 60_000;

function setUp(tables = 1): { clock: VirtualClock; hall: Hall; delayed: DelayedLiveSource; heard: GameChange[] } {
  const clock = new VirtualClock();
  const hall = new Hall({ tables, now: clock.now });
  hall.connectAll();
  const delayed = new DelayedLiveSource(hall.source, DELAY, clock);
  const heard: GameChange[] = [];
  delayed.subscribe((c) => heard.push(c));
  return { clock, hall, delayed, heard };
}

const sans = (g: GameState | undefined): string[] => (g?.moves ?? []).map((m) => m.san);

describe('the broadcast delay', () => {
  it('shows each move exactly the delay after it was made, never earlier', () => {
    const { clock, hall, delayed, heard } = setUp();
    hall.play('r1-t1', 'e4');
    clock.advance(60_000);
    hall.play('r1-t1', 'e5');
    expect(sans(hall.source.game('r1-t1'))).toEqual(['e4', 'e5']);
    expect(sans(delayed.game('r1-t1'))).toEqual([]);
    clock.advance(DELAY - 60_000 - 1);
    expect(sans(delayed.game('r1-t1'))).toEqual([]);
    expect(heard.filter((c) => c.kind === 'move')).toEqual([]);
    clock.advance(1);
    expect(sans(delayed.game('r1-t1'))).toEqual(['e4']);
    expect(heard.filter((c) => c.kind === 'move').map((c) => (c.kind === 'move' ? c.move.san : ''))).toEqual(['e4']);
    clock.advance(60_000);
    expect(sans(delayed.game('r1-t1'))).toEqual(['e4', 'e5']);
    expect(delayed.games(1)!.map((g) => g.ply)).toEqual([2]);
  });

  it('the clocks after the last move shown run on from it, so a client shows the delayed time', () => {
    const { clock, hall, delayed } = setUp();
    hall.play('r1-t1', 'e4');
    const made = hall.source.game('r1-t1')!.moves[0]!;
    clock.advance(DELAY);
    const c = delayed.game('r1-t1')!.clock!;
    expect(c.running).toBe('black');
    expect(c.whiteMs).toBe(made.clockMs);
    expect(c.readAt).toBe(made.at + DELAY);
  });

  it('keeps the result and the round finished back until the delay has passed since the result came', () => {
    const { clock, hall, delayed, heard } = setUp();
    hall.play('r1-t1', 'e4');
    clock.advance(5_000);
    hall.source.arbiter('r1-t1', { type: 'set-result', at: clock.t, result: '1-0' });
    expect(hall.source.game('r1-t1')!.result).toBe('1-0');
    clock.advance(DELAY - 1);
    expect(delayed.game('r1-t1')!.result).toBe('*');
    expect(delayed.game('r1-t1')!.status).toBe('live');
    expect(heard.some((c) => c.kind === 'result')).toBe(false);
    clock.advance(1);
    expect(delayed.game('r1-t1')).toMatchObject({ result: '1-0', status: 'finished' });
    expect(heard.filter((c) => c.kind === 'result')).toEqual([expect.objectContaining({ result: '1-0' })]);
    expect(delayed.game('r1-t1')!.clock!.running).toBeNull();
  });

  it('a move taken back before it was shown is never shown', () => {
    const { clock, hall, delayed, heard } = setUp();
    hall.play('r1-t1', 'e4');
    clock.advance(10_000);
    hall.play('r1-t1', 'e5');
    hall.takeBack('r1-t1');
    expect(sans(hall.source.game('r1-t1'))).toEqual(['e4']);
    clock.advance(DELAY + 60_000);
    expect(sans(delayed.game('r1-t1'))).toEqual(['e4']);
    expect(heard.flatMap((c) => (c.kind === 'move' ? [c.move.san] : c.kind === 'amendment' ? c.moves.map((m) => m.san) : []))).toEqual(['e4']);
  });

  it('a move already shown and then taken back goes from the delayed view only when the takeback is due', () => {
    const { clock, hall, delayed, heard } = setUp();
    hall.play('r1-t1', 'e4');
    hall.play('r1-t1', 'e5');
    clock.advance(DELAY);
    expect(sans(delayed.game('r1-t1'))).toEqual(['e4', 'e5']);
    hall.takeBack('r1-t1');
    clock.advance(DELAY - 1);
    expect(sans(delayed.game('r1-t1'))).toEqual(['e4', 'e5']);
    expect(heard.some((c) => c.kind === 'takeback')).toBe(false);
    clock.advance(1);
    expect(sans(delayed.game('r1-t1'))).toEqual(['e4']);
    expect(heard.filter((c) => c.kind === 'takeback')).toEqual([expect.objectContaining({ toPly: 1 })]);
  });

  it('incidents never reach the delayed view', () => {
    const { clock, hall, delayed, heard } = setUp();
    hall.play('r1-t1', 'e4');
    hall.illegal('r1-t1', 'e7', 'e4');
    expect(hall.source.game('r1-t1')!.incidents.length).toBeGreaterThan(0);
    clock.advance(DELAY + 10_000);
    expect(delayed.game('r1-t1')!.incidents).toEqual([]);
    expect(heard.some((c) => c.kind === 'incident')).toBe(false);
  });

  it('a client holding the delayed snapshot and applying its changes has what a fresh snapshot shows', () => {
    const { clock, hall, delayed, heard } = setUp();
    const held = delayed.game('r1-t1')!;
    const line = ['e4', 'c5', 'Nf3', 'd6', 'd4', 'cxd4', 'Nxd4', 'Nf6'];
    for (const san of line) {
      hall.play('r1-t1', san);
      clock.advance(45_000);
    }
    hall.takeBack('r1-t1');
    clock.advance(DELAY);
    hall.source.arbiter('r1-t1', { type: 'set-result', at: clock.t, result: '1/2-1/2' });
    clock.advance(DELAY);
    for (const c of heard) applyToGame(held, c);
    const fresh = delayed.game('r1-t1')!;
    expect(sans(held)).toEqual(line.slice(0, -1));
    expect({ ...held, clock: null }).toEqual({ ...fresh, clock: null });
    expect(held.result).toBe('1/2-1/2');
  });

  it('a restart resumes the delay where it was: moves made in the last minutes are shown when due', () => {
    const { clock, hall } = setUp();
    hall.play('r1-t1', 'd4');
    clock.advance(10 * 60_000);
    hall.play('r1-t1', 'd5');
    clock.advance(6 * 60_000);
    // A new delayed view over the same live state, as after a restart.
    const again = new DelayedLiveSource(hall.source, DELAY, clock);
    const heard: GameChange[] = [];
    again.subscribe((c) => heard.push(c));
    expect(sans(again.game('r1-t1'))).toEqual(['d4']);
    clock.advance(9 * 60_000);
    expect(sans(again.game('r1-t1'))).toEqual(['d4', 'd5']);
    expect(heard.filter((c) => c.kind === 'move').length).toBe(1);
  });
});

describe('the broadcast delay and a game derived again (an amendment undone)', () => {
  it('keeps showing what was public until the delay has passed, then shows the game as derived again; a client applying the changes agrees', () => {
    const { clock, hall, delayed, heard } = setUp();
    const other = new Hall({ tables: 1, now: clock.now });
    other.connectAll();
    for (const san of ['e4', 'e5']) {
      hall.play('r1-t1', san);
      other.play('r1-t1', san);
    }
    hall.source.arbiter('r1-t1', { type: 'set-result', at: clock.now(), result: '1-0' });
    clock.advance(DELAY + 10_000);
    const client = delayed.game('r1-t1')!;
    const off = delayed.subscribe((c) => applyToGame(client, c));
    expect(client).toMatchObject({ result: '1-0', status: 'finished' });

    // The result undone: the live source adopts the game derived again, without it.
    hall.source.adopt(other.source, 'r1-t1');
    expect(hall.source.game('r1-t1')).toMatchObject({ result: '*', status: 'live' });
    expect(delayed.game('r1-t1')!.result).toBe('1-0');
    const before = heard.length;
    clock.advance(DELAY + 1);
    off();
    expect(delayed.game('r1-t1')).toMatchObject({ result: '*', status: 'live', ply: 2 });
    expect(heard.slice(before).some((c) => c.kind === 'result' && c.result === '*')).toBe(true);
    expect({ ...client, clock: null }).toEqual({ ...delayed.game('r1-t1')!, clock: null });
  });
});
