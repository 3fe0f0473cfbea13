import type { SourceGame } from '../simulation/games/game.ts';

/** The rounds seated so far for one corpus and hall size, and the games in the order they are due. */
interface Seating {
  rounds: number[][];
  queue: number[];
}

// Rounds are asked for in order, again and again (every table, pairings, every restart), so each
// corpus and hall size keeps the rounds it has seated. A WeakMap lets a dropped corpus go.
const seatings = new WeakMap<readonly SourceGame[], Map<number, Seating>>();

/**
 * The corpus games (indexes into `games`) played at tables 1..`tables` in round `round` (0-based)
 * of the demo hall. Corpus files hold matches and rounds in order, so cutting them into slices of
 * `tables` seats one player at several tables of a round, which no hall does. Instead the games
 * wait in a queue, in corpus order at first: each table in turn takes the first game whose players
 * have no seat in the round yet, and that game goes to the back. A skipped game keeps its place, so
 * it comes in a later round and the order stays close to the corpus'. When no game fits (one
 * match, scores without names), the first is played anyway: an empty table looks broken too.
 * Deterministic in its inputs, so a restarted daemon seats the same games.
 */
export function roundGames(games: readonly SourceGame[], tables: number, round: number): readonly number[] {
  let bySize = seatings.get(games);
  if (!bySize) seatings.set(games, (bySize = new Map()));
  let seating = bySize.get(tables);
  if (!seating) bySize.set(tables, (seating = { rounds: [], queue: games.map((_, i) => i) }));
  while (seating.rounds.length <= round) seating.rounds.push(seatRound(seating.queue, games, tables, seating.rounds.at(-1) ?? []));
  return seating.rounds[round]!;
}

/**
 * A game shown goes to the back rather than the corpus being walked again from the start, so each
 * game is queued once: a player with more games than the corpus has rounds (Anderssen plays 68 of
 * the shared corpus' 356 games, 45 rounds on 8 tables) shows one a round, and a second copy queued
 * at each pass would leave his games ever further behind. A game of the last round or of this one
 * does not count as free, or a small corpus (one round robin on more tables than it has games a
 * round) would play the game it has just shown again.
 */
function seatRound(queue: number[], games: readonly SourceGame[], tables: number, last: readonly number[]): number[] {
  const seated = new Set<string>();
  const shown = new Set(last);
  const round: number[] = [];
  for (let t = 0; t < tables; t++) {
    const free = queue.findIndex((g) => !shown.has(g) && playerNames(games[g]!).every((n) => !seated.has(n)));
    const [game] = queue.splice(Math.max(free, 0), 1);
    queue.push(game!);
    for (const n of playerNames(games[game!]!)) seated.add(n);
    shown.add(game!);
    round.push(game!);
  }
  return round;
}

/** The names a score gives its players; none for a score without them (it clashes with nobody). */
function playerNames(game: SourceGame): string[] {
  return game.players ? [game.players.white.name, game.players.black.name] : [];
}
