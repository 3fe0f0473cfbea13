import type { LiveSource } from '../../protocols/feed/model.ts';

/**
 * Every game of a round as one PGN file, in table order, games separated by a blank line (PGN
 * §8.2.6 export format). Each game comes from `source.pgn(id)`: Seven Tag Roster first, %clk after
 * each move, Result set once the game is decided, which is how relays tell finished games.
 * Undefined for an unknown round.
 */
export function roundPgn(source: LiveSource, round: number): string | undefined {
  const games = source.games(round);
  if (!games) return undefined;
  return games
    .flatMap((g) => {
      const pgn = source.pgn(g.id);
      return pgn ? [pgn.trimEnd() + '\n'] : [];
    })
    .join('\n');
}
