import type { NormalMove } from 'chessops';
import { Chess } from 'chessops/chess';
import { makeFen, parseFen } from 'chessops/fen';
import { parsePgn, startingPosition } from 'chessops/pgn';
import { makeSanAndPlay, parseSan } from 'chessops/san';
import type { SourceGame, SourcePlayer, SourceResult } from './game.ts';

/** A PGN game that could not be turned into a playable score, and why. */
export interface PgnProblem {
  id: string;
  reason: string;
}

export interface LoadedPgn {
  games: SourceGame[];
  problems: PgnProblem[];
}

const CHESS960_VARIANTS = new Set(['chess960', 'fischerandom', 'chess 960', 'fischer random']);

/**
 * Every game of a PGN text, mainline only, as a SourceGame. Games whose start or moves cannot be
 * played are reported as problems with the ply that failed, never thrown.
 */
export function loadPgn(text: string, name: string): LoadedPgn {
  const games: SourceGame[] = [];
  const problems: PgnProblem[] = [];
  parsePgn(text).forEach((game, index) => {
    const id = `${name}#${index + 1}`;
    const variant = (game.headers.get('Variant') ?? '').toLowerCase();
    const start = startingPosition(game.headers);
    if (start.isErr) {
      problems.push({ id, reason: `start position: ${start.error.message}` });
      return;
    }
    const pos = start.value;
    if (!(pos instanceof Chess)) {
      problems.push({ id, reason: `variant ${variant} is not chess` });
      return;
    }
    const startFen = makeFen(pos.toSetup());
    const moves: NormalMove[] = [];
    const sans: string[] = [];
    for (const node of game.moves.mainline()) {
      const move = parseSan(pos, node.san);
      if (!move || !('from' in move)) {
        problems.push({ id, reason: `ply ${moves.length + 1}: cannot play ${node.san}` });
        return;
      }
      moves.push(move);
      sans.push(makeSanAndPlay(pos, move));
    }
    const chess960 = CHESS960_VARIANTS.has(variant);
    const tags = Object.fromEntries(game.headers);
    games.push({ id, chess960, startFen, moves, sans, players: { white: playerFromTags(tags, 'White'), black: playerFromTags(tags, 'Black') }, result: resultFromTag(tags['Result']), tags });
  });
  return { games, problems };
}

const RESULTS = new Set<string>(['1-0', '0-1', '1/2-1/2']);

function resultFromTag(tag: string | undefined): SourceResult {
  return tag !== undefined && RESULTS.has(tag) ? (tag as SourceResult) : '*';
}

/** PGN's "unknown" markers ("?", "-", "") are no value, not a name or rating. */
function tagValue(tags: Record<string, string>, key: string): string | null {
  const v = tags[key]?.trim();
  return v === undefined || v === '' || v === '?' || v === '-' ? null : v;
}

function positiveInt(s: string | null): number | null {
  if (s === null || !/^\d+$/.test(s)) return null;
  const n = Number(s);
  return n > 0 ? n : null;
}

/** One side's player from a score's headers (Seven Tag Roster plus the common title/Elo/FIDE id/federation tags). */
export function playerFromTags(tags: Record<string, string>, side: 'White' | 'Black'): SourcePlayer {
  return {
    name: tagValue(tags, side) ?? side,
    title: tagValue(tags, `${side}Title`),
    rating: positiveInt(tagValue(tags, `${side}Elo`)),
    federation: tagValue(tags, `${side}Fed`),
    fideId: positiveInt(tagValue(tags, `${side}FideId`)),
  };
}

/** Only for FENs this project wrote itself: a bad one is a programmer error. */
export function positionFromFen(fen: string): Chess {
  const setup = parseFen(fen);
  if (setup.isErr) throw new Error(`bad FEN ${fen}: ${setup.error.message}`);
  return Chess.fromSetup(setup.value).unwrap();
}
