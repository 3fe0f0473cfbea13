import { Router } from 'express';
import type { LiveSource } from '../../protocols/feed/model.ts';
import { LIVE_CACHE, SETTLED_CACHE, sendCached } from '../http-cache.ts';
import { roundPgn } from './round-pgn.ts';

/**
 * `round-N.pgn`: the round's games for relays that poll a PGN URL (lichess broadcast "source URL",
 * chess.com, ChessBase). ETag-revalidated so polls that find nothing new cost headers only.
 */
export function relayRouter(source: LiveSource): Router {
  const r = Router();
  r.get('/round-:n.pgn', (req, res) => {
    const n = Number(req.params.n);
    const pgn = Number.isInteger(n) ? roundPgn(source, n) : undefined;
    if (pgn === undefined) {
      res.status(404).type('text/plain').send(`no round ${req.params.n}\n`);
      return;
    }
    const finished = source.rounds().find((x) => x.round === n)?.status === 'finished';
    sendCached(req, res, pgn, 'application/x-chess-pgn; charset=utf-8', finished ? SETTLED_CACHE : LIVE_CACHE);
  });
  return r;
}
