import type { Color } from 'chessops';
import { Chess } from 'chessops/chess';
import { parseSan } from 'chessops/san';
import { makeFen } from 'chessops/fen';
import type { BoardEvent } from '../../protocols/board-events.ts';
import { pieceToCode, squareToField, PIECE } from '../../protocols/dgt/squares.ts';
import type { PhysicalAction } from '../../daemon/simulation/emulator/physical.ts';
import { Tabletop } from '../../daemon/simulation/emulator/tabletop.ts';
import type { GameChange, PlayerInfo, RoundInfo, TournamentInfo } from '../../protocols/feed/model.ts';
import { MemoryLiveSource, type MemoryGameConfig } from '../../daemon/runtime/memory-live-source.ts';

/**
 * A small hall for the server's tests, e2e and bench: real Tabletops (board sensors + Fischer
 * clock) whose observations go through real reconstruction engines inside a MemoryLiveSource.
 * Moves are played the way a tidy player does: lift what leaves, put down what arrives, press.
 */

const PLAYERS: PlayerInfo[] = [
  { name: 'Lenart, Ana', title: 'WGM', rating: 2391, federation: 'SLO', fideId: 14600001 },
  { name: 'Petrović, Marko', title: 'GM', rating: 2588, federation: 'SRB', fideId: 930001 },
  { name: 'Kováč, Ján', title: 'IM', rating: 2455, federation: 'SVK', fideId: 14900001 },
  { name: 'Horvat, Luka', title: 'FM', rating: 2310, federation: 'CRO', fideId: 14500001 },
  { name: 'Novak, Eva', title: null, rating: 2104, federation: 'SLO', fideId: 14600002 },
  { name: 'Jovanović, Nina', title: 'WIM', rating: 2240, federation: 'SRB', fideId: 930002 },
  { name: 'Baláž, Peter', title: null, rating: 1987, federation: 'SVK', fideId: null },
  { name: 'Smith, John', title: 'GM', rating: 2601, federation: 'ENG', fideId: 400001 },
];

export function player(i: number): PlayerInfo {
  const p = PLAYERS[i % PLAYERS.length]!;
  return i < PLAYERS.length ? p : { ...p, name: `${p.name} ${Math.floor(i / PLAYERS.length) + 1}`, fideId: null };
}

export const TIME_CONTROL = { baseMs: 90 * 60_000, incrementMs: 30_000 };

export interface HallOptions {
  tables: number;
  /** Wall clock for the source (epoch ms). */
  now?: () => number;
}

interface TableState {
  id: string;
  top: Tabletop;
  pos: Chess;
  /** Positions before each move played, for takebacks. */
  history: Chess[];
  t: number;
}

export class Hall {
  readonly source: MemoryLiveSource;
  readonly tables: TableState[] = [];
  readonly tournament: TournamentInfo;

  constructor(opts: HallOptions) {
    this.tournament = {
      id: 'ljubljana-open-2026',
      name: 'Ljubljana Open 2026',
      site: 'Ljubljana SLO',
      startDate: '2026-11-21',
      endDate: '2026-11-29',
      timeControl: '5400+30',
      variant: 'standard',
      roundCount: 9,
    };
    const rounds: RoundInfo[] = [
      { round: 1, date: '2026-11-21', startsAt: '2026-11-21T15:00:00Z', status: 'live', gameCount: opts.tables },
      { round: 2, date: '2026-11-22', startsAt: '2026-11-22T15:00:00Z', status: 'upcoming', gameCount: 0 },
    ];
    const games: MemoryGameConfig[] = [];
    for (let i = 0; i < opts.tables; i++) {
      const id = `r1-t${i + 1}`;
      games.push({ id, round: 1, table: i + 1, white: player(2 * i), black: player(2 * i + 1) });
      this.tables.push({ id, top: new Tabletop({ clock: TIME_CONTROL }), pos: Chess.default(), history: [], t: 0 });
    }
    const cfg = { tournament: this.tournament, rounds, games, ...(opts.now ? { now: opts.now } : {}) };
    this.source = new MemoryLiveSource(cfg);
  }

  table(id: string): TableState {
    const t = this.tables.find((x) => x.id === id);
    if (!t) throw new Error(`no table ${id}`);
    return t;
  }

  /** Board scan and clock reading as a freshly connected board sends them. */
  connectAll(): GameChange[] {
    const out: GameChange[] = [];
    for (const t of this.tables) {
      out.push(...this.source.push(t.id, { type: 'dump', at: t.t, board: t.top.board() }));
      const c = t.top.clockAt(t.t);
      if (c) out.push(...this.source.push(t.id, c));
    }
    return out;
  }

  apply(id: string, action: PhysicalAction): GameChange[] {
    const t = this.table(id);
    const out: GameChange[] = [];
    for (const ev of t.top.apply(action)) out.push(...this.push(id, ev));
    return out;
  }

  push(id: string, ev: BoardEvent): GameChange[] {
    return this.source.push(id, ev);
  }

  /** Plays one legal move in SAN physically at the table and presses the clock. */
  play(id: string, san: string, thinkMs = 2000): GameChange[] {
    const t = this.table(id);
    const move = parseSan(t.pos, san);
    if (!move) throw new Error(`${id}: ${san} is not legal in ${makeFen(t.pos.toSetup())}`);
    const before = t.pos.board.clone();
    const mover: Color = t.pos.turn;
    t.history.push(t.pos.clone());
    t.pos.play(move);
    t.t += thinkMs;
    const out = this.rearrange(id, before, mover);
    t.t += 300;
    out.push(...this.apply(id, { kind: 'press', at: t.t, by: mover }));
    return out;
  }

  /** The players put the last move back by hand (no clock press): a takeback on the board. */
  takeBack(id: string): GameChange[] {
    const t = this.table(id);
    const previous = t.history.pop();
    if (!previous) throw new Error(`${id}: nothing to take back`);
    const before = t.pos.board.clone();
    const mover = previous.turn === 'white' ? 'black' : 'white';
    t.pos = previous;
    t.t += 1000;
    return this.rearrange(id, before, mover);
  }

  /** Lifts and places pieces so the board goes from `before` to the table's position now. */
  private rearrange(id: string, before: Chess['board'], mover: Color): GameChange[] {
    const t = this.table(id);
    const after = t.pos.board;
    const out: GameChange[] = [];
    const changed: number[] = [];
    for (let sq = 0; sq < 64; sq++) {
      const a = before.get(sq);
      const b = after.get(sq);
      if (a?.color !== b?.color || a?.role !== b?.role) changed.push(sq);
    }
    // Own pieces leave first, then captured ones, then pieces are put down.
    const lifts = changed.filter((sq) => before.get(sq)).sort((x, y) => Number(before.get(y)?.color === mover) - Number(before.get(x)?.color === mover));
    for (const sq of lifts) {
      t.t += 150;
      out.push(...this.apply(id, { kind: 'lift', at: t.t, field: squareToField(sq) }));
    }
    for (const sq of changed) {
      const p = after.get(sq);
      if (!p) continue;
      t.t += 150;
      out.push(...this.apply(id, { kind: 'place', at: t.t, field: squareToField(sq), piece: pieceToCode(p) }));
    }
    return out;
  }

  /** Pulls the board's cable and plugs it back (the board re-dumps after the reconnect). */
  replug(id: string): GameChange[] {
    const t = this.table(id);
    t.t += 500;
    const out = this.apply(id, { kind: 'unplug', at: t.t });
    t.t += 2000;
    out.push(...this.apply(id, { kind: 'plug', at: t.t }));
    return out;
  }

  /**
   * A physically illegal move (a piece put where no legal move takes it) and the clock press, then
   * the position before it reinstated by hand (FIDE 7.5.1).
   */
  illegal(id: string, fromSq: string, toSq: string): GameChange[] {
    const t = this.table(id);
    const from = squareToField(sqIndex(fromSq));
    const to = squareToField(sqIndex(toSq));
    const piece = t.top.board()[from]!;
    t.t += 1000;
    const out = this.apply(id, { kind: 'lift', at: t.t, field: from });
    t.t += 200;
    out.push(...this.apply(id, { kind: 'place', at: t.t, field: to, piece: piece === PIECE.EMPTY ? PIECE.WPAWN : piece }));
    t.t += 300;
    out.push(...this.apply(id, { kind: 'press', at: t.t, by: t.pos.turn }));
    t.t += 3000;
    out.push(...this.apply(id, { kind: 'lift', at: t.t, field: to }));
    t.t += 200;
    out.push(...this.apply(id, { kind: 'place', at: t.t, field: from, piece }));
    return out;
  }

  fen(id: string): string {
    return makeFen(this.table(id).pos.toSetup());
  }
}

function sqIndex(name: string): number {
  return (name.charCodeAt(1) - 49) * 8 + (name.charCodeAt(0) - 97);
}

/** Opening moves for the tables (each table plays its own line). */
export const LINES: string[][] = [
  ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5', 'a6', 'Ba4', 'Nf6', 'O-O', 'Be7', 'Re1', 'b5', 'Bb3', 'd6'],
  ['d4', 'Nf6', 'c4', 'e6', 'Nc3', 'Bb4', 'e3', 'O-O', 'Bd3', 'd5', 'Nf3', 'c5', 'O-O', 'dxc4'],
  ['e4', 'c5', 'Nf3', 'd6', 'd4', 'cxd4', 'Nxd4', 'Nf6', 'Nc3', 'a6', 'Be3', 'e5', 'Nb3', 'Be6'],
  ['c4', 'e5', 'Nc3', 'Nf6', 'Nf3', 'Nc6', 'g3', 'd5', 'cxd5', 'Nxd5', 'Bg2', 'Nb6', 'O-O', 'Be7'],
  ['d4', 'd5', 'c4', 'c6', 'Nf3', 'Nf6', 'Nc3', 'dxc4', 'a4', 'Bf5', 'e3', 'e6', 'Bxc4', 'Bb4'],
  ['e4', 'e6', 'd4', 'd5', 'Nc3', 'Bb4', 'e5', 'c5', 'a3', 'Bxc3+', 'bxc3', 'Ne7', 'Qg4', 'O-O'],
  ['Nf3', 'd5', 'g3', 'Nf6', 'Bg2', 'e6', 'O-O', 'Be7', 'd3', 'O-O', 'Nbd2', 'c5', 'e4', 'Nc6'],
  ['e4', 'e5', 'f4', 'exf4', 'Nf3', 'g5', 'h4', 'g4', 'Ne5', 'Nf6', 'd4', 'd6', 'Nd3', 'Nxe4'],
];
