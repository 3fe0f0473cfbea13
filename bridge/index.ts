import type express from 'express';
import type { LiveSource } from '../protocols/feed/model.ts';
import { lccRouter, type LccRouterOptions } from './lcc/router.ts';
import { relayRouter } from './relay/router.ts';

export { startLiveChessApi, LIVECHESS_PATH, LIVECHESS_DEFAULT_PORT } from './livechess/server.ts';
export type { BoardInfo, LiveChessApi, LiveChessApiOptions, StartResult } from './livechess/server.ts';
export { startRelayPush, pushEndpoint } from './relay/push-client.ts';
export type { RelayPush, RelayPushOptions, PushReport, RoundTarget } from './relay/push-client.ts';
export { roundPgn } from './relay/round-pgn.ts';
export { startPgnFolder } from './pgn-folder/writer.ts';
export type { PgnFolder, PgnFolderOptions, PgnFolderState } from './pgn-folder/writer.ts';
export { lccRouter } from './lcc/router.ts';
export { relayRouter } from './relay/router.ts';

export interface BridgeMountOptions {
  lcc?: LccRouterOptions;
}

/**
 * The polled bridges on the server's HTTP app: LiveChess Cloud-style JSON under `/lcc/`
 * (`/lcc/tournament.json`, `/lcc/round-N/index.json`, `/lcc/round-N/game-M.json`) and round PGN
 * under `/relay/` (`/relay/round-N.pgn`). Mount before the server's catch-all 404.
 */
export function mountBridges(app: express.Application, source: LiveSource, opts: BridgeMountOptions = {}): void {
  // Public broadcast data, like /api/*: viewers on other sites may read it from the browser.
  app.use(['/lcc', '/relay'], publicCors);
  app.use('/lcc', lccRouter(source, opts.lcc));
  app.use('/relay', relayRouter(source));
}

/** Any origin may read; no credentials cross-origin. ETag is exposed so pollers can revalidate. */
function publicCors(_req: express.Request, res: express.Response, next: express.NextFunction): void {
  res.set('Access-Control-Allow-Origin', '*');
  res.set('Access-Control-Expose-Headers', 'ETag');
  next();
}
