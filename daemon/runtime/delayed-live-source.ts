import type { ChangeListener, ClockState, GameChange, GameId, GameState, GameSummary, LiveSource, MoveRecord, RoundInfo, TournamentInfo } from '../../protocols/feed/model.ts';
import { applyToGame, moverAt, summaryOf, turnOf } from '../../protocols/feed/apply.ts';
import { pgnFromReadModel } from '../../protocols/feed/pgn.ts';

/** Time and timers, injectable so tests run the delay in virtual time. */
export interface DelayClock {
  now(): number;
  /** Calls `fn` after `ms`; the returned function cancels it. */
  after(ms: number, fn: () => void): () => void;
}

export const SYSTEM_DELAY_CLOCK: DelayClock = {
  now: () => Date.now(),
  after: (ms, fn) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return () => clearTimeout(t);
  },
};

/**
 * The broadcast delay (anti-cheating rules ask for minutes at top events): the games as they stood
 * `delayMs` ago, for every public output (viewer, feed, API, PGN, LCC, the LiveChess API, push).
 * Officials read the live source itself.
 *
 * The delayed view is a function of the live game and the cut-off time (now − delay): the moves
 * completed by then, the result once it came by then, the clocks as they stood after the last of
 * those moves (their `readAt` moved on by the delay, so a client extrapolating the running side
 * shows the delayed time), and the board shown while the record could not follow as it was
 * it stood by then. Nothing appears earlier, nothing is skipped: a move later taken back that was
 * never shown is never shown; one already shown is taken back in the delayed view when its
 * takeback is due. Incidents are never public. Because it is computed from the live state and the
 * moves' own times, a restart resumes the delay where it was. Between moves the delayed clock is
 * the one after the last shown move, running on: a clock paused in the meantime is not seen.
 */
export class DelayedLiveSource implements LiveSource {
  private readonly listeners = new Set<ChangeListener>();
  /** Each game as the live source has it now, kept from its changes. */
  private readonly mirror = new Map<GameId, GameState>();
  /**
   * Each game as it stood after each live change (wall ms), oldest first: the first is the state
   * when this view began (after a restart it holds moves made within the delay, shown by their
   * own times); the entries older than the one in force at the cut-off are dropped.
   */
  private readonly past = new Map<GameId, { at: number; state: GameState }[]>();
  /** What the listeners were last told of each game. */
  private readonly told = new Map<GameId, GameState>();
  /** Next time each game has something to reveal. */
  private readonly due = new Map<GameId, number>();
  private cancelTimer: (() => void) | null = null;
  private timerAt = Infinity;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly live: LiveSource,
    readonly delayMs: number,
    private readonly clock: DelayClock = SYSTEM_DELAY_CLOCK,
  ) {
    this.unsubscribe = live.subscribe((c) => this.onLive(c));
    for (const r of live.rounds()) for (const s of live.games(r.round) ?? []) this.track(s.id);
    this.arm();
  }

  close(): void {
    this.unsubscribe();
    this.cancelTimer?.();
    this.cancelTimer = null;
  }

  tournament(): TournamentInfo {
    return this.live.tournament();
  }

  rounds(): RoundInfo[] {
    // A round the live games have finished is still being played in the delayed view.
    return this.live.rounds().map((r) => (r.status === 'finished' && (this.games(r.round) ?? []).some((g) => g.status !== 'finished') ? { ...r, status: 'live' } : r));
  }

  games(round: number): GameSummary[] | undefined {
    const cutoff = this.cutoff();
    return this.live.games(round)?.map((s) => (this.mirror.has(s.id) ? summaryOf(this.view(s.id, cutoff)) : s));
  }

  game(id: GameId): GameState | undefined {
    if (!this.mirror.has(id) && !this.track(id)) return undefined;
    return structuredClone(this.view(id, this.cutoff()));
  }

  pgn(id: GameId): string | undefined {
    return pgnFromReadModel(this, id);
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private cutoff(): number {
    return this.clock.now() - this.delayMs;
  }

  /** Starts following a game the live source has; false when it has none by that id. */
  private track(id: GameId): boolean {
    const g = this.live.game(id);
    if (!g) return false;
    this.mirror.set(id, g);
    this.past.set(id, [{ at: this.clock.now(), state: frozen(g) }]);
    this.told.set(id, this.view(id, this.cutoff()));
    this.planNext(id);
    return true;
  }

  private onLive(c: GameChange): void {
    if (c.kind === 'incident') return;
    const g = this.mirror.get(c.gameId);
    if (!g) {
      this.track(c.gameId);
      this.arm();
      return;
    }
    applyToGame(g, c);
    // The delayed clock follows the moves shown; the live readings in between change nothing.
    if (c.kind === 'clock') return;
    this.past.get(c.gameId)!.push({ at: this.clock.now(), state: frozen(g) });
    if (c.kind === 'game') {
      // Pairings are no secret: a game appears, or its players change, at once.
      for (const p of this.past.get(c.gameId)!) Object.assign(p.state, { round: g.round, table: g.table, white: g.white, black: g.black });
      const shown = this.view(c.gameId, this.cutoff());
      this.told.set(c.gameId, shown);
      this.emit({ kind: 'game', gameId: c.gameId, summary: summaryOf(shown) });
    }
    this.schedule(c.gameId, this.clock.now() + this.delayMs);
    this.arm();
  }

  private schedule(id: GameId, at: number): void {
    const cur = this.due.get(id);
    if (cur === undefined || at < cur) this.due.set(id, at);
  }

  private arm(): void {
    let next = Infinity;
    for (const at of this.due.values()) next = Math.min(next, at);
    if (next === this.timerAt) return;
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.timerAt = next;
    if (next === Infinity) return;
    this.cancelTimer = this.clock.after(Math.max(0, next - this.clock.now()), () => this.tick());
  }

  private tick(): void {
    this.cancelTimer = null;
    this.timerAt = Infinity;
    const now = this.clock.now();
    const ready = [...this.due].filter(([, at]) => at <= now).map(([id]) => id);
    for (const id of ready) {
      this.due.delete(id);
      this.reveal(id);
    }
    this.arm();
  }

  /** Tells the listeners what the delayed view of a game gained since they were last told. */
  private reveal(id: GameId): void {
    const before = this.told.get(id);
    const after = this.view(id, this.cutoff());
    this.told.set(id, after);
    if (before) for (const c of changesBetween(before, after)) this.emit(c);
    this.planNext(id);
  }

  /** The next moment something of the game becomes visible. */
  private planNext(id: GameId): void {
    const cutoff = this.cutoff();
    const past = this.past.get(id) ?? [];
    const base = this.base(id, cutoff);
    const times = [...past.map((p) => p.at), ...(base ? [...base.moves.map((m) => m.at), ...(base.endedAt !== undefined ? [base.endedAt] : [])] : [])];
    const pending = times.filter((t) => t > cutoff);
    if (pending.length > 0) this.schedule(id, Math.min(...pending) + this.delayMs);
  }

  /** The game as it stood at the cut-off, before the moves' own times are applied; prunes. */
  private base(id: GameId, cutoff: number): GameState | undefined {
    const past = this.past.get(id);
    if (!past || past.length === 0) return undefined;
    let i = 0;
    while (i + 1 < past.length && past[i + 1]!.at <= cutoff) i++;
    if (i > 0) past.splice(0, i);
    return past[0]!.state;
  }

  private emit(c: GameChange): void {
    for (const l of this.listeners) {
      try {
        l(c);
      } catch {
        // One listener's failure must not stop delivery to the others (LiveSource contract).
      }
    }
  }

  /** The game as it stood at `cutoff`. */
  private view(id: GameId, cutoff: number): GameState {
    const g = this.base(id, cutoff)!;
    let n = 0;
    while (n < g.moves.length && g.moves[n]!.at <= cutoff) n++;
    const moves = g.moves.slice(0, n);
    const all = n === g.moves.length;
    const endedAt = g.endedAt ?? g.moves.at(-1)?.at ?? 0;
    const ended = g.result !== '*' && all && endedAt <= cutoff;
    const last = moves.at(-1);
    const { incidents: _incidents, boardShown: _board, endedAt: _ended, ...rest } = g;
    return {
      ...rest,
      status: ended ? 'finished' : g.status === 'pending' ? 'pending' : 'live',
      result: ended ? g.result : '*',
      termination: ended ? g.termination : null,
      ...(ended && g.endedAt !== undefined ? { endedAt: g.endedAt } : {}),
      moves,
      ply: moves.length,
      fen: last ? last.fenAfter : g.startFen,
      lastMove: last ? { uci: last.uci, san: last.san } : null,
      clock: delayedClock(g, moves, ended, cutoff, this.delayMs),
      incidents: [],
      ...(g.boardShown !== undefined && !ended ? { boardShown: g.boardShown } : {}),
    };
  }
}

/** A game's state at one moment: the move list copied (its records are shared, never changed). */
function frozen(g: GameState): GameState {
  return { ...g, moves: [...g.moves], incidents: [], ...(g.clock ? { clock: { ...g.clock } } : {}) };
}

/**
 * The clocks after the last move shown: each side's time from its own last shown move (before its
 * first, its first move's reading is the nearest the record has), the side to move running from
 * that move's time, moved on by the delay so clients extrapolate the delayed time.
 */
function delayedClock(g: GameState, moves: readonly MoveRecord[], ended: boolean, cutoff: number, delayMs: number): ClockState | null {
  if (!g.clock) return null;
  const blackStarts = turnOf(g.startFen) === 'black';
  const moverOf = (ply: number): 'white' | 'black' => moverAt(g, ply - 1);
  const timeOf = (side: 'white' | 'black'): number => {
    for (let i = moves.length - 1; i >= 0; i--) if (moverOf(moves[i]!.ply) === side && moves[i]!.clockMs !== null) return moves[i]!.clockMs!;
    const first = g.moves.find((m) => moverOf(m.ply) === side && m.clockMs !== null);
    return first?.clockMs ?? (side === 'white' ? g.clock!.whiteMs : g.clock!.blackMs);
  };
  const last = moves.at(-1);
  const toMove = last ? turnOf(last.fenAfter) : null;
  const running = ended ? null : last ? toMove : g.moves.length > 0 || g.clock.running !== null ? (blackStarts ? 'black' : 'white') : null;
  return {
    whiteMs: timeOf('white'),
    blackMs: timeOf('black'),
    running,
    readAt: (last?.at ?? Math.min(cutoff, g.clock.readAt)) + delayMs,
    whiteFlag: ended && g.clock.whiteFlag,
    blackFlag: ended && g.clock.blackFlag,
  };
}

/** The changes that take a client from one delayed view of a game to the next. */
export function changesBetween(a: GameState, b: GameState): GameChange[] {
  const gameId = b.id;
  const out: GameChange[] = [];
  const same = (x: MoveRecord, y: MoveRecord): boolean => JSON.stringify(x) === JSON.stringify(y);
  if (a.startFen !== b.startFen) {
    out.push({ kind: 'takeback', gameId, toPly: 0, fen: b.startFen, lastMove: null });
    for (const m of b.moves) out.push({ kind: 'move', gameId, move: m });
  } else {
    let i = 0;
    while (i < a.moves.length && i < b.moves.length && same(a.moves[i]!, b.moves[i]!)) i++;
    if (i < a.moves.length) {
      if (b.moves.length > i) out.push({ kind: 'amendment', gameId, fromPly: i + 1, moves: b.moves.slice(i) });
      else out.push({ kind: 'takeback', gameId, toPly: i, fen: b.fen, lastMove: b.lastMove });
    } else {
      for (const m of b.moves.slice(i)) out.push({ kind: 'move', gameId, move: m });
    }
  }
  if (JSON.stringify(a.clock) !== JSON.stringify(b.clock) && b.clock) out.push({ kind: 'clock', gameId, clock: b.clock });
  if (a.boardShown !== b.boardShown) out.push({ kind: 'board', gameId, placement: b.boardShown ?? null });
  if (a.result !== b.result || a.termination !== b.termination)
    out.push({ kind: 'result', gameId, result: b.result, termination: b.termination, ...(b.endedAt !== undefined ? { at: b.endedAt } : {}) });
  return out;
}
