import type { BoardEvent } from '../../protocols/board-events.ts';
import { applyToGame, moverAt, summaryOf } from '../../protocols/feed/apply.ts';
import { GameEngine } from '../reconstruction/engine.ts';
import type { ArbiterCommand, Consequence, EngineOptions, GameEvent, Incident, Termination } from '../reconstruction/game-events.ts';
import { pgnFromReadModel } from '../../protocols/feed/pgn.ts';
import { INITIAL_FEN } from 'chessops/fen';
import type {
  ChangeListener,
  ClockState,
  GameChange,
  GameId,
  GameState,
  GameSummary,
  IncidentRecord,
  LiveSource,
  MoveRecord,
  PlayerInfo,
  RoundInfo,
  TournamentInfo,
} from '../../protocols/feed/model.ts';

export interface MemoryGameConfig {
  id: GameId;
  round: number;
  table: number;
  white: PlayerInfo;
  black: PlayerInfo;
  engine?: EngineOptions;
}

export interface MemorySourceConfig {
  tournament: TournamentInfo;
  rounds: RoundInfo[];
  games: MemoryGameConfig[];
  /** Wall clock for `readAt`/`at` stamps (epoch ms); injectable for tests. */
  now?: () => number;
  /**
   * The board events' own `at` is wall-clock epoch ms (the daemon's sessions run on wall time):
   * stamp moves, incidents and clock readings with it, so a rebuild from the store gives every
   * move the time it was played, not the time of the rebuild.
   */
  eventTime?: boolean;
  /**
   * Builds the engine of a game restored from a snapshot (its table moved on before a restart) when
   * an arbiter decision reaches it: a source holding the game replayed from the store. Without it,
   * such a game takes no further decisions.
   */
  hydrate?: (id: GameId) => MemoryLiveSource | undefined;
}

/** A game's read model as a restart restores it without replaying it (daemon/runtime/checkpoint-restore.ts). */
export interface GameSnapshotState {
  state: GameState;
  lastReading: ClockState | null;
  nextIncidentId: number;
}

/**
 * A clock reading becomes a `clock` change only when it tells a client something it could not
 * extrapolate: the running side or a flag changed, or the time drifted from the extrapolation by
 * more than this (an arbiter adjustment, a paused clock restarting).
 */
const CLOCK_DRIFT_MS = 1500;

const TERMINATION_TEXT: Record<Termination, string> = {
  checkmate: 'checkmate',
  stalemate: 'stalemate',
  'insufficient-material': 'insufficient material',
  'fivefold-repetition': 'fivefold repetition',
  'seventy-five-moves': '75-move rule',
  'result-pieces': 'result set on the board',
  'result-kings': 'result shown with the kings',
  arbiter: 'arbiter decision',
};

function consequenceText(c: Consequence): string {
  switch (c.kind) {
    case 'position-reinstated':
      return 'position before the irregularity reinstated';
    case 'time-added':
      return `${Math.round(c.ms / 60000)} minutes added to ${c.to}`;
    case 'game-lost':
      return `game lost (${c.loser}), ${c.result}`;
    case 'game-drawn':
      return 'drawn: the opponent cannot checkmate';
    case 'claim-required':
      return `applies only if ${c.by} claims before moving`;
    case 'win-claimable':
      return `${c.by} may claim the win (${c.result})`;
    case 'pawn-becomes-queen':
      return `pawn on ${c.square} becomes a queen`;
    case 'played-as-castling':
      return `played as ${c.san}`;
    case 'arbiter-decides':
      return `arbiter decides: ${c.note}`;
  }
}

interface Table {
  cfg: MemoryGameConfig;
  /** Null for a game restored from its snapshot until a decision needs it (`hydrate`). */
  engine: GameEngine | null;
  state: GameState;
  nextIncidentId: number;
  /** The table's latest clock reading, published or not (the drift filter skips most). */
  lastReading: ClockState | null;
}

/** An engine step that threw: the game, what it was given (a board event's or a decision's type) and the error. */
export interface EngineFault {
  gameId: GameId;
  on: string;
  error: string;
}

const MAX_FAULTS = 100;

/**
 * LiveSource kept in memory, driven by real reconstruction engines: feed each table's BoardEvents
 * with `push` and the read model and change stream follow what the engine recognised. Used by the
 * server's tests and bench, and a base for the runtime's store-backed source.
 */
export class MemoryLiveSource implements LiveSource {
  private readonly tables = new Map<GameId, Table>();
  private readonly listeners = new Set<ChangeListener>();
  private readonly now: () => number;
  /** Listener failures, counted rather than thrown into the board pipeline. */
  listenerErrors = 0;
  /**
   * Engine failures (a bug in boardcast), kept to their game rather than thrown into the board
   * pipeline, a restart's replay or an arbiter's request: the other games go on, and a decision
   * stored before its engine threw cannot stop the next start. The latest MAX_FAULTS are kept.
   */
  readonly engineFaults: EngineFault[] = [];
  /** Told of each engine failure as it happens (the daemon logs it with its stack). */
  onEngineFault: ((fault: EngineFault, error: unknown) => void) | undefined;
  /** Engine failures per game since the source was made (engineFaults keeps the latest only). */
  private readonly faultsByGame = new Map<GameId, number>();

  constructor(private readonly cfg: MemorySourceConfig) {
    this.now = cfg.now ?? Date.now;
    for (const g of cfg.games) this.createTable(g);
  }

  /**
   * Adds a game (pairings published during the event) or replaces a pending game's pairing;
   * subscribers get a `game` change. A game that has started keeps its engine and moves.
   */
  addGame(g: MemoryGameConfig): GameChange[] {
    const existing = this.tables.get(g.id);
    if (existing) {
      existing.cfg = g;
      Object.assign(existing.state, { round: g.round, table: g.table, white: g.white, black: g.black });
    } else {
      this.cfg.games.push(g);
      this.createTable(g);
    }
    if (!this.cfg.rounds.some((r) => r.round === g.round)) {
      this.cfg.rounds.push({ round: g.round, date: null, startsAt: null, status: 'upcoming', gameCount: 0 });
      this.cfg.rounds.sort((a, b) => a.round - b.round);
    }
    const t = this.tables.get(g.id)!;
    const change: GameChange = { kind: 'game', gameId: g.id, summary: summaryOf(t.state) };
    this.emit(t, [change]);
    return [change];
  }

  private createTable(g: MemoryGameConfig): void {
    const startFen = g.engine?.start?.fen ?? INITIAL_FEN;
    this.tables.set(g.id, {
      cfg: g,
      engine: new GameEngine(g.engine ?? { rules: { edition: '2018', category: 'standard' } }),
      nextIncidentId: 1,
      lastReading: null,
      state: {
        id: g.id,
        round: g.round,
        table: g.table,
        white: g.white,
        black: g.black,
        status: 'pending',
        result: '*',
        ply: 0,
        fen: startFen,
        lastMove: null,
        clock: null,
        startFen,
        moves: [],
        termination: null,
        incidents: [],
        ...(g.engine?.chess960 && g.engine.start ? { variant: 'chess960' as const } : {}),
      },
    });
  }

  /**
   * Puts back a game its table has left, from its snapshot: the read model as it was, no engine
   * (one is rebuilt from the store if an arbiter decision reaches the game). No change is emitted:
   * this is the state subscribers will read, not news.
   */
  restoreGame(cfg: MemoryGameConfig, snap: GameSnapshotState): void {
    this.cfg.games.push(cfg);
    this.tables.set(cfg.id, { cfg, engine: null, state: snap.state, lastReading: snap.lastReading, nextIncidentId: snap.nextIncidentId });
    if (!this.cfg.rounds.some((r) => r.round === cfg.round)) {
      this.cfg.rounds.push({ round: cfg.round, date: null, startsAt: null, status: 'upcoming', gameCount: 0 });
      this.cfg.rounds.sort((a, b) => a.round - b.round);
    }
  }

  /** How the game was configured (its players and engine options), for a live snapshot. */
  gameConfig(id: GameId): MemoryGameConfig | undefined {
    return this.tables.get(id)?.cfg;
  }

  /** What a snapshot of the game holds (its JSON is what the store keeps and digests). */
  snapshot(id: GameId): GameSnapshotState | undefined {
    const t = this.tables.get(id);
    return t && { state: t.state, lastReading: t.lastReading, nextIncidentId: t.nextIncidentId };
  }

  /** Whether the game runs on an engine (false: restored from a snapshot and not needed since). */
  hasEngine(id: GameId): boolean {
    return this.tables.get(id)?.engine != null;
  }

  /**
   * Where the engine of a game restored from its snapshot comes from (set once by the runtime,
   * which knows the store): a source holding the game replayed from the store.
   */
  onHydrate(fn: (id: GameId) => MemoryLiveSource | undefined): void {
    this.cfg.hydrate = fn;
  }

  /**
   * Makes sure the game runs on an engine, rebuilding it from the store for a game restored from
   * its snapshot; false when it cannot. Call before recording a decision for the game, so the
   * replay that rebuilds it does not already hold that decision.
   */
  ensureEngine(id: GameId): boolean {
    const t = this.tables.get(id);
    return t !== undefined && this.engineOf(t) !== null;
  }

  /** The game's engine, rebuilt from the store for a game restored from its snapshot. */
  private engineOf(t: Table): GameEngine | null {
    if (t.engine) return t.engine;
    const from = this.cfg.hydrate?.(t.cfg.id)?.tables.get(t.cfg.id);
    if (!from?.engine) return null;
    t.engine = from.engine;
    t.state = from.state;
    t.lastReading = from.lastReading;
    t.nextIncidentId = from.nextIncidentId;
    return t.engine;
  }

  /**
   * Takes over a game as another source derived it (a table replayed again after an amendment or
   * its undo): its engine and state replace this one's, and subscribers get one `game` change
   * carrying the whole state, so every feed and output shows the game as it is now.
   */
  adopt(from: MemoryLiveSource, id: GameId): GameChange[] {
    const theirs = from.tables.get(id);
    if (!theirs) return [];
    if (!this.cfg.games.some((g) => g.id === id)) this.cfg.games.push(theirs.cfg);
    if (!this.cfg.rounds.some((r) => r.round === theirs.cfg.round)) {
      this.cfg.rounds.push({ round: theirs.cfg.round, date: null, startsAt: null, status: 'upcoming', gameCount: 0 });
      this.cfg.rounds.sort((a, b) => a.round - b.round);
    }
    const t: Table = { ...theirs, state: structuredClone(theirs.state), lastReading: theirs.lastReading && { ...theirs.lastReading } };
    this.tables.set(id, t);
    // The replay behind an adopted game (an arbiter's undo, a catch-up) may have thrown where the
    // live engine did not: the game adopted is the one /health answers for. Not added up: the same
    // fault met again in a replay is one fault.
    const faults = from.faultsOf(id);
    if (faults > this.faultsOf(id)) this.faultsByGame.set(id, faults);
    const change: GameChange = { kind: 'game', gameId: id, summary: summaryOf(t.state), state: structuredClone(t.state) };
    this.emit(t, [change]);
    return [change];
  }

  /** Status and plies of a game without copying it (the router asks on every start-position check). */
  progress(id: GameId): Pick<GameState, 'id' | 'round' | 'table' | 'status' | 'ply' | 'startFen'> | undefined {
    const t = this.tables.get(id);
    return t && { id, round: t.state.round, table: t.state.table, status: t.state.status, ply: t.state.ply, startFen: t.state.startFen };
  }

  /** Lists rounds before they have games (the store's rounds, with their dates and status). */
  declareRounds(rounds: readonly RoundInfo[]): void {
    for (const r of rounds) {
      const known = this.cfg.rounds.find((x) => x.round === r.round);
      if (known) Object.assign(known, { date: r.date, startsAt: r.startsAt, status: r.status });
      else this.cfg.rounds.push({ ...r, gameCount: 0 });
    }
    this.cfg.rounds.sort((a, b) => a.round - b.round);
  }

  /** The arbiter started ('live') or closed ('finished') a round. */
  setRoundStatus(round: number, status: 'live' | 'finished'): void {
    const r = this.cfg.rounds.find((x) => x.round === round);
    if (r) r.status = status;
    else this.cfg.rounds.push({ round, date: null, startsAt: null, status, gameCount: 0 });
    this.cfg.rounds.sort((a, b) => a.round - b.round);
  }

  tournament(): TournamentInfo {
    return this.cfg.tournament;
  }

  /**
   * A configured status is kept once a round has no games yet; otherwise the games decide: any game
   * live → 'live', all finished → 'finished', so viewers open on the round being played.
   */
  rounds(): RoundInfo[] {
    return this.cfg.rounds.map((r) => {
      const games = [...this.tables.values()].filter((t) => t.cfg.round === r.round);
      // A round the arbiter closed is over, even with an adjourned game in it.
      const status: RoundInfo['status'] =
        r.status === 'finished'
          ? 'finished'
          : games.length === 0
            ? r.status
            : games.some((t) => t.state.status === 'live')
              ? 'live'
              : games.every((t) => t.state.status === 'finished')
                ? 'finished'
                : r.status;
      return { ...r, status, closed: r.status === 'finished', gameCount: games.length };
    });
  }

  games(round: number): GameSummary[] | undefined {
    if (!this.cfg.rounds.some((r) => r.round === round)) return undefined;
    return [...this.tables.values()]
      .filter((t) => t.cfg.round === round)
      .sort((a, b) => a.cfg.table - b.cfg.table)
      .map((t) => summaryOf(t.state));
  }

  game(id: GameId): GameState | undefined {
    const t = this.tables.get(id);
    return t ? structuredClone(t.state) : undefined;
  }

  pgn(id: GameId): string | undefined {
    return pgnFromReadModel(this, id);
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Feeds one board/clock observation of a game's table; returns the changes it caused. */
  push(id: GameId, ev: BoardEvent): GameChange[] {
    const t = this.tables.get(id);
    if (!t) return [];
    const changes: GameChange[] = [];
    if (ev.type === 'clock') {
      const c = this.clockChange(t, ev);
      if (c) changes.push(c);
    }
    const engine = this.engineOf(t);
    if (engine) for (const ge of this.guarded(t, engine, ev.type, () => engine.push(ev))) changes.push(...this.translate(t, ge));
    this.emit(t, changes);
    return changes;
  }

  /** An arbiter decision (result, position) for a game; returns the changes it caused. */
  arbiter(id: GameId, cmd: ArbiterCommand): GameChange[] {
    const t = this.tables.get(id);
    if (!t) return [];
    if (cmd.type === 'set-clock') {
      const changes = this.correctClock(t, cmd);
      this.emit(t, changes);
      return changes;
    }
    const changes: GameChange[] = [];
    const engine = this.engineOf(t);
    if (!engine) return [];
    for (const ge of this.guarded(t, engine, cmd.type, () => engine.arbiter(cmd))) changes.push(...this.translate(t, ge));
    // A game whose board never showed its start (a player did not come: a forfeit) has no engine
    // game to end, but the arbiter's result stands all the same.
    if (cmd.type === 'set-result' && changes.length === 0 && t.state.status === 'pending') {
      changes.push({ kind: 'result', gameId: id, result: cmd.result, termination: TERMINATION_TEXT.arbiter, at: this.stamp(cmd.at) });
    }
    this.emit(t, changes);
    return changes;
  }

  /**
   * A clock reading corrected: as of a ply, that move's %clk (the mover's time; the other side's
   * is the next move's business); as of now (or of the last ply), the clock too, running on as it ran.
   */
  private correctClock(t: Table, cmd: Extract<ArbiterCommand, { type: 'set-clock' }>): GameChange[] {
    const s = t.state;
    const changes: GameChange[] = [];
    const ply = cmd.ply ?? s.moves.length;
    const m = cmd.ply !== undefined ? s.moves[cmd.ply - 1] : undefined;
    if (m) {
      const mover = moverAt(s, m.ply - 1);
      const ms = mover === 'white' ? cmd.whiteMs : cmd.blackMs;
      if (ms !== undefined && ms !== m.clockMs) changes.push({ kind: 'amendment', gameId: t.cfg.id, fromPly: m.ply, moves: [{ ...m, clockMs: ms }, ...s.moves.slice(m.ply)] });
    }
    if (ply === s.moves.length) {
      const base: ClockState = s.clock ?? t.lastReading ?? { whiteMs: 0, blackMs: 0, running: null, readAt: this.stamp(cmd.at), whiteFlag: false, blackFlag: false };
      const clock: ClockState = {
        ...base,
        whiteMs: cmd.whiteMs ?? extrapolated(base, 'white', this.stamp(cmd.at)),
        blackMs: cmd.blackMs ?? extrapolated(base, 'black', this.stamp(cmd.at)),
        readAt: this.stamp(cmd.at),
        whiteFlag: cmd.whiteMs !== undefined ? cmd.whiteMs === 0 && base.whiteFlag : base.whiteFlag,
        blackFlag: cmd.blackMs !== undefined ? cmd.blackMs === 0 && base.blackFlag : base.blackFlag,
      };
      t.lastReading = clock;
      changes.push({ kind: 'clock', gameId: t.cfg.id, clock });
    }
    return changes;
  }

  /** Engine failures of a game so far (GET /health shows its table's). */
  faultsOf(id: GameId): number {
    return this.faultsByGame.get(id) ?? 0;
  }

  /**
   * Runs one engine step. When it throws, what it had derived before is still published (the
   * engine's state already holds it) and the failure is kept and told; nothing is thrown on.
   */
  private guarded(t: Table, engine: GameEngine, on: string, step: () => GameEvent[]): GameEvent[] {
    const before = engine.derivedSoFar();
    try {
      return step();
    } catch (e) {
      const fault: EngineFault = { gameId: t.cfg.id, on, error: String((e as Error)?.message ?? e) };
      this.faultsByGame.set(t.cfg.id, this.faultsOf(t.cfg.id) + 1);
      if (this.engineFaults.push(fault) > MAX_FAULTS) this.engineFaults.shift();
      this.onEngineFault?.(fault, e);
      // Each step starts a new list: the same list means it threw before deriving anything, and
      // what it holds is the step before's, already published.
      const derived = engine.derivedSoFar();
      return derived === before ? [] : derived;
    }
  }

  /**
   * Applies and publishes `changes` in order. A result that ends a game while its clock runs is
   * followed by a `clock` change stopping it (inserted into `changes`, so callers see it too): a
   * finished game's clock must not keep ticking in views that extrapolate the running side.
   */
  private emit(t: Table, changes: GameChange[]): void {
    for (let i = 0; i < changes.length; i++) {
      const c = changes[i]!;
      applyToGame(t.state, c);
      for (const l of this.listeners) {
        try {
          l(c);
        } catch {
          this.listenerErrors++;
        }
      }
      if (c.kind === 'result' && t.state.status === 'finished' && t.state.clock?.running) {
        changes.splice(i + 1, 0, { kind: 'clock', gameId: c.gameId, clock: stoppedClock(t.lastReading ?? t.state.clock) });
      }
    }
  }

  private stamp(eventAt: number): number {
    // Whole ms: times of moves caught up from a board's log are spread between whole ms.
    return this.cfg.eventTime ? Math.round(eventAt) : this.now();
  }

  private clockChange(t: Table, ev: Extract<BoardEvent, { type: 'clock' }>): GameChange | null {
    const readAt = this.stamp(ev.at);
    const next: ClockState = {
      whiteMs: ev.whiteMs,
      blackMs: ev.blackMs,
      running: ev.running,
      readAt,
      whiteFlag: ev.whiteFlag,
      blackFlag: ev.blackFlag,
    };
    t.lastReading = next;
    // A finished game's clock stopped with its result (emit): the clock on the table may run on
    // until the players stop it, but that is not the game's time any more.
    if (t.state.status === 'finished') return null;
    const prev = t.state.clock;
    if (prev && prev.running === next.running && prev.whiteFlag === next.whiteFlag && prev.blackFlag === next.blackFlag) {
      const elapsed = readAt - prev.readAt;
      const expectW = prev.running === 'white' ? prev.whiteMs - elapsed : prev.whiteMs;
      const expectB = prev.running === 'black' ? prev.blackMs - elapsed : prev.blackMs;
      if (Math.abs(expectW - next.whiteMs) <= CLOCK_DRIFT_MS && Math.abs(expectB - next.blackMs) <= CLOCK_DRIFT_MS) return null;
    }
    return { kind: 'clock', gameId: t.cfg.id, clock: next };
  }

  private translate(t: Table, ge: GameEvent): GameChange[] {
    const gameId = t.cfg.id;
    const s = t.state;
    switch (ge.type) {
      case 'game-started': {
        const hadMoves = s.moves.length > 0;
        s.startFen = ge.fen;
        if (s.status === 'pending') s.status = 'live';
        if (hadMoves || s.fen !== ge.fen) return [{ kind: 'takeback', gameId, toPly: 0, fen: ge.fen, lastMove: null }];
        s.fen = ge.fen;
        return [];
      }
      case 'move-made': {
        const move: MoveRecord = {
          ply: ge.ply,
          san: ge.san,
          uci: ge.uci,
          fenAfter: ge.fenAfter,
          at: this.stamp(ge.at),
          clockMs: ge.clock ? (ge.by === 'white' ? ge.clock.whiteMs : ge.clock.blackMs) : null,
          ...(ge.uncertain ? { uncertain: ge.uncertain } : {}),
          ...(ge.gap ? { gap: { ...ge.gap } } : {}),
        };
        return [{ kind: 'move', gameId, move }];
      }
      case 'move-confirmed': {
        // The clock press that confirms a move carries the mover's time: that is its %clk.
        const m = s.moves[ge.ply - 1];
        if (!m || !ge.clock) return [];
        const moverWhite = ge.mover ? ge.mover === 'white' : ge.ply % 2 === 1 ? !s.startFen.includes(' b ') : s.startFen.includes(' b ');
        const clockMs = moverWhite ? ge.clock.whiteMs : ge.clock.blackMs;
        if (m.clockMs === clockMs) return [];
        return [{ kind: 'amendment', gameId, fromPly: ge.ply, moves: [{ ...m, clockMs }, ...s.moves.slice(ge.ply)] }];
      }
      case 'move-amended': {
        const m = s.moves[ge.ply - 1];
        // A break the arbiter accepted: the same ply, marked; the moves after it stay.
        if (ge.gap && m) return [{ kind: 'amendment', gameId, fromPly: ge.ply, moves: [{ ...m, gap: { ...ge.gap } }, ...s.moves.slice(ge.ply)] }];
        const move: MoveRecord = { ply: ge.ply, san: ge.san, uci: ge.uci, fenAfter: ge.fenAfter, at: this.stamp(ge.at), clockMs: m?.clockMs ?? null };
        return [{ kind: 'amendment', gameId, fromPly: ge.ply, moves: [move] }];
      }
      case 'takeback': {
        const last = s.moves[ge.toPly - 1];
        return [{ kind: 'takeback', gameId, toPly: ge.toPly, fen: ge.fen, lastMove: last ? { uci: last.uci, san: last.san } : null }];
      }
      case 'incident':
        return [{ kind: 'incident', gameId, incident: this.incidentRecord(t, ge.incident) }];
      case 'claimable':
        return [
          {
            kind: 'incident',
            gameId,
            incident: {
              id: t.nextIncidentId++,
              ply: ge.ply,
              at: this.stamp(ge.at),
              kind: `claimable-${ge.reason}`,
              article: ge.article,
              consequence: 'a draw may be claimed',
              message: `${ge.reason.replace('-', ' ')}: a draw may be claimed (Art ${ge.article})`,
            },
          },
        ];
      case 'game-ended':
        return [{ kind: 'result', gameId, result: ge.result, termination: TERMINATION_TEXT[ge.termination], at: this.stamp(ge.at) }];
      case 'board-shown':
        return [{ kind: 'board', gameId, placement: ge.placement }];
    }
    return [];
  }

  private incidentRecord(t: Table, i: Incident): IncidentRecord {
    return {
      id: t.nextIncidentId++,
      ply: i.ply,
      at: this.stamp(i.at),
      kind: i.kind,
      article: i.article ? i.article : null,
      consequence: i.consequences.length > 0 ? i.consequences.map(consequenceText).join('; ') : null,
      message: i.message,
    };
  }
}

/** One side's time at `at` from a reading, the running side counting down. */
function extrapolated(c: ClockState, side: 'white' | 'black', at: number): number {
  const ms = side === 'white' ? c.whiteMs : c.blackMs;
  return c.running === side ? Math.max(0, ms - Math.max(0, at - c.readAt)) : ms;
}

/** The clock as its last reading showed it, stopped: the times stand where the game ended. */
function stoppedClock(c: ClockState): ClockState {
  return { ...c, running: null };
}
