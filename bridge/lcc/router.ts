import { Router } from 'express';
import type { LiveSource } from '../../protocols/feed/model.ts';
import { LIVE_CACHE, SETTLED_CACHE, sendCached } from '../http-cache.ts';
import { gamesByBoard, lccGame, lccRoundIndex, lccTournament } from './format.ts';

export interface LccRouterOptions {
  /** Serial number of the e-board at a table (LCC's `serialNr`, `eboards`); null when unknown. */
  serialOf?: (table: number) => string | null;
}

/**
 * LiveChess Cloud-style JSON, laid out as relays poll it: `tournament.json`, `round-N/index.json`,
 * `round-N/game-M.json` (M = the board (table) number, as LiveChess numbers games: fixed once given,
 * whenever other tables join; pairing M-1 of the index).
 * Pollers append `?poll`; it is ignored.
 */
export function lccRouter(source: LiveSource, opts: LccRouterOptions = {}): Router {
  const serialOf = opts.serialOf ?? (() => null);
  const r = Router();
  const json = (v: unknown): string => JSON.stringify(v);
  const notFound = (message: string): string => json({ error: { status: 404, code: 'not-found', message } });

  r.get('/tournament.json', (req, res) => {
    const tables = new Set<number>();
    for (const round of source.rounds()) for (const g of source.games(round.round) ?? []) tables.add(g.table);
    const eboards = [...tables].sort((a, b) => a - b).flatMap((t) => serialOf(t) ?? []);
    sendCached(req, res, json(lccTournament(source, eboards)), 'application/json', LIVE_CACHE);
  });

  r.get('/round-:n/index.json', (req, res) => {
    const n = Number(req.params.n);
    const round = source.rounds().find((x) => x.round === n);
    const games = Number.isInteger(n) ? source.games(n) : undefined;
    if (!round || !games) {
      res
        .status(404)
        .type('application/json')
        .send(notFound(`no round ${req.params.n}`));
      return;
    }
    const settled = round.status === 'finished';
    sendCached(req, res, json(lccRoundIndex(round, games)), 'application/json', settled ? SETTLED_CACHE : LIVE_CACHE);
  });

  r.get('/round-:n/game-:m.json', (req, res) => {
    const n = Number(req.params.n);
    const m = Number(req.params.m);
    const round = Number.isInteger(n) ? source.games(n) : undefined;
    const summary = round && Number.isInteger(m) && m >= 1 ? gamesByBoard(round)[m - 1] : undefined;
    const game = summary ? source.game(summary.id) : undefined;
    if (!game) {
      res
        .status(404)
        .type('application/json')
        .send(notFound(`no game ${req.params.m} in round ${req.params.n}`));
      return;
    }
    const body = json(lccGame(game, serialOf(game.table)));
    sendCached(req, res, body, 'application/json', game.status === 'finished' ? SETTLED_CACHE : LIVE_CACHE);
  });

  return r;
}
