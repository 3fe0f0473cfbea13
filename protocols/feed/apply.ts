import type { Color } from 'chessops';
import type { GameChange, GameState, GameSummary, MoveRecord } from './model.ts';

/**
 * Applying feed deltas to what a client holds. Shared by the viewer, the tests and the in-memory
 * live source so that "snapshot + deltas" and "fresh snapshot" can be compared exactly.
 */

function lastOf(moves: MoveRecord[], startFen: string, s: GameSummary): void {
  const last = moves[moves.length - 1];
  s.ply = moves.length;
  s.fen = last ? last.fenAfter : startFen;
  s.lastMove = last ? { uci: last.uci, san: last.san } : null;
}

/** Applies a change to a full game in place. */
export function applyToGame(g: GameState, c: GameChange): void {
  switch (c.kind) {
    case 'move':
      if (c.move.ply !== g.moves.length + 1) g.moves.length = Math.min(g.moves.length, c.move.ply - 1);
      g.moves.push(c.move);
      if (g.status === 'pending') g.status = 'live';
      lastOf(g.moves, g.startFen, g);
      break;
    case 'amendment':
      g.moves.length = Math.min(g.moves.length, Math.max(0, c.fromPly - 1));
      g.moves.push(...c.moves);
      lastOf(g.moves, g.startFen, g);
      break;
    case 'takeback':
      g.moves.length = Math.min(g.moves.length, c.toPly);
      // Back to ply 0 the position is the start: a set-up the arbiter made (or a Chess960 start
      // recognised late) brings a new one.
      if (c.toPly === 0) g.startFen = c.fen;
      lastOf(g.moves, g.startFen, g);
      break;
    case 'clock':
      g.clock = c.clock;
      if (g.status === 'pending' && c.clock.running) g.status = 'live';
      break;
    case 'board':
      if (c.placement === null) delete g.boardShown;
      else g.boardShown = c.placement;
      break;
    case 'result':
      g.result = c.result;
      g.termination = c.termination;
      g.status = c.result === '*' ? 'live' : 'finished';
      if (c.result !== '*' && c.at !== undefined) g.endedAt = c.at;
      else delete g.endedAt;
      break;
    case 'incident':
      g.incidents.push(c.incident);
      break;
    case 'game':
      if (c.state) {
        // The game derived again: everything is replaced, fields it no longer has included.
        for (const k of Object.keys(g)) delete (g as unknown as Record<string, unknown>)[k];
        Object.assign(g, structuredClone(c.state));
        break;
      }
      g.round = c.summary.round;
      g.table = c.summary.table;
      g.white = c.summary.white;
      g.black = c.summary.black;
      break;
  }
}

/** Applies a change to an overview summary in place (summaries carry no move list). */
export function applyToSummary(s: GameSummary, c: GameChange): void {
  switch (c.kind) {
    case 'move':
      s.ply = c.move.ply;
      s.fen = c.move.fenAfter;
      s.lastMove = { uci: c.move.uci, san: c.move.san };
      if (s.status === 'pending') s.status = 'live';
      break;
    case 'amendment': {
      const last = c.moves[c.moves.length - 1];
      if (last) {
        s.ply = last.ply;
        s.fen = last.fenAfter;
        s.lastMove = { uci: last.uci, san: last.san };
      }
      break;
    }
    case 'takeback':
      s.ply = c.toPly;
      s.fen = c.fen;
      s.lastMove = c.lastMove;
      break;
    case 'clock':
      s.clock = c.clock;
      if (s.status === 'pending' && c.clock.running) s.status = 'live';
      break;
    case 'board':
      if (c.placement === null) delete s.boardShown;
      else s.boardShown = c.placement;
      break;
    case 'result':
      s.result = c.result;
      s.status = c.result === '*' ? 'live' : 'finished';
      break;
    case 'incident':
      break;
    case 'game':
      Object.assign(s, c.summary);
      break;
  }
}

/** The overview's summary of a full game (the same fields, without the move list and incidents). */
export function summaryOf(s: GameState): GameSummary {
  return {
    id: s.id,
    round: s.round,
    table: s.table,
    white: s.white,
    black: s.black,
    status: s.status,
    result: s.result,
    ply: s.ply,
    fen: s.fen,
    lastMove: s.lastMove,
    clock: s.clock,
    ...(s.boardShown !== undefined ? { boardShown: s.boardShown } : {}),
  };
}

/** The side to move in a FEN. */
export function turnOf(fen: string): Color {
  return fen.split(' ')[1] === 'b' ? 'black' : 'white';
}

/**
 * Who made the move at `index` of the move list: the side to move in the position before it. After
 * a break in the record (a ply with no move, MoveRecord.gap) the ply's parity no longer tells.
 */
export function moverAt(g: Pick<GameState, 'startFen' | 'moves'>, index: number): Color {
  return turnOf(index === 0 ? g.startFen : (g.moves[index - 1]?.fenAfter ?? g.startFen));
}
