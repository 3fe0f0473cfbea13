import type { Color } from 'chessops';
import type { ClockReading, Consequence, GameEvent } from '../reconstruction/game-events.ts';
import { err, ok, type Result } from './result.ts';
import type { Store } from './store.ts';
import type { ResultSource } from './types.ts';

const moverClock = (by: Color, clock: ClockReading | undefined): number | null => (clock === undefined ? null : by === 'white' ? clock.whiteMs : clock.blackMs);

/** One line for the arbiter's incident list. */
export function describeConsequence(c: Consequence): string {
  switch (c.kind) {
    case 'position-reinstated':
      return 'position before the irregularity reinstated';
    case 'time-added':
      return `${c.ms / 60_000} min added to ${c.to}`;
    case 'game-lost':
      return `${c.loser} loses (${c.result})`;
    case 'game-drawn':
      return 'draw: the opponent cannot checkmate';
    case 'claim-required':
      return `applies only if ${c.by} claims`;
    case 'win-claimable':
      return `${c.by} may claim the win (${c.result})`;
    case 'pawn-becomes-queen':
      return `pawn on ${c.square} becomes a queen`;
    case 'played-as-castling':
      return `played as castling ${c.san}`;
    case 'arbiter-decides':
      return `arbiter decides: ${c.note}`;
  }
}

const sourceOf = (termination: string): ResultSource => (termination === 'result-pieces' || termination === 'result-kings' ? 'result-pieces' : termination === 'arbiter' ? 'arbiter' : 'engine');

/**
 * Persists one engine event for a game. `wallMs` is the wall time of the raw event that produced
 * it (engine times are the table's monotonic ms and go to mono_ms). An automatic result never
 * overrules one the arbiter set.
 */
export function applyGameEvent(store: Store, gameId: number, ev: GameEvent, wallMs: number): Result<void, string> {
  switch (ev.type) {
    case 'game-started':
      store.setStartFen(gameId, ev.fen);
      return ok(undefined);
    case 'move-made':
      return store.recordMove(gameId, {
        ply: ev.ply,
        san: ev.san,
        uci: ev.uci,
        fenAfter: ev.fenAfter,
        wallMs,
        monoMs: ev.at,
        clockMs: moverClock(ev.by, ev.clock),
      });
    case 'move-confirmed': {
      // The mover of ply n is White when n is odd (plies count from the game's start position).
      const by: Color = ev.mover ?? (ev.ply % 2 === 1 ? 'white' : 'black');
      return store.confirmMove(gameId, ev.ply, moverClock(by, ev.clock));
    }
    case 'move-amended':
      return store.amendMoves(gameId, ev.ply, [{ ply: ev.ply, san: ev.san, uci: ev.uci, fenAfter: ev.fenAfter, wallMs, monoMs: ev.at }]);
    case 'takeback':
      return store.takeback(gameId, ev.toPly);
    case 'incident': {
      const i = ev.incident;
      store.recordIncident(gameId, {
        ply: i.ply,
        kind: i.kind,
        article: i.article,
        consequence: i.consequences.length === 0 ? null : i.consequences.map(describeConsequence).join('; '),
        message: i.message,
        detail: i,
        monoMs: i.at,
        wallMs,
      });
      return ok(undefined);
    }
    case 'claimable':
      store.recordIncident(gameId, {
        ply: ev.ply,
        kind: 'claimable',
        article: ev.article,
        consequence: 'draw if claimed',
        message: `${ev.reason === 'fifty-moves' ? 'fifty-move rule' : 'threefold repetition'}: a draw may be claimed`,
        detail: ev,
        monoMs: ev.at,
        wallMs,
      });
      return ok(undefined);
    case 'game-ended': {
      const g = store.game(gameId);
      if (!g) return err(`no game with id ${gameId}`);
      const source = sourceOf(ev.termination);
      if (g.resultSource === 'arbiter' && source !== 'arbiter') return ok(undefined);
      return store.finishGame(gameId, { result: ev.result, source, termination: ev.termination, wallMs });
    }
    case 'board-shown':
      // Derived from the stored raw events whenever needed; nothing of the record changes.
      return ok(undefined);
    case 'result-withdrawn': {
      const g = store.game(gameId);
      if (!g) return err(`no game with id ${gameId}`);
      if (g.resultSource === 'arbiter') return ok(undefined);
      return store.reopenGame(gameId);
    }
  }
}

/**
 * Persists a tick's engine events for one game in one transaction (one fsync). Stops at the first
 * event the store refuses and returns its message; the events before it stay written.
 */
export function applyGameEvents(store: Store, gameId: number, events: readonly GameEvent[], wallMs: number): Result<void, { index: number; message: string }> {
  return store.transaction(() => {
    for (let i = 0; i < events.length; i++) {
      const r = applyGameEvent(store, gameId, events[i]!, wallMs);
      if (!r.ok) return err({ index: i, message: r.error });
    }
    return ok(undefined);
  });
}
