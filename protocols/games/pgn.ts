import type { NormalMove } from 'chessops';
import { Chess } from 'chessops/chess';
import { makeFen, parseFen } from 'chessops/fen';
import { parsePgn, startingPosition } from 'chessops/pgn';
import { makeSanAndPlay, parseSan } from 'chessops/san';
import type { SourceGame } from './game.ts';

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
    games.push({ id, chess960, startFen, moves, sans });
  });
  return { games, problems };
}

/** The position a SourceGame starts from. */
export function startPosition(game: Pick<SourceGame, 'startFen'>): Chess {
  return positionFromFen(game.startFen);
}

/** Only for FENs this project wrote itself: a bad one is a programmer error. */
export function positionFromFen(fen: string): Chess {
  const setup = parseFen(fen);
  if (setup.isErr) throw new Error(`bad FEN ${fen}: ${setup.error.message}`);
  return Chess.fromSetup(setup.value).unwrap();
}
