import type { Color } from 'chessops';
import { Chess } from 'chessops/chess';
import { parseFen } from 'chessops/fen';
import { parseSquare } from 'chessops/util';
import type { BoardEvent } from '../../../protocols/board-events.ts';
import { PIECE, pieceToCode, squareToField, type PieceCode } from '../../../protocols/dgt/squares.ts';
import { GameEngine } from '../../../daemon/reconstruction/engine.ts';
import type { EngineOptions, GameEvent, RulesConfig } from '../../../daemon/reconstruction/game-events.ts';

const CODES: Record<string, PieceCode> = {
  P: PIECE.WPAWN,
  R: PIECE.WROOK,
  N: PIECE.WKNIGHT,
  B: PIECE.WBISHOP,
  K: PIECE.WKING,
  Q: PIECE.WQUEEN,
  p: PIECE.BPAWN,
  r: PIECE.BROOK,
  n: PIECE.BKNIGHT,
  b: PIECE.BBISHOP,
  k: PIECE.BKING,
  q: PIECE.BQUEEN,
};

export const STANDARD_RULES: RulesConfig = { edition: '2018', category: 'standard' };

/**
 * Hand-written board scripts: a physical board (in DGT fields, optionally turned round) that emits
 * the field, dump, clock and connection events a real board would, fed straight into an engine.
 * Squares are written as names ("e2"), pieces as FEN letters.
 */
export class Script {
  readonly engine: GameEngine;
  readonly board: PieceCode[] = new Array<PieceCode>(64).fill(PIECE.EMPTY);
  readonly events: GameEvent[] = [];
  t = 0;
  running: Color | null = null;
  white = 300_000;
  black = 300_000;
  connected = true;

  constructor(
    opts: Partial<EngineOptions> = {},
    readonly reversed = false,
  ) {
    this.engine = new GameEngine({ rules: STANDARD_RULES, ...opts });
  }

  field(name: string): number {
    const sq = parseSquare(name)!;
    return squareToField(this.reversed ? 63 - sq : sq);
  }

  /** Told of every board event the script sends (to feed a read model alongside the engine). */
  onBoardEvent: ((ev: BoardEvent) => void) | undefined;

  private send(ev: BoardEvent): this {
    this.events.push(...this.engine.push(ev));
    this.onBoardEvent?.(ev);
    return this;
  }

  /** Put a whole FEN position on the board, square by square (as a person setting up would). */
  setUp(fen = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'): this {
    const pos = Chess.fromSetup(parseFen(fen).unwrap()).unwrap();
    for (const [sq, piece] of pos.board) {
      const f = squareToField(this.reversed ? 63 - sq : sq);
      this.t += 10;
      this.board[f] = pieceToCode(piece);
      if (this.connected) this.send({ type: 'field', at: this.t, field: f, piece: this.board[f]! });
    }
    return this;
  }

  lift(name: string, gap = 300): this {
    this.t += gap;
    const f = this.field(name);
    this.board[f] = PIECE.EMPTY;
    return this.connected ? this.send({ type: 'field', at: this.t, field: f, piece: PIECE.EMPTY }) : this;
  }

  place(name: string, piece: string | PieceCode, gap = 300): this {
    this.t += gap;
    const f = this.field(name);
    this.board[f] = typeof piece === 'number' ? piece : CODES[piece]!;
    return this.connected ? this.send({ type: 'field', at: this.t, field: f, piece: this.board[f]! }) : this;
  }

  /**
   * A change read back from the board's log after the link came back (the board stayed powered
   * and logged it): sent whether or not the link is up, as a session's catch-up does before it
   * reports the board connected. `piece` omitted: the square emptied.
   */
  logged(name: string, piece?: string, gap = 300): this {
    this.t += gap;
    const f = this.field(name);
    this.board[f] = piece === undefined ? PIECE.EMPTY : CODES[piece]!;
    return this.send({ type: 'field', at: this.t, field: f, piece: this.board[f]!, logged: true });
  }

  /** Lift from `a` and place on `b` whatever stood on `a` (or `as`, for a promotion). */
  move(a: string, b: string, as?: string): this {
    const code = this.board[this.field(a)]!;
    this.lift(a);
    return this.place(b, as ?? code);
  }

  press(by: Color, gap = 200): this {
    this.t += gap;
    this.running = by === 'white' ? 'black' : 'white';
    return this.clock();
  }

  clock(): this {
    return this.send({
      type: 'clock',
      at: this.t,
      whiteMs: this.white,
      blackMs: this.black,
      running: this.running,
      whiteFlag: false,
      blackFlag: false,
    });
  }

  dump(gap = 100): this {
    this.t += gap;
    return this.send({ type: 'dump', at: this.t, board: this.board.slice() });
  }

  unplug(): this {
    this.t += 100;
    this.connected = false;
    return this.send({ type: 'connection', at: this.t, connected: false });
  }

  plug(): this {
    this.t += 100;
    this.connected = true;
    this.send({ type: 'connection', at: this.t, connected: true });
    return this.dump();
  }

  /** Plays a list of simple moves "e2e4" (with an optional promotion letter) and presses after each. */
  play(...ucis: string[]): this {
    for (const u of ucis) {
      const by: Color = this.engine.snapshot().fen.split(' ')[1] === 'w' ? 'white' : 'black';
      const from = u.slice(0, 2);
      const to = u.slice(2, 4);
      if (this.board[this.field(to)] !== PIECE.EMPTY) this.lift(to);
      const promo = u[4];
      this.move(from, to, promo ? (by === 'white' ? promo.toUpperCase() : promo) : undefined).press(by);
    }
    return this;
  }

  sans(): string[] {
    return this.engine.snapshot().moves.map((m) => m.san);
  }

  incidentKinds(): string[] {
    return this.engine.snapshot().incidents.map((i) => i.kind);
  }

  ofType<T extends GameEvent['type']>(type: T): Extract<GameEvent, { type: T }>[] {
    return this.events.filter((e): e is Extract<GameEvent, { type: T }> => e.type === type);
  }
}
