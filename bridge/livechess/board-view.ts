import type { ClockState, GameState, GameSummary, LiveSource } from '../../protocols/feed/model.ts';
import { movesBeforeBreak } from '../../protocols/feed/pgn.ts';
import type { EboardEvent, LiveChessClock } from './messages.ts';

/** The game a board's table is playing now: the live one, else the next pending, else the last one. */
export function currentGame(source: LiveSource, table: number): GameSummary | undefined {
  const atTable = source
    .rounds()
    .flatMap((r) => source.games(r.round) ?? [])
    .filter((g) => g.table === table);
  return atTable.filter((g) => g.status === 'live').at(-1) ?? atTable.find((g) => g.status === 'pending') ?? atTable.filter((g) => g.status === 'finished').at(-1);
}

/**
 * The clock as LiveChess sends it: whole seconds left, `run` true while White's clock runs, false
 * while Black's, null when stopped, and the reading's time. A finished game's clock is stopped
 * whatever the last reading said, so clients that extrapolate the running side stop ticking.
 */
export function liveChessClock(c: ClockState | null, finished = false): LiveChessClock | null {
  if (!c) return null;
  const run = finished || c.running === null ? null : c.running === 'white';
  return { white: Math.max(0, Math.floor(c.whiteMs / 1000)), black: Math.max(0, Math.floor(c.blackMs / 1000)), run, time: c.readAt };
}

/** Placement and side to move: enough to recognise a position whatever the clocks and ep notation. */
function positionKey(fen: string): string {
  const [placement, turn] = fen.trim().split(/\s+/);
  return `${placement ?? ''} ${turn ?? 'w'}`;
}

/** The position after `ply` confirmed moves (0 = the start position). */
function fenAt(g: GameState, ply: number): string | undefined {
  return ply === 0 ? g.startFen : g.moves[ply - 1]?.fenAfter;
}

/**
 * Where the `setup` position stands in the game: the ply it was found at before, if the game still
 * passes through it there, else its latest occurrence (the client sends `setup` with the position
 * both sides have now, so a repetition earlier in the game is not it). Null while the game has not
 * reached it, e.g. the opponent's online move is not yet made on the board.
 */
export function resolveSetupPly(g: GameState, setupFen: string, knownPly: number | null): number | null {
  const want = positionKey(setupFen);
  if (knownPly !== null) {
    const f = fenAt(g, knownPly);
    if (f !== undefined && positionKey(f) === want) return knownPly;
  }
  for (let ply = g.moves.length; ply >= 0; ply--) if (positionKey(fenAt(g, ply)!) === want) return ply;
  return null;
}

/**
 * The moves since the setup (LiveChess numbers its `san` list from the last `setup`), or since the
 * game's start without one; empty while the game has not reached the setup position.
 */
export function sanSince(g: GameState, setup: { fen: string; ply: number | null } | null): string[] {
  // The page replays the SANs: the list stops at a break in the record (the board is still right).
  if (setup === null) return movesBeforeBreak(g.moves).map((m) => m.san);
  return setup.ply === null ? [] : movesBeforeBreak(g.moves.slice(setup.ply)).map((m) => m.san);
}

export function eboardEvent(serialnr: string, g: GameState | undefined, setup: { fen: string; ply: number | null } | null): EboardEvent {
  if (!g) return { serialnr, flipped: false, board: '8/8/8/8/8/8/8/8', clock: null, san: [] };
  return { serialnr, flipped: false, board: g.fen.split(' ')[0] ?? '', clock: liveChessClock(g.clock, g.status === 'finished'), san: sanSince(g, setup) };
}
