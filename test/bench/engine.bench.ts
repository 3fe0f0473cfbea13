import { Chess } from 'chessops/chess';
import { parseFen } from 'chessops/fen';
import type { BoardEvent } from '../../protocols/board-events.ts';
import { pieceToCode } from '../../protocols/dgt/squares.ts';
import { randomGame } from '../../daemon/simulation/games/random.ts';
import { physicalBoard, playNoisy, sessionEvents, type NoiseModel, type NoisyScript } from '../../daemon/simulation/noisy-player/player.ts';
import { parseSan } from 'chessops/san';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { GameEngine } from '../../daemon/reconstruction/engine.ts';
import { searchJump } from '../../daemon/reconstruction/jump-search.ts';
import { positionCodes } from '../../daemon/reconstruction/successors.ts';
import type { EngineOptions, GameEvent } from '../../daemon/reconstruction/game-events.ts';

// `npm run bench -- engine`: the reconstruction engine alone, on noisy-player streams generated up
// front (generation is not timed). Figures recorded in docs/benchmarks/engine.md.

const STANDARD_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

interface Stream {
  script: NoisyScript;
  events: BoardEvent[];
  opts: EngineOptions;
}

function streams(models: NoiseModel[], games: number): Stream[] {
  const out: Stream[] = [];
  for (let seed = 0; seed < games; seed++) {
    const game = randomGame(seed, { chess960: seed % 5 === 4 });
    const model = models[seed % models.length]!;
    const script = playNoisy(game, { model, seed: 1 });
    const start = !game.chess960 && game.startFen !== STANDARD_FEN ? { start: { fen: game.startFen } } : {};
    out.push({ script, events: sessionEvents(script), opts: { rules: { edition: '2018', category: 'standard' }, chess960: game.chess960, ...start } });
  }
  return out;
}

function throughput(label: string, all: Stream[]): void {
  const total = all.reduce((n, s) => n + s.events.length, 0);
  // One warm-up pass, then the best of three timed passes.
  let best = Infinity;
  for (let round = 0; round < 4; round++) {
    const t0 = process.hrtime.bigint();
    for (const s of all) {
      const e = new GameEngine(s.opts);
      for (const ev of s.events) e.push(ev);
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (round > 0) best = Math.min(best, ms);
  }
  console.log(`${label}: ${all.length} games, ${total} events in ${best.toFixed(0)} ms → ${Math.round(total / (best / 1000)).toLocaleString('en')} events/s`);
}

/**
 * Delay from the event after which the board first shows the position after ply k (the move's last
 * event) to the engine's final move-made/move-amended for ply k, in events and in event-time ms.
 */
function delays(all: Stream[]): { events: number[]; ms: number[] } {
  const ev: number[] = [];
  const ms: number[] = [];
  for (const s of all) {
    const pos = Chess.fromSetup(parseFen(s.script.expected.startFen).unwrap()).unwrap();
    const targets: string[] = [];
    for (const san of s.script.expected.sans) {
      pos.play(parseSan(pos, san)!);
      targets.push(
        placement((sq) => {
          const p = pos.board.get(sq);
          return p ? pieceToCode(p) : 0;
        }),
      );
    }
    const board = new Array<number>(64).fill(0);
    const rev = s.script.reversed;
    const seenAt: number[] = [];
    const madeAt = new Map<number, number>();
    const e = new GameEngine(s.opts);
    let k = 0;
    s.events.forEach((x, i) => {
      if (x.type === 'field') board[x.field] = x.piece;
      if (x.type === 'dump') x.board.forEach((c, f) => (board[f] = c));
      const out: GameEvent[] = e.push(x);
      for (const o of out) if (o.type === 'move-made' || o.type === 'move-amended') madeAt.set(o.ply, i);
      if (k < targets.length && (x.type === 'field' || x.type === 'dump')) {
        const now = placement((sq) => board[sqToField(sq, rev)]!);
        if (now === targets[k]) seenAt[k++] = i;
      }
    });
    seenAt.forEach((i, ply0) => {
      const j = madeAt.get(ply0 + 1);
      if (j === undefined) return;
      ev.push(j - i);
      ms.push(s.events[j]!.at - s.events[i]!.at);
    });
  }
  return { events: ev.sort((a, b) => a - b), ms: ms.sort((a, b) => a - b) };
}

function sqToField(sq: number, reversed: boolean): number {
  const s = reversed ? 63 - sq : sq;
  return (7 - (s >> 3)) * 8 + (s & 7);
}

function placement(at: (sq: number) => number): string {
  let out = '';
  for (let sq = 0; sq < 64; sq++) out += at(sq).toString(16);
  return out;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/** A real collection, even without --expose-gc on the command line (npm run bench cannot pass it). */
function collector(): (() => void) | undefined {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as unknown;
  return typeof gc === 'function' ? (gc as () => void) : undefined;
}

function memory(all: Stream[]): void {
  const gc = collector();
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const engines: GameEngine[] = [];
  for (let i = 0; i < 1000; i++) {
    const s = all[i % all.length]!;
    const e = new GameEngine(s.opts);
    const half = s.events.length >> 1;
    for (let j = 0; j < half; j++) e.push(s.events[j]!);
    engines.push(e);
  }
  gc?.();
  const after = process.memoryUsage().heapUsed;
  const plies = engines.reduce((n, e) => n + e.snapshot().moves.length, 0);
  console.log(
    `memory: 1000 engines mid-game (avg ${(plies / 1000).toFixed(0)} plies): heap +${((after - before) / 1e6).toFixed(1)} MB → ${((after - before) / 1000 / 1024).toFixed(1)} KiB per live game${gc ? '' : ' (no --expose-gc: includes garbage)'}`,
  );
}

/**
 * The worst case a board puts the engine to: a jump nothing within reach explains (the board 12
 * plies on, searched up to 8), which runs the search to its budget inside the event loop that
 * serves every table. The budget is the engine's (JUMP_BUDGET).
 */
function fruitlessSearch(games: number): void {
  const ms: number[] = [];
  let nodes = 0;
  for (let seed = 0; seed < games; seed++) {
    const game = randomGame(seed, { chess960: false });
    if (game.sans.length < 24) continue;
    const pos = Chess.default();
    for (const san of game.sans.slice(0, 10)) pos.play(parseSan(pos, san)!);
    const later = pos.clone();
    for (const san of game.sans.slice(10, 22)) later.play(parseSan(later, san)!);
    const target = positionCodes(later);
    const t0 = performance.now();
    const r = searchJump(pos.clone(), target, { maxDepth: 8, budget: 60_000, keep: 64 });
    ms.push(performance.now() - t0);
    nodes += r.nodes;
  }
  ms.sort((a, b) => a - b);
  const at = (p: number): string => ms[Math.min(ms.length - 1, Math.floor((ms.length * p) / 100))]!.toFixed(1);
  console.log(
    `jump search with nothing in reach (12 plies on, searched to 8, budget 60,000 nodes): ${ms.length} boards, p50 ${at(50)} / p99 ${at(99)} / max ${ms[ms.length - 1]!.toFixed(1)} ms, ${Math.round(nodes / ms.length).toLocaleString('en')} nodes each on average`,
  );
}

/**
 * The worst case of a board's return, as the event loop meets it: the board comes back (its listing
 * read whole while the link is still down, then the reconnect dump) showing a position nothing
 * within reach explains (12 plies on), and every search the engine makes on it runs, at the larger
 * budget a return gets (RETURN_JUMP_BUDGET). Timed: the two pushes of the return, per board.
 */
function fruitlessReturn(games: number): void {
  const ms: number[] = [];
  for (let seed = 0; seed < games; seed++) {
    const game = randomGame(seed, { chess960: false });
    if (game.sans.length < 24) continue;
    const pos = Chess.default();
    const e = new GameEngine({ rules: { edition: '2018', category: 'standard' }, chess960: false });
    let at = 1_000;
    e.push({ type: 'dump', at, board: physicalBoard(pos, false) });
    for (const san of game.sans.slice(0, 10)) {
      pos.play(parseSan(pos, san)!);
      at += 5_000;
      e.push({ type: 'dump', at, board: physicalBoard(pos, false) });
    }
    for (const san of game.sans.slice(10, 22)) pos.play(parseSan(pos, san)!);
    e.push({ type: 'connection', at: at + 1_000, connected: false });
    const t0 = performance.now();
    e.push({ type: 'dump', at: at + 60_000, board: physicalBoard(pos, false) });
    e.push({ type: 'connection', at: at + 61_000, connected: true });
    e.push({ type: 'dump', at: at + 61_000, board: physicalBoard(pos, false) });
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  console.log(
    `a board's return nothing within reach explains (12 plies on; the listing and the reconnect dump): ${ms.length} boards, p50 ${pct(ms, 50).toFixed(1)} / p99 ${pct(ms, 99).toFixed(1)} / max ${ms[ms.length - 1]!.toFixed(1)} ms`,
  );
}

export default async function bench(): Promise<void> {
  // Fixed seeds: the same streams on every run.
  const clean = streams(['clean'], 150);
  const noisy = streams(['mixed'], 150);
  const styles = streams(
    [
      'clean',
      'slide',
      'scan-order',
      'capture-captured-first',
      'capture-capturer-first',
      'capture-both-seen',
      'castle-king-first',
      'castle-rook-first',
      'castle-king-off',
      'en-passant-order',
      'promotion-order',
      'knock',
      'hesitate',
    ],
    200,
  );
  throughput('clean streams', clean);
  throughput('noisy streams (mixed model)', noisy);
  throughput('per-move styles', styles);
  const d = delays(styles);
  console.log(
    `delay last-event → move-made over ${d.events.length} moves: p50 ${pct(d.events, 50)} / p99 ${pct(d.events, 99)} / max ${d.events[d.events.length - 1]} events; p50 ${pct(d.ms, 50)} / p99 ${pct(d.ms, 99)} ms of event time`,
  );
  memory(noisy);
  fruitlessSearch(100);
  fruitlessReturn(100);
}
