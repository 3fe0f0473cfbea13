import type { BoardEvent } from '../../protocols/board-events.ts';
import type { GameState } from '../../protocols/feed/model.ts';
import type { Store } from '../store/store.ts';
import type { ResultSource } from '../store/types.ts';
import type { Result } from '../../protocols/result.ts';

/** Who ended a game, from the read model's termination text (daemon/server/memory-live-source.ts). */
function resultSourceOf(termination: string | null): ResultSource {
  if (termination === 'arbiter decision') return 'arbiter';
  if (termination === 'result set on the board' || termination === 'result shown with the kings') return 'result-pieces';
  return 'engine';
}

/**
 * The store's derived rows (games, moves, results, incidents) are a function of the raw events:
 * the runtime makes them equal to the live read model the engines built from those events, after
 * every committed batch and once after the start-up replay. Making them equal (not appending what
 * the engine just said) is what keeps a crash between the raw commit and the derived write from
 * losing or duplicating anything: the next reconcile finds the gap and fills it, and a second
 * reconcile of the same state writes nothing.
 */
/** What places a game's rows: its live id, round and table (and start FEN for a new row). */
type GameKey = Pick<GameState, 'id' | 'round' | 'table' | 'startFen'>;

/** One clock reading as a committed raw event brought it, and the game it went to. */
export interface ClockRow {
  game: GameKey;
  rawEventId: number;
  wallMs: number;
  reading: Extract<BoardEvent, { type: 'clock' }>;
}

export class DerivedRows {
  /** live game id → store game id */
  private readonly ids = new Map<string, number>();

  /** `roundId`: the store's round row for a round number (null when the tournament has no such round). */
  constructor(
    private readonly store: Store,
    private readonly roundId: (round: number) => number | null = () => null,
  ) {}

  /**
   * The store row of a game: the one the round's start created for this table (round-lifecycle
   * startRound), else the table's `index`-th game (0-based, creation order), created when missing.
   */
  private storeId(g: GameKey, index: number): number {
    const known = this.ids.get(g.id);
    if (known !== undefined) return known;
    const roundId = this.roundId(g.round);
    if (roundId !== null) {
      const paired = this.store.gameIdsAt(roundId, g.table)[0];
      if (paired !== undefined) {
        this.ids.set(g.id, paired);
        return paired;
      }
      const id = this.store.createGame({ roundId, pairingId: null, table: g.table, startFen: g.startFen, wallMs: Date.now() });
      this.ids.set(g.id, id);
      return id;
    }
    // Games beyond the tournament's rounds (the demo hall keeps playing) have no round row: the
    // table's games of such rounds, in creation order.
    let slot = 0;
    for (let r = 1; r < g.round; r++) if (this.roundId(r) === null) slot++;
    void index;
    const rows = this.store.gameIdsAt(null, g.table);
    let id = rows[slot];
    if (id === undefined) {
      // Rows of earlier games are created first, so indices stay in creation order.
      for (let i = rows.length; i <= slot; i++) {
        id = this.store.createGame({ roundId: null, pairingId: null, table: g.table, startFen: g.startFen, wallMs: Date.now() });
      }
    }
    this.ids.set(g.id, id!);
    return id!;
  }

  /**
   * Stores clock readings, all or none (one transaction), each keyed by its raw event: a reading
   * already stored is left alone, so the start-up replay can offer every reading after the last
   * stored one again.
   */
  clockReadings(rows: readonly ClockRow[]): void {
    if (rows.length === 0) return;
    this.store.transaction(() => {
      for (const r of rows) {
        const c = r.reading;
        this.store.recordClock({
          gameId: this.storeId(r.game, r.game.round - 1),
          tableNumber: r.game.table,
          monoMs: c.at,
          wallMs: r.wallMs,
          whiteMs: c.whiteMs,
          blackMs: c.blackMs,
          running: c.running,
          whiteFlag: c.whiteFlag,
          blackFlag: c.blackFlag,
          rawEventId: r.rawEventId,
        });
      }
    });
  }

  /**
   * Writes what differs between the store and `g` (the `index`-th game at its table); idempotent.
   * `rederived`: `g` was derived again from the store with the amendments in force, so a result
   * stored as the arbiter's that `g` no longer has (its amendment undone) is reopened too.
   */
  reconcile(g: GameState, index: number, opts: { rederived?: boolean } = {}): { written: number; problems: string[] } {
    const problems: string[] = [];
    let written = 0;
    const note = (r: Result<void, string>): void => {
      if (!r.ok) problems.push(r.error);
      else written++;
    };
    this.store.transaction(() => {
      const id = this.storeId(g, index);
      const row = this.store.game(id);
      if (!row) {
        problems.push(`store game ${id} vanished`);
        return;
      }
      if (row.startFen !== g.startFen) {
        this.store.setStartFen(id, g.startFen);
        written++;
      }
      if (g.status !== 'pending' && row.status === 'pending') {
        this.store.markGameLive(id, Date.now());
        written++;
      }
      const stored = this.store.moves(id);
      let same = 0;
      while (same < stored.length && same < g.moves.length && stored[same]!.uci === g.moves[same]!.uci && stored[same]!.san === g.moves[same]!.san) same++;
      if (same < stored.length) {
        if (same < g.moves.length) {
          note(
            this.store.amendMoves(
              id,
              same + 1,
              g.moves.slice(same).map((m) => ({ ply: m.ply, san: m.san, uci: m.uci, fenAfter: m.fenAfter, wallMs: Math.round(m.at), clockMs: m.clockMs })),
            ),
          );
        } else note(this.store.takeback(id, same));
      } else {
        // Event times may be fractional (moves caught up from a board's log are spread between whole ms).
        for (const m of g.moves.slice(same)) note(this.store.recordMove(id, { ply: m.ply, san: m.san, uci: m.uci, fenAfter: m.fenAfter, wallMs: Math.round(m.at), clockMs: m.clockMs }));
      }
      // %clk of confirmed moves (the press that confirms a move carries the mover's time).
      const now = same < stored.length ? this.store.moves(id) : stored;
      for (let i = 0; i < Math.min(now.length, g.moves.length); i++) {
        const live = g.moves[i]!;
        if (live.clockMs !== null && now[i]!.clockMs !== live.clockMs) note(this.store.confirmMove(id, live.ply, live.clockMs));
      }
      // Incidents follow the game in order; a game derived again (an amendment or its undo) may
      // have lost some or have others from a point on: the stored ones from there are replaced.
      const incidents = this.store.incidents(id);
      let kept = 0;
      while (kept < incidents.length && kept < g.incidents.length && sameIncident(incidents[kept]!, g.incidents[kept]!)) kept++;
      if (kept < incidents.length) written += this.store.dropIncidentsAfter(id, kept);
      for (const inc of g.incidents.slice(kept)) {
        this.store.recordIncident(id, { ply: inc.ply, kind: inc.kind, article: inc.article, consequence: inc.consequence, message: inc.message, wallMs: Math.round(inc.at) });
        written++;
      }
      const after = this.store.game(id)!;
      const source = resultSourceOf(g.termination);
      if (g.status === 'finished' && g.result !== '*' && (after.status !== 'finished' || after.result !== g.result || after.resultSource !== source)) {
        // The read model carries the arbiter's decisions too (replayed from the audit trail), so it
        // is the truth; only a result some other tool wrote as the arbiter's is left alone.
        if (after.resultSource !== 'arbiter' || source === 'arbiter') note(this.store.finishGame(id, { result: g.result, source, termination: g.termination, wallMs: Date.now() }));
      } else if (g.status !== 'finished' && after.status === 'finished' && (after.resultSource !== 'arbiter' || opts.rederived)) {
        note(this.store.reopenGame(id));
      }
    });
    return { written, problems };
  }
}

/** A stored incident is the game's: the same ply, kind and words. */
function sameIncident(stored: { ply: number; kind: string; message: string }, live: { ply: number; kind: string; message: string }): boolean {
  return stored.ply === live.ply && stored.kind === live.kind && stored.message === live.message;
}
