import type { Color, NormalMove, Square } from 'chessops';
import type { Chess } from 'chessops/chess';
import { makeBoardFen } from 'chessops/fen';
import { makeSan } from 'chessops/san';
import { opposite, squareRank } from 'chessops/util';
import type { BoardEvent } from '../../../protocols/board-events.ts';
import { PIECE, pieceToCode, squareToField, type PieceCode } from '../../../protocols/dgt/squares.ts';
import type { PhysicalAction } from '../emulator/physical.ts';
import { observe, type TimeControl } from '../emulator/tabletop.ts';
import type { SourceGame } from '../games/game.ts';
import { positionFromFen } from '../games/pgn.ts';
import { Prng } from '../games/prng.ts';
import { Hands } from './hands.ts';
import { MOVE_STYLES, performMove, shapeOf, styleApplies, type MoveShape, type MoveStyle } from './moves.ts';

/** Per-game noise models. Move styles act on every move they fit; the others strike some moves. */
export const NOISE_MODELS = [
  ...MOVE_STYLES,
  'moved-after-release',
  'knock',
  'hesitate',
  'sensor-flicker',
  'promotion-unreplaced',
  'illegal-corrected',
  'illegal-completed',
  'takeback',
  'arbiter-reinstate',
  'disconnect',
  'reversed',
  'blitz',
  'mixed',
] as const;
export type NoiseModel = (typeof NOISE_MODELS)[number];

/**
 * What the player does that an arbiter would want to know about, in the FIDE Laws' terms. The
 * player states it on its own; the tests hold it against what the engine reports (harness.ts
 * checks at compile time that every kind here is one the engine can report), so a change on one
 * side cannot quietly follow the other.
 */
export type InjectedIncidentKind = 'pawn-not-replaced' | 'moved-after-release' | 'rook-first-castling' | 'illegal-move' | 'board-disconnected' | 'missed-moves' | 'board-resynchronised';

/** An incident the script injects, as an arbiter watching the board would record it. */
export interface ExpectedIncident {
  kind: InjectedIncidentKind;
  /**
   * Moves played in the intended game when it happens; for an incident about a move of the game
   * (rook-first castling, pawn not replaced, moved after release) that move's own ply, as the
   * engine records it.
   */
  ply: number;
  by?: Color;
}

export interface ExpectedOutcome {
  startFen: string;
  /** The final intended game. */
  sans: string[];
  incidents: ExpectedIncident[];
  /** `toPly` of each takeback the board shows, in order (the board stepping back one ply at a time). */
  takebacks: number[];
}

/** An arbiter's instruction at a time in the script (fed to GameEngine.arbiter). */
export type ScriptedArbiterCommand = { type: 'reinstate'; at: number; ply: number };

export interface NoisyScript {
  gameId: string;
  model: NoiseModel;
  seed: number;
  reversed: boolean;
  clock: TimeControl | null;
  /** The physical board (DGT field order) before the first action. */
  board: PieceCode[];
  actions: PhysicalAction[];
  arbiter: ScriptedArbiterCommand[];
  expected: ExpectedOutcome;
  /** The planned outage as played: the ply it began at and the plies played meanwhile (absent: none played). */
  outage?: { fromPly: number; plies: number };
}

export interface NoisyOptions {
  model: NoiseModel;
  seed: number;
  /** Force a clock (or none); default: drawn from the seed, 70% of games with a clock. */
  clock?: TimeControl | null;
  /** Force the board turned round; default: only the 'reversed' model and 20% of 'mixed' games. */
  reversed?: boolean;
  /** One planned outage of the board (the outage-table harness); the model's own cable pulls are then left out. */
  outage?: OutagePlan;
}

/**
 * The board goes away after `afterPly` plies while `plies` moves are played, then comes back.
 * 'power': its USB cable is pulled (the board is off: it logs nothing meanwhile); 'link': its link
 * drops while it keeps its power (it logs everything). `pieceInHand`: the next player has already
 * lifted a piece when it comes back, so the first dump is taken with that piece in the hand.
 * `clockAdjustMs`: while the board is away, after one of the moves made meanwhile (drawn from the
 * seed), someone adds that much to one player's time by hand (an arbiter's two minutes after an
 * illegal move), in a game with a clock.
 */
export interface OutagePlan {
  afterPly: number;
  plies: number;
  kind: 'power' | 'link';
  pieceInHand: boolean;
  clockAdjustMs?: number;
}

/** The longest a live board's scan can see a landing before the emptying of the square it came from. */
const SCAN_ORDER_MS = 180;

const TIME_CONTROLS: readonly TimeControl[] = [
  { baseMs: 90 * 60_000, incrementMs: 30_000 },
  { baseMs: 15 * 60_000, incrementMs: 10_000 },
  { baseMs: 5 * 60_000, incrementMs: 3_000 },
];

const BLITZ: TimeControl = { baseMs: 3 * 60_000, incrementMs: 2_000 };

/** Models that only mean something when a clock press completes a move (FIDE 6.2, 7.5). */
const NEEDS_CLOCK: readonly NoiseModel[] = ['promotion-unreplaced', 'illegal-completed', 'arbiter-reinstate'];

/** Chance per move that an occasional incident model strikes. */
const STRIKE = 0.12;

/**
 * A physical script for playing `game` at a table the way people do, under one noise model, with
 * what a perfect reconstruction must conclude from it. Deterministic in (game, model, seed).
 */
export function playNoisy(game: SourceGame, opts: NoisyOptions): NoisyScript {
  const rng = new Prng(opts.seed ^ hash(game.id) ^ hash(opts.model));
  const model = opts.model;
  const wantsClock = NEEDS_CLOCK.includes(model) || rng.chance(0.7);
  const clock = opts.clock !== undefined ? opts.clock : model === 'blitz' ? BLITZ : wantsClock ? rng.pick(TIME_CONTROLS) : null;
  const reversed = opts.reversed ?? (model === 'reversed' || (model === 'mixed' && rng.chance(0.2)));
  const pos = positionFromFen(game.startFen);
  const board = physicalBoard(pos, reversed);
  const h = new Hands(rng, reversed, { board, clock });
  h.fast = model === 'blitz';
  const w = new Writer(h, pos, clock !== null, model, opts.outage ?? null);
  // The player not to move starts the opponent's clock; in some mixed games nobody does, and the
  // first move's press starts it.
  if (clock && !(model === 'mixed' && rng.chance(0.3))) h.press(opposite(pos.turn), rng.int(500, 3000));
  w.run(game.moves);
  return {
    gameId: game.id,
    model,
    seed: opts.seed,
    reversed,
    clock,
    board,
    actions: h.actions,
    arbiter: w.arbiter,
    expected: { startFen: game.startFen, sans: w.sans, incidents: w.incidents, takebacks: w.takebacks },
    ...(w.outagePlayed ? { outage: w.outagePlayed } : {}),
  };
}

/** What the board and clock report for a script, as a session sees it from its first dump. */
export function sessionEvents(script: NoisyScript): BoardEvent[] {
  return [{ type: 'dump', at: 0, board: script.board.slice() }, ...observe(script.actions, { board: script.board, clock: script.clock })];
}

/** How a position stands on the board, in DGT field order (turned round when `reversed`). */
export function physicalBoard(pos: Chess, reversed: boolean): PieceCode[] {
  const board = new Array<PieceCode>(64).fill(PIECE.EMPTY);
  for (const [sq, piece] of pos.board) board[squareToField(reversed ? 63 - sq : sq)] = pieceToCode(piece);
  return board;
}

function hash(s: string): number {
  let x = 2166136261;
  for (let i = 0; i < s.length; i++) x = Math.imul(x ^ s.charCodeAt(i), 16777619);
  return x >>> 0;
}

interface Played {
  move: NormalMove;
  shape: MoveShape;
}

/** Plays the game move by move, weaving in the model's incidents and recording what they mean. */
class Writer {
  readonly sans: string[] = [];
  readonly incidents: ExpectedIncident[] = [];
  readonly takebacks: number[] = [];
  readonly arbiter: ScriptedArbiterCommand[] = [];
  private readonly history: Played[] = [];
  private readonly start: Chess;
  /** Moves still to play (a takeback puts moves back in front). */
  private queue: NormalMove[] = [];
  /** Illegal-move family count per player (7.5.1–7.5.4 share one): at most one each, since 7.5.5 ends the game at two. */
  private readonly illegal = { white: 0, black: 0 };

  /** The planned outage as it was played. */
  outagePlayed: { fromPly: number; plies: number } | null = null;

  constructor(
    private readonly h: Hands,
    private readonly pos: Chess,
    private readonly clock: boolean,
    private readonly model: NoiseModel,
    private readonly outage: OutagePlan | null = null,
  ) {
    this.start = pos.clone();
  }

  run(moves: NormalMove[]): void {
    this.queue = moves.slice();
    while (this.queue.length > 0) {
      if (this.outage && this.outagePlayed === null && this.ply >= this.outage.afterPly) {
        this.flushLatePress();
        this.plannedOutage(this.outage);
        continue;
      }
      if (!this.outage && this.strikes('disconnect')) {
        this.flushLatePress();
        if (this.disconnected()) continue;
      }
      const mark = this.h.actions.length;
      const late = this.latePress;
      this.latePress = null;
      this.move(this.queue.shift()!, this.queue.length === 0);
      if (late !== null) {
        // Blitz: the opponent's hand was already on a piece when the press landed.
        const first = this.h.actions[mark]!;
        this.h.actions.splice(mark + 1, 0, { kind: 'press', at: first.at, by: late });
      }
    }
    this.flushLatePress();
  }

  /** A press put off to the opponent's first touch (blitz), or null. */
  private latePress: Color | null = null;

  private flushLatePress(): void {
    if (this.latePress !== null) this.h.press(this.latePress, this.h.rng.int(50, 300));
    this.latePress = null;
  }

  private get ply(): number {
    return this.sans.length;
  }

  private strikes(m: NoiseModel): boolean {
    if (this.model === m) return this.h.rng.chance(STRIKE * 2);
    return this.model === 'mixed' && this.h.rng.chance(STRIKE / 4);
  }

  private styleFor(shape: MoveShape): MoveStyle {
    if ((MOVE_STYLES as readonly string[]).includes(this.model)) return this.model as MoveStyle;
    if (this.model !== 'mixed') return 'clean';
    const fitting = MOVE_STYLES.filter((s) => styleApplies(s, shape));
    return this.h.rng.pick(fitting);
  }

  move(move: NormalMove, last: boolean): void {
    const h = this.h;
    const by = this.pos.turn;
    const shape = shapeOf(this.pos, move);
    h.wait(h.think());

    // Touching the castling rook before the king would make the castling 4.4.2's rook-first case,
    // which these models do not claim: they leave that rook alone.
    const spare = shape.kind === 'castle' ? shape.rook : -1;
    if (this.strikes('hesitate')) this.hesitate(spare);
    if (this.strikes('sensor-flicker')) this.flicker();
    if (this.strikes('illegal-corrected')) this.illegalMove(false, spare);
    else if (this.clock && this.illegal[by] === 0 && this.strikes('illegal-completed') && this.illegalMove(true, spare)) {
      this.illegal[by]++;
      h.wait(h.think());
    }

    const style = this.styleFor(shape);
    const unreplaced = this.clock && this.illegal[by] === 0 && move.promotion === 'queen' && (shape.kind === 'quiet' || shape.kind === 'capture') && this.strikes('promotion-unreplaced');
    if (unreplaced) {
      // 7.5.2: pawn to the last rank, clock pressed, pawn not replaced: the pawn becomes a queen and
      // the arbiter puts one there (on the opponent's time).
      const s = shape as Extract<MoveShape, { kind: 'quiet' | 'capture' }>;
      h.lift(s.from, h.handGap());
      if (s.kind === 'capture') h.lift(s.to, h.handGap());
      h.place(s.to, s.piece, h.handGap());
      this.illegal[by]++;
      this.commit(move, shape);
      // Tied to a move of the game: reported at that move's own ply.
      this.incidents.push({ kind: 'pawn-not-replaced', ply: this.ply, by });
      if (this.clock) h.press(by, h.rng.int(200, 900));
      h.lift(s.to, h.rng.int(2000, 6000)).place(s.to, s.result, h.handGap());
      return;
    }
    const released = this.strikes('moved-after-release') && this.releaseElsewhere(move, shape);
    if (released) {
      const s = shape as Extract<MoveShape, { kind: 'quiet' | 'capture' }>;
      if (s.kind === 'capture') h.lift(s.to, h.handGap());
      h.place(s.to, s.piece, h.handGap());
    } else performMove(h, shape, style);
    if (this.strikes('knock')) this.knockNeighbour(move, shape);
    this.commit(move, shape);
    // 4.7: released on a square as a legal move, then moved on: reported at the move's ply.
    if (released) this.incidents.push({ kind: 'moved-after-release', ply: this.ply, by });
    if (shape.kind === 'castle' && style === 'castle-rook-first' && shape.kingTo !== shape.king) {
      // 4.4.2: the rook was touched first (even one that stays put, lifted and put back); an e-board
      // records it, at the castling's ply, and plays it. A Chess960 king that stays put may castle by
      // moving only the rook (Guidelines II): no incident.
      this.incidents.push({ kind: 'rook-first-castling', ply: this.ply, by });
    }
    if (this.clock && !last && (this.model === 'blitz' || this.model === 'mixed') && h.rng.chance(this.model === 'blitz' ? 0.4 : 0.05)) {
      // The opponent, playing fast, touches a piece before this press lands (scan order across hands).
      this.latePress = by;
      return;
    }
    if (this.clock) h.press(by, h.fast ? h.rng.int(60, 300) : h.rng.int(150, 900));

    if (!last && this.strikes('takeback')) {
      // Either moves of the game taken back and replayed, or moves the players then thought better of.
      if (h.rng.chance(0.6)) this.takeback(h.rng.int(1, 3));
      else this.spuriousThenTakenBack(h.rng.int(1, 3), false);
    } else if (!last && this.clock && this.strikes('arbiter-reinstate')) this.spuriousThenTakenBack(h.rng.int(1, 2), true);
  }

  private commit(move: NormalMove, shape: MoveShape): void {
    this.sans.push(makeSan(this.pos, move));
    this.pos.play(move);
    this.history.push({ move, shape });
  }

  /**
   * Lifts the moving piece and releases it on another legal (empty, non-special) square for
   * 0.4–2 s (longer than any slide), then lifts it again, leaving it in the hand. False when the
   * piece has no such square.
   */
  private releaseElsewhere(move: NormalMove, shape: MoveShape): boolean {
    if (shape.kind !== 'quiet' && shape.kind !== 'capture') return false;
    if (shape.result.role !== shape.piece.role) return false;
    const h = this.h;
    const alternatives = [...this.pos.dests(move.from)].filter((to) => {
      if (to === move.to || this.pos.board.has(to) || to === this.pos.epSquare) return false;
      if (shape.piece.role === 'pawn' && (squareRank(to) === 0 || squareRank(to) === 7)) return false;
      if (shape.piece.role === 'king' && Math.abs(to - move.from) === 2) return false;
      const p = this.pos.clone();
      p.play({ from: move.from, to });
      return !p.isEnd();
    });
    if (alternatives.length === 0) return false;
    const a = h.rng.pick(alternatives);
    h.lift(move.from, h.handGap()).place(a, shape.piece, h.handGap()).lift(a, h.rng.int(400, 2000));
    return true;
  }

  /**
   * A standing piece's sensor drops out for 20–120 ms, once to three times, while the player
   * thinks (a piece off-centre on a DGT board reads empty for a scan or two).
   */
  private flicker(): void {
    const h = this.h;
    const sq = h.rng.pick([...this.pos.board.occupied]);
    const piece = this.pos.board.get(sq)!;
    for (let i = h.rng.int(1, 3); i > 0; i--) h.lift(sq, h.rng.int(100, 1500)).place(sq, piece, h.rng.int(20, 120));
    h.wait(h.rng.int(300, 2000));
  }

  /** Lifts one of the mover's pieces, holds it, puts it back (touch without a move). */
  private hesitate(spare: Square): void {
    const h = this.h;
    // Mostly one's own piece; sometimes adjusting any piece on the board (j'adoube).
    const candidates = (h.rng.chance(0.7) ? [...this.pos.board[this.pos.turn]] : [...this.pos.board.occupied]).filter((sq) => sq !== spare);
    const sq = h.rng.pick(candidates);
    const piece = this.pos.board.get(sq)!;
    h.lift(sq, h.handGap()).place(sq, piece, h.rng.int(400, 3000));
    h.wait(h.think());
  }

  /**
   * A piece of the mover goes to an empty square it cannot legally reach. Corrected: put back before
   * the press (no incident). Completed (7.5.1): the clock is pressed, then the arbiter reinstates
   * the position and gives the offender's clock back (the lever on the opponent's side).
   */
  private illegalMove(completed: boolean, spare: Square): boolean {
    const h = this.h;
    const by = this.pos.turn;
    const choices: [Square, Square][] = [];
    for (const from of this.pos.board[by]) {
      if (from === spare) continue;
      const piece = this.pos.board.get(from)!;
      const dests = this.pos.dests(from);
      for (let to = 0; to < 64; to++) {
        const victim = this.pos.board.get(to);
        // Empty squares, or an enemy piece (not the king) taken illegally.
        if (dests.has(to) || (victim && (victim.color === by || victim.role === 'king'))) continue;
        if (piece.role === 'pawn' && (squareRank(to) === 0 || squareRank(to) === 7)) continue;
        // A king two squares along its rank could be castling begun king-first (4.7).
        if (piece.role === 'king' && squareRank(to) === squareRank(from) && Math.abs(to - from) >= 2) continue;
        if (Math.abs(to - from) > 24) continue; // keep it a plausible slip of the hand
        choices.push([from, to]);
      }
    }
    if (choices.length === 0) return false;
    const [from, to] = h.rng.pick(choices);
    const piece = this.pos.board.get(from)!;
    const victim = this.pos.board.get(to);
    h.lift(from, h.handGap());
    if (victim) h.lift(to, h.handGap());
    h.place(to, piece, h.handGap());
    const putBack = (wait: number): void => {
      h.lift(to, wait).place(from, piece, h.handGap());
      if (victim) h.place(to, victim, h.handGap());
    };
    if (completed) {
      h.press(by, h.rng.int(200, 900));
      this.incidents.push({ kind: 'illegal-move', ply: this.ply, by });
      putBack(h.rng.int(3000, 10_000));
      h.press(opposite(by), h.rng.int(500, 2000));
    } else putBack(h.rng.int(300, 1500));
    return true;
  }

  /**
   * A piece next to the move is knocked over (seen lying on an empty neighbour unless that would look
   * like a legal move of the opponent), then stood back up before the clock is pressed (7.4).
   */
  private knockNeighbour(move: NormalMove, shape: MoveShape): void {
    const h = this.h;
    const after = this.pos.clone();
    after.play(move);
    const around = shape.kind === 'castle' ? shape.kingTo : shape.to;
    const moved = new Set<Square>(shape.kind === 'castle' ? [shape.kingTo, shape.rookTo] : [shape.to]);
    const near = neighbours(around).filter((s) => !h.isEmpty(s) && !moved.has(s));
    if (near.length === 0) return;
    const sq = h.rng.pick(near);
    const code = h.codeAt(sq);
    // Lying where it would read as a legal move (of either side) would be a different story.
    const landing = neighbours(sq).filter((s) => h.isEmpty(s) && !looksLikeMove(after, sq, s));
    const onto = landing.length > 0 && h.rng.chance(0.6) ? h.rng.pick(landing) : undefined;
    h.knock(sq, onto, h.rng.int(50, 400));
    if (onto !== undefined && h.rng.chance(0.5)) h.lift(onto, h.handGap());
    h.place(sq, code, h.handGap());
  }

  /** Takes back the last `k` plies one at a time, then plays them again as they were. */
  private takeback(k: number): void {
    const h = this.h;
    const n = Math.min(k, this.history.length);
    if (n === 0) return;
    const redo: NormalMove[] = [];
    h.wait(h.rng.int(1000, 4000));
    for (let i = 0; i < n; i++) {
      const last = this.history.pop()!;
      this.sans.pop();
      undo(h, last.shape);
      redo.unshift(last.move);
      this.takebacks.push(this.sans.length);
    }
    this.replayPosition();
    this.handClockTo(n);
    this.queue.unshift(...redo);
  }

  /**
   * The players go on with `n` plies that are not the game's (confirmed by the clock when there is
   * one), then take them back one at a time; by the arbiter, who also records it (ArbiterCommand
   * 'reinstate'). Play resumes with the game.
   */
  private spuriousThenTakenBack(n: number, byArbiter: boolean): void {
    const h = this.h;
    const at = this.ply;
    const spurious: Played[] = [];
    for (let i = 0; i < n && !this.pos.isEnd(); i++) {
      const moves = [...this.pos.allDests()]
        .flatMap(([from, ds]) =>
          [...ds].map((to): NormalMove => (this.pos.board.get(from)?.role === 'pawn' && (squareRank(to) === 0 || squareRank(to) === 7) ? { from, to, promotion: 'queen' } : { from, to })),
        )
        .filter((m) => {
          // A spurious move that ended the game would end it for the engine too.
          const p = this.pos.clone();
          p.play(m);
          return !p.isEnd();
        });
      if (moves.length === 0) break;
      const move = h.rng.pick(moves);
      const shape = shapeOf(this.pos, move);
      const by = this.pos.turn;
      h.wait(h.think());
      performMove(h, shape, 'clean');
      this.commit(move, shape);
      if (this.clock) h.press(by, h.rng.int(150, 900));
      spurious.push({ move, shape });
    }
    h.wait(h.rng.int(3000, 8000));
    for (let i = spurious.length - 1; i >= 0; i--) {
      this.history.pop();
      this.sans.pop();
      undo(h, spurious[i]!.shape);
      this.takebacks.push(this.sans.length);
    }
    this.replayPosition();
    if (byArbiter) this.arbiter.push({ type: 'reinstate', at: h.t + 1, ply: at });
    this.handClockTo(spurious.length);
  }

  /** After `undone` plies are taken back, an odd number leaves the wrong clock running: the side not to move presses. */
  private handClockTo(undone: number): void {
    if (this.clock && undone % 2 === 1) this.h.press(opposite(this.pos.turn), this.h.rng.int(500, 2000));
  }

  private earlierBoards(): Set<string> {
    const p = this.start.clone();
    const boards = new Set([makeBoardFen(p.board)]);
    for (const x of this.history) {
      p.play(x.move);
      boards.add(makeBoardFen(p.board));
    }
    return boards;
  }

  private replayPosition(): void {
    const fresh = this.start.clone();
    for (const p of this.history) fresh.play(p.move);
    this.pos.board = fresh.board;
    this.pos.turn = fresh.turn;
    this.pos.castles = fresh.castles;
    this.pos.epSquare = fresh.epSquare;
    this.pos.halfmoves = fresh.halfmoves;
    this.pos.fullmoves = fresh.fullmoves;
  }

  /**
   * The planned outage: the board goes (cable pulled or link lost), the next moves are played
   * cleanly with their presses, and it comes back, with the next mover's first piece already in
   * the hand when `pieceInHand`.
   */
  private plannedOutage(o: OutagePlan): void {
    const h = this.h;
    const n = Math.max(0, Math.min(o.plies, this.queue.length - (o.pieceInHand ? 1 : 0)));
    const ply = this.ply;
    this.outagePlayed = { fromPly: ply, plies: n };
    h.wait(h.rng.int(200, 2000));
    h.outage(o.kind === 'power' ? 'unplug' : 'link-down');
    this.incidents.push({ kind: 'board-disconnected', ply });
    // Drawn only when planned, so that the games of every other plan stay as they were.
    const adjust =
      o.clockAdjustMs !== undefined && this.clock && n > 0 ? { after: h.rng.int(0, n - 1), by: h.rng.next() < 0.5 ? ('white' as const) : ('black' as const), ms: o.clockAdjustMs } : undefined;
    for (let i = 0; i < n; i++) {
      const move = this.queue.shift()!;
      const by = this.pos.turn;
      const shape = shapeOf(this.pos, move);
      h.wait(h.think());
      performMove(h, shape, 'clean');
      this.commit(move, shape);
      if (this.clock) h.press(by, h.rng.int(150, 900));
      if (adjust?.after === i) h.clockAdjust(adjust.by, adjust.ms, h.rng.int(1000, 5000));
    }
    const back = o.kind === 'power' ? 'plug' : 'link-up';
    if (n > 1) this.incidents.push({ kind: 'missed-moves', ply });
    this.incidents.push({ kind: 'board-resynchronised', ply: this.ply });
    if (!o.pieceInHand || this.queue.length === 0) {
      h.wait(h.rng.int(500, 3000));
      h.outage(back);
      return;
    }
    // The next move begins before the board is back: it returns just after that move's first lift.
    const mark = h.actions.length;
    this.move(this.queue.shift()!, this.queue.length === 0);
    let lift = h.actions.findIndex((a, i) => i >= mark && a.kind === 'lift');
    const landing = lift > mark ? h.actions[lift - 1]! : undefined;
    if (o.kind === 'power' && landing?.kind === 'place' && h.actions[lift]!.at - landing.at <= SCAN_ORDER_MS) {
      // A landing seen just before its own square empties is a live board's scan order: the piece
      // left first. The board was off then and saw neither: powering up with the piece in the
      // hand, it lists that square empty, and sees the landing after.
      const left = h.actions[lift]!;
      h.actions[lift - 1] = { ...left, at: landing.at };
      h.actions[lift] = { ...landing, at: left.at };
      lift--;
    }
    const at = lift >= 0 ? h.actions[lift]!.at : h.t;
    h.actions.splice(lift >= 0 ? lift + 1 : h.actions.length, 0, { kind: back, at });
  }

  /**
   * Unplugs the board, plays the next 1–3 moves (clock presses unseen: the clock talks through the
   * board), plugs it back in. Only when the jump has a single legal explanation of that length:
   * otherwise no reconstruction could know the order.
   */
  private disconnected(): boolean {
    const h = this.h;
    const n = Math.min(this.queue.length, h.rng.int(1, 3));
    if (n === 0) return false;
    const target = this.pos.clone();
    for (const m of this.queue.slice(0, n)) target.play(m);
    if (countPaths(this.pos, target, n, 2, true) !== 1) return false;
    for (let m = 1; m < n; m++) if (countPaths(this.pos, target, m, 1, false) > 0) return false;
    // A board that is an earlier position of the game reads as a takeback just as well.
    if (this.earlierBoards().has(makeBoardFen(target.board))) return false;
    const ply = this.ply;
    h.unplug(h.rng.int(200, 2000));
    const unplugAt = h.actions.length - 1;
    this.incidents.push({ kind: 'board-disconnected', ply });
    // Half the time the cable comes out in the middle of the first move, just after its first lift.
    const midMove = h.rng.chance(0.5);
    for (let i = 0; i < n; i++) {
      const move = this.queue.shift()!;
      const by = this.pos.turn;
      const shape = shapeOf(this.pos, move);
      if (i > 0) h.wait(h.think());
      performMove(h, shape, 'clean');
      if (i === 0 && midMove) {
        // The unplug only changes what is observed, so moving it later keeps the board's story intact.
        const [unplug] = h.actions.splice(unplugAt, 1);
        const first = h.actions[unplugAt]!;
        h.actions.splice(unplugAt + 1, 0, { ...unplug!, at: first.at });
      }
      this.commit(move, shape);
      if (this.clock) h.press(by, h.rng.int(150, 900));
    }
    h.plug(h.rng.int(500, 3000));
    // One ply is just a move seen late; more are a jump the engine reports with the sequence found.
    if (n > 1) this.incidents.push({ kind: 'missed-moves', ply });
    this.incidents.push({ kind: 'board-resynchronised', ply: this.ply });
    return true;
  }
}

/**
 * Legal move sequences of exactly `n` plies from `pos` giving `target`'s board (and turn, when
 * `sameTurn`: without a clock the turn is not seen), counted up to `limit`.
 */
function countPaths(pos: Chess, target: Chess, n: number, limit: number, sameTurn: boolean): number {
  const diff = differingSquares(pos, target);
  if (n === 0) return diff === 0 && (!sameTurn || pos.turn === target.turn) ? 1 : 0;
  // One ply changes at most four squares (castling).
  if (diff > 4 * n) return 0;
  let count = 0;
  // On the last ply the mover's piece must come from a square that differs (or be the king, which
  // may stay put when castling in Chess960): only those squares' moves need generating.
  const froms: Iterable<[Square, Iterable<Square>]> =
    n === 1 ? [...pos.board[pos.turn]].filter((sq) => differs(pos, target, sq) || pos.board.get(sq)?.role === 'king').map((sq): [Square, Iterable<Square>] => [sq, pos.dests(sq)]) : pos.allDests();
  for (const [from, dests] of froms) {
    for (const to of dests) {
      const piece = pos.board.get(from)!;
      const promos = piece.role === 'pawn' && (squareRank(to) === 0 || squareRank(to) === 7) ? (['queen', 'rook', 'bishop', 'knight'] as const) : [undefined];
      for (const promotion of promos) {
        const next = pos.clone();
        next.play(promotion ? { from, to, promotion } : { from, to });
        count += countPaths(next, target, n - 1, limit - count, sameTurn);
        if (count >= limit) return count;
      }
    }
  }
  return count;
}

function differs(a: Chess, b: Chess, sq: Square): boolean {
  const p = a.board.get(sq),
    q = b.board.get(sq);
  return p?.role !== q?.role || p?.color !== q?.color;
}

function differingSquares(a: Chess, b: Chess): number {
  let d = 0;
  for (let sq = 0; sq < 64; sq++) if (differs(a, b, sq)) d++;
  return d;
}

function neighbours(sq: Square): Square[] {
  const out: Square[] = [];
  for (let dr = -1; dr <= 1; dr++)
    for (let df = -1; df <= 1; df++) {
      if (dr === 0 && df === 0) continue;
      const r = (sq >> 3) + dr,
        f = (sq & 7) + df;
      if (r >= 0 && r < 8 && f >= 0 && f < 8) out.push(r * 8 + f);
    }
  return out;
}

/** Whether moving the piece on `from` to `to` would be a legal move in `pos` (of either side). */
function looksLikeMove(pos: Chess, from: Square, to: Square): boolean {
  const piece = pos.board.get(from);
  if (!piece) return false;
  const p = pos.clone();
  p.turn = piece.color;
  p.epSquare = undefined;
  return p.dests(from).has(to);
}

/** Physically reverses a move: the moved piece(s) back, a captured piece back on its square. */
function undo(h: Hands, shape: MoveShape): void {
  const gap = (): number => h.handGap();
  switch (shape.kind) {
    case 'castle': {
      h.lift(shape.kingTo, gap()).lift(shape.rookTo, gap());
      h.place(shape.rook, shape.rookPiece, gap()).place(shape.king, shape.kingPiece, gap());
      return;
    }
    case 'en-passant':
      h.lift(shape.to, gap()).place(shape.from, shape.piece, gap()).place(shape.capturedOn, shape.captured, gap());
      return;
    case 'capture':
      h.lift(shape.to, gap()).place(shape.from, shape.piece, gap()).place(shape.to, shape.captured, gap());
      return;
    case 'quiet':
      h.lift(shape.to, gap()).place(shape.from, shape.piece, gap());
      return;
  }
}
