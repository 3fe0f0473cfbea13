import type { BoardEvent } from '../../protocols/board-events.ts';
import type { Store } from '../../daemon/store/store.ts';
import type { RawEventInput } from '../../daemon/store/types.ts';
import { randomGame } from '../../daemon/simulation/games/random.ts';
import { Prng } from '../../daemon/simulation/games/prng.ts';
import { playNoisy, sessionEvents } from '../../daemon/simulation/noisy-player/player.ts';

/**
 * A hall's store as a tournament leaves it: `tables` tables playing `rounds` rounds in 'board'
 * mode (each game opens when its board shows the start position), every game a noisy game
 * ("mixed") at a classical pace: the player to move thinks 20–80 s per move, and the clock sends a
 * reading every second while it runs, as DGT clocks do. Those readings are nearly all of the
 * volume (several thousand raw events per game), as in a real hall.
 */
export interface HallStoreSpec {
  tables: number;
  /** The rounds written: `firstRound` (default 1) to `rounds`. */
  rounds: number;
  firstRound?: number;
  /** Fraction of the last round's games played (0.5: every table's last game cut half-way). 1 = whole. */
  lastRoundPlayed?: number;
  /** Mean thinking time per move, ms (default 50 s). */
  thinkMs?: number;
  /** Longest game, plies (default 120). */
  maxPlies?: number;
  seed?: number;
}

const EPOCH = 1_783_152_000_000;
const TICK_MS = 1000;
/** Session time from one round's start to the next (longer than any game here). */
const ROUND_SLOT_MS = 8 * 3_600_000;

type Clock = Extract<BoardEvent, { type: 'clock' }>;

/**
 * One game's events at a classical pace: after every press the player to move thinks, and the
 * running clock reports every second meanwhile; later readings lose the time thought.
 */
export function classicalPace(events: readonly BoardEvent[], rng: Prng, thinkMs: number): BoardEvent[] {
  const out: BoardEvent[] = [];
  let shift = 0;
  const spent = { white: 0, black: 0 };
  let running: Clock['running'] = null;
  for (const e of events) {
    const at = e.at + shift;
    if (e.type !== 'clock') {
      out.push({ ...e, at });
      continue;
    }
    const reading: Clock = { ...e, at, whiteMs: Math.max(1000, e.whiteMs - spent.white), blackMs: Math.max(1000, e.blackMs - spent.black) };
    out.push(reading);
    const pressed = e.running !== null && e.running !== running;
    running = e.running;
    if (!pressed || e.running === null) continue;
    const side = e.running;
    const think = Math.round(thinkMs * (0.4 + 1.2 * rng.next()));
    for (let t = TICK_MS; t < think; t += TICK_MS) {
      const left = (side === 'white' ? reading.whiteMs : reading.blackMs) - t;
      if (left < 1000) break;
      out.push({ ...reading, at: at + t, ...(side === 'white' ? { whiteMs: left } : { blackMs: left }) });
    }
    shift += think;
    spent[side] += think;
  }
  return out;
}

/**
 * Appends the hall's raw events to the store; returns how many. `interleaved`: round by round, the
 * tables' events in time order as a running daemon commits them (else table by table).
 */
export function writeHallStore(store: Store, spec: HallStoreSpec & { interleaved?: boolean }): { rawEvents: number; games: number } {
  if (spec.interleaved) {
    let rawEvents = 0;
    let games = 0;
    for (let round = spec.firstRound ?? 1; round <= spec.rounds; round++) {
      const rows: RawEventInput[] = [];
      const scratch = { appendRawEvents: (batch: readonly RawEventInput[]) => void rows.push(...batch) } as unknown as Store;
      const written = writeHallStore(scratch, { ...spec, firstRound: round, rounds: round, interleaved: false });
      rows.sort((a, b) => a.monoMs - b.monoMs);
      for (let i = 0; i < rows.length; i += 5000) store.appendRawEvents(rows.slice(i, i + 5000));
      rawEvents += written.rawEvents;
      games += written.games;
    }
    return { rawEvents, games };
  }
  const seed = spec.seed ?? 1;
  const thinkMs = spec.thinkMs ?? 50_000;
  let rawEvents = 0;
  let games = 0;
  for (let table = 1; table <= spec.tables; table++) {
    for (let round = spec.firstRound ?? 1; round <= spec.rounds; round++) {
      const gameSeed = seed * 100_003 + table * 1_009 + round;
      const game = randomGame(gameSeed, { maxPlies: spec.maxPlies ?? 120 });
      const script = playNoisy(game, { model: 'mixed', seed: gameSeed, clock: { baseMs: 5_400_000, incrementMs: 30_000 }, reversed: false });
      let events = classicalPace(sessionEvents(script), new Prng(gameSeed), thinkMs);
      if (round === spec.rounds && (spec.lastRoundPlayed ?? 1) < 1) events = events.slice(0, Math.floor(events.length * (spec.lastRoundPlayed ?? 1)));
      const base = (round - 1) * ROUND_SLOT_MS;
      const batch: RawEventInput[] = events.map((e) => ({
        tableNumber: table,
        boardSerial: String(10000 + table),
        monoMs: base + e.at,
        wallMs: EPOCH + Math.round(base + e.at),
        event: { ...e, at: base + e.at },
        raw: Uint8Array.from([0x8e, 0, 5, 0, 0]),
      }));
      for (let i = 0; i < batch.length; i += 5000) store.appendRawEvents(batch.slice(i, i + 5000));
      rawEvents += batch.length;
      games++;
    }
  }
  return { rawEvents, games };
}
