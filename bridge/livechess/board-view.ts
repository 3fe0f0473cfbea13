import type { ClockState, GameState, GameSummary, LiveSource } from '../../daemon/server/live-source.ts';
import type { EboardEvent, LiveChessClock } from './messages.ts';

/** The game a board's table is playing now: the live one, else the next pending, else the last one. */
export function currentGame(source: LiveSource, table: number): GameSummary | undefined {
  const atTable = source
    .rounds()
    .flatMap((r) => source.games(r.round) ?? [])
    .filter((g) => g.table === table);
  return (
    atTable.filter((g) => g.status === 'live').at(-1) ??
    atTable.find((g) => g.status === 'pending') ??
    atTable.filter((g) => g.status === 'finished').at(-1)
  );
}

export function liveChessClock(c: ClockState | null): LiveChessClock | null {
  if (!c) return null;
  return { white: Math.max(0, Math.floor(c.whiteMs / 1000)), black: Math.max(0, Math.floor(c.blackMs / 1000)), run: c.running, time: c.readAt };
}

/** Placement and side to move: enough to recognise a position whatever the clocks and ep notation. */
function positionKey(fen: string): string {
  const [placement, turn] = fen.trim().split(/\s+/);
  return `${placement ?? ''} ${turn ?? 'w'}`;
}

/**
 * The moves played since the position `setupFen` (LiveChess `setup`), which is how LiveChess
 * numbers its `san` list; with no setup, since the game's start. When the game never passed through
 * the setup position the list is empty (the client then follows the board placement only).
 */
export function sanSince(g: GameState, setupFen: string | null): string[] {
  if (setupFen === null) return g.moves.map((m) => m.san);
  const want = positionKey(setupFen);
  if (positionKey(g.startFen) === want) return g.moves.map((m) => m.san);
  const i = g.moves.findIndex((m) => positionKey(m.fenAfter) === want);
  return i < 0 ? [] : g.moves.slice(i + 1).map((m) => m.san);
}

export function eboardEvent(serialnr: string, g: GameState | undefined, setupFen: string | null): EboardEvent {
  if (!g) return { serialnr, flipped: false, board: '8/8/8/8/8/8/8/8', clock: null, san: [] };
  return { serialnr, flipped: false, board: g.fen.split(' ')[0] ?? '', clock: liveChessClock(g.clock), san: sanSince(g, setupFen) };
}
