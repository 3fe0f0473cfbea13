import type { GameChange, MoveRecord } from '../../protocols/feed/model.ts';
import type { ReplayLabel } from '../../protocols/feed/timeline.ts';
import type { HallCommand } from './hall-router.ts';

export type { ReplayLabel };

/** The moves of each game as the replay has seen them so far. */
export class MoveBook {
  private readonly games = new Map<string, MoveRecord[]>();

  /** Labels one change and records it. Clock ticks say nothing to an arbiter: null. */
  label(c: GameChange): ReplayLabel | null {
    const moves = this.games.get(c.gameId) ?? [];
    this.games.set(c.gameId, moves);
    switch (c.kind) {
      case 'move':
        moves.length = c.move.ply - 1;
        moves.push(c.move);
        return { kind: 'move', ply: c.move.ply, san: c.move.san, uci: c.move.uci };
      case 'amendment': {
        const before = moves.slice(c.fromPly - 1);
        moves.length = Math.max(0, c.fromPly - 1);
        moves.push(...c.moves);
        const sameMoves = before.length === c.moves.length && before.every((m, i) => m.uci === c.moves[i]!.uci);
        const first = c.moves[0];
        if (sameMoves && first) return { kind: 'confirmation', ply: first.ply, san: first.san, clockMs: first.clockMs };
        return { kind: 'amendment', fromPly: c.fromPly, before: before.map((m) => m.san), after: c.moves.map((m) => m.san) };
      }
      case 'takeback':
        moves.length = Math.min(moves.length, c.toPly);
        return { kind: 'takeback', toPly: c.toPly };
      case 'result':
        return { kind: 'result', result: c.result, termination: c.termination };
      case 'incident':
        return { kind: 'incident', incident: c.incident };
      case 'game':
        return { kind: 'game', gameId: c.gameId, round: c.summary.round, table: c.summary.table };
      case 'clock':
      case 'board':
        return null;
    }
  }
}

function clock(ms: number | null): string {
  if (ms === null) return '';
  const s = Math.round(ms / 1000);
  return ` (clock ${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')})`;
}

/** One line of text for a label. */
export function describeLabel(l: ReplayLabel): string {
  switch (l.kind) {
    case 'move':
      return `move ${l.ply}: ${l.san} (${l.uci})`;
    case 'confirmation':
      return `confirmed ${l.ply}: ${l.san} by the clock press${clock(l.clockMs)}`;
    case 'amendment':
      return `amended from ply ${l.fromPly}: ${l.before.join(' ') || '(nothing)'} → ${l.after.join(' ') || '(nothing)'}`;
    case 'takeback':
      return `takeback to ply ${l.toPly}`;
    case 'result':
      return `result ${l.result}${l.termination ? ` (${l.termination})` : ''}`;
    case 'incident': {
      const i = l.incident;
      return `incident ${i.kind}${i.article ? ` [Art. ${i.article}]` : ''}: ${i.message}${i.consequence ? ` → ${i.consequence}` : ''}`;
    }
    case 'game':
      return `game ${l.gameId} (round ${l.round}, table ${l.table})`;
  }
}

/** An arbiter's decision, in words. */
export function describeCommand(c: HallCommand): string {
  switch (c.kind) {
    case 'start-round':
      return `round ${c.round} started`;
    case 'close-round':
      return `round ${c.round} closed`;
    case 'game': {
      const g = c.command;
      const what =
        g.type === 'set-result'
          ? `result ${g.result}`
          : g.type === 'reinstate'
            ? `position after ply ${g.ply} reinstated`
            : g.type === 'replace-moves'
              ? `moves after ply ${g.fromPly} set to ${g.sans.join(' ')}`
              : g.type === 'accept-board'
                ? `the board's position accepted${g.ply !== undefined ? ` at ply ${g.ply}` : ''}`
                : g.type === 'set-clock'
                  ? `clock corrected${g.ply !== undefined ? ` at ply ${g.ply}` : ''}: ${[g.whiteMs !== undefined ? `White ${g.whiteMs} ms` : '', g.blackMs !== undefined ? `Black ${g.blackMs} ms` : ''].filter(Boolean).join(', ')}`
                  : `position set: ${g.fen}`;
      return `${c.gameId}: ${what}`;
    }
  }
}
