import type { BoardEvent } from '../../protocols/board-events.ts';
import { PIECE, squareToField, type DgtField, type PieceCode } from '../../protocols/dgt/squares.ts';
import type { ArbiterCommand, EngineOptions } from '../reconstruction/game-events.ts';
import { recogniseStart } from '../../protocols/dgt/start-position.ts';
import type { MemoryLiveSource } from './memory-live-source.ts';
import type { GameId, PlayerInfo } from '../../protocols/feed/model.ts';
import type { RoundStart } from '../tournament/config.ts';

/** The players of a round's game at a table, from the imported pairings; undefined when unpaired. */
export type PairingLookup = (round: number, table: number) => { white: PlayerInfo; black: PlayerInfo } | undefined;

/** What the arbiter set for a whole game (amendments in force): players swapped, a Chess960 start. */
export interface GameSettings {
  swapColours?: boolean;
  chess960Start?: string;
}

/** How many of a table's last field updates are kept (the EEPROM catch-up anchors on them). */
const RECENT_FIELDS = 16;

/**
 * What the router knows of one table, decided from its event stream and the hall commands alone,
 * so a replay of the store finds the same games in the same state.
 */
export interface TableTrack {
  number: number;
  /** The game the table's events go to; null before its first game, or between games in 'arbiter' mode. */
  gameId: GameId | null;
  /** Round of the table's latest game (0 before the first). */
  round: number;
  /** Every game the table has had, in order. */
  games: GameId[];
  /** Id of the table's last raw event routed: where an arbiter action falls among them. */
  lastEventId?: number;
  /** The board as its events show it: raw piece codes in DGT field order (0 = a8). */
  board: PieceCode[];
  /** Whether any dump or field update has been seen (else `board` tells nothing). */
  seenBoard: boolean;
  /** The last field updates, oldest first, and the time of the last board event. */
  recentFields: { field: DgtField; piece: PieceCode }[];
  lastAt: number;
  /**
   * The board's events since it last showed a start position (field changes, dumps, and clock
   * readings where a lever was pressed or a flag fell), so a game opened late — a round the
   * arbiter started after the first moves — still sees the game from its start. Null when unknown
   * or too long.
   */
  sinceStart: { board: PieceCode[]; at: number; events: BoardEvent[] } | null;
  lastClock: Extract<BoardEvent, { type: 'clock' }> | null;
}

/** How many events `sinceStart` keeps (a long game has a few hundred field changes and presses). */
const SINCE_START_LIMIT = 5_000;

export function newTrack(number: number): TableTrack {
  return {
    number,
    gameId: null,
    round: 0,
    games: [],
    board: Array<PieceCode>(64).fill(PIECE.EMPTY),
    seenBoard: false,
    recentFields: [],
    lastAt: 0,
    sinceStart: null,
    lastClock: null,
  };
}

/**
 * A decision an arbiter took for the hall, replayed at the point of the event stream where it was
 * taken. `game`: a command for one game's engine. `start-round`: the listed tables open their game
 * of that round. `close-round`: the round is over (its unfinished games stay as they are).
 */
export type HallCommand =
  { kind: 'game'; table: number; gameId: GameId; command: ArbiterCommand } | { kind: 'start-round'; round: number; tables: number[]; at: number } | { kind: 'close-round'; round: number; at: number };

const unnamed = (name: string): PlayerInfo => ({ name, title: null, rating: null, federation: null, fideId: null });

export const gameIdOf = (round: number, table: number): GameId => `r${round}-t${table}`;

/**
 * A start position (standard or Chess960, either way round on the table) on a raw board. Only a
 * dump or setting up can show one: no sequence of moves in a game leads back to it.
 */
export function showsStartPosition(board: readonly PieceCode[]): boolean {
  // Cheap first: a start has its 2nd and 7th ranks full of pawns and the four between empty.
  for (let f = 8; f < 16; f++) {
    const a = board[f];
    const b = board[f + 40];
    if ((a !== PIECE.WPAWN && a !== PIECE.BPAWN) || (b !== PIECE.WPAWN && b !== PIECE.BPAWN)) return false;
  }
  for (let f = 16; f < 48; f++) if (board[f] !== PIECE.EMPTY) return false;
  const upright = (s: number): number => board[squareToField(s)]!;
  const reversed = (s: number): number => board[63 - squareToField(s)]!;
  return recogniseStart(upright) !== undefined || recogniseStart(reversed) !== undefined;
}

export interface HallRouterOptions {
  /** How games open (config rounds.start). */
  mode: RoundStart;
  pairings?: PairingLookup;
  /** Engine options of every game (the config's rules edition, category, Chess960). */
  engine?: EngineOptions;
  /**
   * A table reached a game boundary at a stored raw event: its board shows a start position after
   * a game that is over. Called before the next game opens, with the track as it then stands (what
   * `resumeAt` takes back after a restart).
   */
  onBoundary?: (track: TableTrack, rawEventId: number) => void;
}

/**
 * Routes each table's committed board events to the game they belong to, and applies the hall
 * commands (round starts and closes, arbiter actions). Pure in (its inputs, in order): the
 * daemon's live path and every replay of the store go through it and so build the same games.
 *
 * Game boundaries. A table's game is over for the router once it has a result or at least two
 * moves; after that, a board showing a start position again (a dump, or the last piece of a
 * set-up) is the next game being set up, never a takeback of the whole game. In 'board' mode that
 * opens the table's next round; in 'arbiter' mode the table waits for the arbiter's next round
 * start. Either way the finished game keeps its moves.
 */
export class HallRouter {
  private readonly byTable = new Map<number, TableTrack>();
  /** Settings the arbiter gave whole games (players swapped, a Chess960 start), by game id. */
  private settings = new Map<GameId, GameSettings>();

  constructor(
    readonly live: MemoryLiveSource,
    private readonly opts: HallRouterOptions,
  ) {}

  track(table: number): TableTrack {
    let t = this.byTable.get(table);
    if (!t) {
      t = newTrack(table);
      this.byTable.set(table, t);
    }
    return t;
  }

  tracks(): TableTrack[] {
    return [...this.byTable.values()].sort((a, b) => a.number - b.number);
  }

  get mode(): RoundStart {
    return this.opts.mode;
  }

  /** The engine options every game of the hall opens with. */
  get engineOptions(): EngineOptions | undefined {
    return this.opts.engine;
  }

  /** A router of the same hall (mode, pairings, rules) over another read model: a scratch replay. */
  sibling(live: MemoryLiveSource): HallRouter {
    const r = new HallRouter(live, this.opts);
    r.settings = new Map(this.settings);
    return r;
  }

  /** The arbiter's settings of whole games (from the amendments in force), used as games open. */
  setGameSettings(settings: ReadonlyMap<GameId, GameSettings>): void {
    this.settings = new Map(settings);
  }

  gameSettings(gameId: GameId): GameSettings {
    return this.settings.get(gameId) ?? {};
  }

  /** Puts a table's track back as a live snapshot stored it (a restart that serves before replaying). */
  placeTrack(track: TableTrack): void {
    Object.assign(this.track(track.number), track);
  }

  /** Takes over a table's track from a scratch replay; the object stays the one the table links hold. */
  adoptTrack(from: TableTrack): void {
    Object.assign(this.track(from.number), structuredClone(from));
  }

  /** The players of a game at a table: its pairing's (or placeholders), swapped when the arbiter said so. */
  private playersOf(gameId: GameId, round: number, table: number): { white: PlayerInfo; black: PlayerInfo } {
    const paired = this.opts.pairings?.(round, table);
    const white = paired?.white ?? unnamed(`White (table ${table})`);
    const black = paired?.black ?? unnamed(`Black (table ${table})`);
    return this.settings.get(gameId)?.swapColours ? { white: black, black: white } : { white, black };
  }

  /** A game's engine options: the hall's, or a Chess960 start the arbiter marked. */
  engineFor(gameId: GameId): EngineOptions | undefined {
    return this.engineOf(gameId);
  }

  private engineOf(gameId: GameId): EngineOptions | undefined {
    const start = this.settings.get(gameId)?.chess960Start;
    if (start === undefined) return this.opts.engine;
    return { ...(this.opts.engine ?? { rules: { edition: '2018', category: 'standard' } }), chess960: true, start: { fen: start } };
  }

  /** Announces a game's players again (after a swap): a `game` change; false for an unknown game. */
  refreshGame(gameId: GameId): boolean {
    const g = this.live.progress(gameId);
    if (!g) return false;
    const engine = this.engineOf(gameId);
    this.live.addGame({ id: gameId, round: g.round, table: g.table, ...this.playersOf(gameId, g.round, g.table), ...(engine ? { engine } : {}) });
    return true;
  }

  /** Routes one committed event of a table; returns the game it went to (null: none). */
  route(table: number, ev: BoardEvent, rawEventId?: number): GameId | null {
    const t = this.track(table);
    if (rawEventId !== undefined) t.lastEventId = rawEventId;
    const atStart = observe(t, ev);
    if (t.gameId === null) {
      if (this.opts.mode === 'arbiter') return null;
      // A table's first game opens with its first event (the engine waits for a start position).
      this.open(t, t.round + 1, undefined);
      this.pushTo(t, t.gameId!, ev);
      return t.gameId;
    }
    if (atStart && this.isOver(t.gameId)) {
      if (rawEventId !== undefined) this.opts.onBoundary?.(t, rawEventId);
      return this.nextGame(t, ev);
    }
    this.pushTo(t, t.gameId, ev);
    return t.gameId;
  }

  /**
   * Feeds a game one event of its table. When the game's engine threw on it (a fault in
   * boardcast: MemoryLiveSource keeps it to the game and counts it), the engine may not have taken the change
   * in, and would read every later change against a board that is not on the table: it is shown
   * the board as the table has it, as one scan, and reads on from there.
   */
  private pushTo(t: TableTrack, id: GameId, ev: BoardEvent): void {
    const faults = this.live.faultsOf(id);
    this.live.push(id, ev);
    if (this.live.faultsOf(id) > faults && t.seenBoard) this.live.push(id, { type: 'dump', at: ev.at, board: t.board.slice() });
  }

  /** After a game boundary: the table's next round opens ('board'), or waits for the arbiter. */
  private nextGame(t: TableTrack, ev: BoardEvent): GameId | null {
    if (this.opts.mode === 'arbiter') {
      t.gameId = null;
      return null;
    }
    this.open(t, t.round + 1, ev.at);
    return t.gameId;
  }

  /**
   * Takes a table back to a game boundary stored before a restart: `track` as `onBoundary` gave it
   * at raw event `rawEventId` (whose event is `ev`), the games it lists already in the live source.
   * Goes on exactly as `route` went on from there.
   */
  resumeAt(track: TableTrack, ev: BoardEvent, rawEventId: number): GameId | null {
    track.lastEventId = rawEventId;
    this.byTable.set(track.number, track);
    return this.nextGame(track, ev);
  }

  /** Applies a hall command to the whole hall (as the arbiter takes it). */
  apply(cmd: HallCommand): void {
    if (cmd.kind === 'start-round') for (const table of cmd.tables) this.applyAt(table, cmd);
    else if (cmd.kind === 'game') this.applyAt(cmd.table, cmd);
    else this.live.setRoundStatus(cmd.round, 'finished');
  }

  /**
   * The part of a command that concerns one table, for replays that go table by table: a round
   * start opens this table's game; a game command applies to its own table; a close concerns no
   * table (apply it once with `apply`).
   */
  applyAt(table: number, cmd: HallCommand): void {
    switch (cmd.kind) {
      case 'game':
        if (cmd.table === table) this.live.arbiter(cmd.gameId, cmd.command);
        return;
      case 'start-round': {
        if (!cmd.tables.includes(table)) return;
        this.live.setRoundStatus(cmd.round, 'live');
        const t = this.track(table);
        if (t.gameId !== gameIdOf(cmd.round, table)) this.open(t, cmd.round, cmd.at);
        return;
      }
      case 'close-round':
        return;
    }
  }

  /**
   * Gives every game the players its pairing names now (pairings imported after the game opened,
   * or corrected); returns the ids of the games whose players changed (each sent as a `game` change).
   */
  refreshPlayers(): GameId[] {
    const changed: GameId[] = [];
    for (const t of this.byTable.values()) {
      for (const id of t.games) {
        const g = this.live.progress(id);
        if (!g || !this.opts.pairings?.(g.round, g.table)) continue;
        const paired = this.playersOf(id, g.round, g.table);
        const now = this.live.game(id)!;
        if (JSON.stringify([now.white, now.black]) === JSON.stringify([paired.white, paired.black])) continue;
        const engine = this.engineOf(id);
        this.live.addGame({ id, round: g.round, table: g.table, white: paired.white, black: paired.black, ...(engine ? { engine } : {}) });
        changed.push(id);
      }
    }
    return changed;
  }

  /** Whether the table's game no longer takes the board's start position as a takeback. */
  isOver(gameId: GameId): boolean {
    const p = this.live.progress(gameId);
    return p !== undefined && (p.status === 'finished' || p.ply >= 2);
  }

  /**
   * Opens the table's game of `round`. `lookAt`: when the board is already known, the new game's
   * engine first sees it as one scan at that time (it may already show the start position).
   */
  private open(t: TableTrack, round: number, lookAt: number | undefined): void {
    const id = gameIdOf(round, t.number);
    t.round = round;
    t.gameId = id;
    t.games.push(id);
    const engine = this.engineOf(id);
    this.live.addGame({ id, round, table: t.number, ...this.playersOf(id, round, t.number), ...(engine ? { engine } : {}) });
    if (lookAt === undefined || !t.seenBoard) return;
    const since = t.sinceStart;
    if (since && since.events.length > 0 && !showsStartPosition(t.board)) {
      // Play the game from its start position: the engine reconstructs the moves made before it opened.
      this.live.push(id, { type: 'dump', at: since.at, board: since.board.slice() });
      for (const ev of since.events) this.live.push(id, ev);
    }
    this.live.push(id, { type: 'dump', at: lookAt, board: t.board.slice() });
  }
}

/** Updates the track's view of its board; returns whether the board now shows a start position. */
function observe(t: TableTrack, ev: BoardEvent): boolean {
  const before = t.lastClock;
  if (ev.type === 'clock') {
    t.lastClock = ev;
    // Only presses and flags matter to a late game's moves; the ticking in between does not.
    if (t.sinceStart && (!before || before.running !== ev.running || before.whiteFlag !== ev.whiteFlag || before.blackFlag !== ev.blackFlag)) keepSinceStart(t, ev);
    return false;
  }
  if (ev.type === 'field') {
    if (!Number.isInteger(ev.field) || ev.field < 0 || ev.field > 63) return false;
    t.board[ev.field] = ev.piece;
    t.seenBoard = true;
    t.recentFields.push({ field: ev.field, piece: ev.piece });
    if (t.recentFields.length > RECENT_FIELDS) t.recentFields.shift();
    t.lastAt = ev.at;
  } else if (ev.type === 'dump') {
    if (!Array.isArray(ev.board) || ev.board.length !== 64) return false;
    t.board = ev.board.slice();
    t.seenBoard = true;
    t.lastAt = ev.at;
  } else return false;
  if (showsStartPosition(t.board)) {
    t.sinceStart = { board: t.board.slice(), at: ev.at, events: [] };
    return true;
  }
  if (t.sinceStart) keepSinceStart(t, ev);
  return false;
}

function keepSinceStart(t: TableTrack, ev: BoardEvent): void {
  if (!t.sinceStart) return;
  if (t.sinceStart.events.length >= SINCE_START_LIMIT) t.sinceStart = null;
  else t.sinceStart.events.push(ev);
}
