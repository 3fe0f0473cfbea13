import { startLiveChessApi, startPgnFolder, startRelayPush, type BoardInfo, type LiveChessApi, type PgnFolder, type PushReport, type RelayPush } from '../../bridge/index.ts';
import type { OutputsHealth } from '../../protocols/feed/hall.ts';
import type { LiveSource } from '../../protocols/feed/model.ts';
import type { Logger } from '../log/logger.ts';
import { err, ok, type Result } from '../store/result.ts';
import type { BoardcastConfig } from '../tournament/config.ts';
import type { TableHealthState } from './table-watch.ts';

/** The environment variable a lichess push token may come from instead of the config file. */
export const LICHESS_TOKEN_ENV = 'BOARDCAST_LICHESS_TOKEN';

/** What the outputs need to know of a table: its board's serial number and how its link is doing. */
export interface OutputTable {
  table: number;
  serial: string | null;
  state: TableHealthState;
}

export interface RunningOutputs {
  /** For /health: each output's state, null when it is off. */
  health(): OutputsHealth;
  stop(): Promise<void>;
}

/**
 * The push token: the config's, else BOARDCAST_LICHESS_TOKEN. Checked before the store is opened,
 * so a push configured without a token refuses to start instead of failing every request.
 */
export function lichessToken(config: BoardcastConfig, env: NodeJS.ProcessEnv = process.env): Result<string | null, string> {
  const push = config.outputs.lichessPush;
  if (!push) return ok(null);
  const token = push.token ?? env[LICHESS_TOKEN_ENV]?.trim() ?? '';
  if (token === '') return err(`outputs.lichessPush: no token: set outputs.lichessPush.token in the config or ${LICHESS_TOKEN_ENV} (a lichess API token with study:write)`);
  return ok(token);
}

/**
 * A board as LiveChess reports it: ACTIVE when its link is live, DELAYED while out of step,
 * NOTRESPONDING when it went silent or its link is being retried, INACTIVE otherwise (searched
 * for, connecting). A table whose board has told no serial number yet is not listed.
 */
export function liveChessBoards(tables: readonly OutputTable[]): BoardInfo[] {
  return tables.flatMap((t) => {
    if (t.serial === null) return [];
    const state = t.state === 'live' ? 'ACTIVE' : t.state === 'out-of-step' ? 'DELAYED' : t.state === 'silent' || t.state === 'retrying' ? 'NOTRESPONDING' : 'INACTIVE';
    return [{ serialnr: t.serial, state, table: t.table }];
  });
}

/**
 * Starts the outputs the config turns on besides the HTTP port: the LiveChess eBoard API on its own
 * port, the lichess push client and the PGN folder. A configured output that cannot start (the port is taken) is
 * an error: `serve` then stops rather than run without what the organiser asked for.
 */
export async function startOutputs(opts: { config: BoardcastConfig; source: LiveSource; tables: () => OutputTable[]; token: string | null; log: Logger }): Promise<Result<RunningOutputs, string>> {
  const { config, log } = opts;
  let api: LiveChessApi | null = null;
  const lc = config.outputs.liveChessApi;
  if (lc) {
    const started = await startLiveChessApi({ source: opts.source, boards: () => liveChessBoards(opts.tables()), port: lc.port, host: lc.host });
    if (!started.ok) return err(`outputs.liveChessApi: ${started.error} (is DGT LiveChess running? choose another outputs.liveChessApi.port)`);
    api = started.value;
    log.info('LiveChess eBoard API', { url: api.url });
  }
  let push: RelayPush | null = null;
  const pc = config.outputs.lichessPush;
  if (pc && opts.token !== null) {
    const plog = log.child('lichess push');
    push = startRelayPush({ source: opts.source, rounds: pc.rounds, token: opts.token, baseUrl: pc.baseUrl, onReport: pushLogger(plog) });
    plog.info('pushing rounds', { to: pc.baseUrl, rounds: pc.rounds.map((r) => `${r.round} → ${r.roundId}`).join(', ') });
  }
  let folder: PgnFolder | null = null;
  const pf = config.outputs.pgnFolder;
  if (pf) {
    const flog = log.child('pgn folder');
    try {
      folder = startPgnFolder({ source: opts.source, dir: pf.path, onError: (m) => flog.warn('could not write the PGN files: tried again on the next change', { error: m }) });
    } catch (e) {
      push?.stop();
      await api?.close();
      return err(`outputs.pgnFolder: cannot write into ${pf.path}: ${(e as Error).message}`);
    }
    flog.info('writing PGN files', { dir: pf.path });
  }
  return ok({
    health: () => ({
      liveChessApi: api ? { url: api.url, connections: api.stats.connections, feedMessages: api.stats.feedMessages, badMessages: api.stats.badMessages } : null,
      lichessPush: push ? push.state().map((s) => ({ ...s })) : null,
      pgnFolder: folder ? { ...folder.state() } : null,
    }),
    stop: async () => {
      folder?.flush();
      folder?.stop();
      push?.stop();
      await api?.close();
    },
  });
}

/**
 * One log line per change of a target's fortune, not per push: the first push and a recovery say
 * so, a failure says what and when the next attempt is, a refused token is said once per hold.
 */
function pushLogger(log: Logger): (r: PushReport) => void {
  const lastKind = new Map<string, PushReport['kind']>();
  return (r) => {
    const key = `${r.round}/${r.roundId}`;
    const before = lastKind.get(key);
    lastKind.set(key, r.kind);
    const where = { round: r.round, roundId: r.roundId };
    switch (r.kind) {
      case 'pushed':
        if (before !== 'pushed') log.info(before === undefined ? 'first push accepted' : 'pushes accepted again', { ...where, games: r.games.length });
        if (r.gameErrors > 0) log.warn('lichess refused some games of the push', { ...where, errors: r.games.flatMap((g) => ('error' in g ? [g.error] : [])).join('; ') });
        return;
      case 'retrying':
        log.warn(r.status === 429 ? 'rate limited by the platform: waiting before the next push' : 'push failed: retrying', {
          ...where,
          status: r.status,
          answer: r.message,
          retryInS: Math.round(r.inMs / 1000),
        });
        return;
      case 'unauthorized':
        log.error('the push token was refused: nothing more is pushed to this round until boardcast restarts with another token or the wait is over', {
          ...where,
          status: r.status,
          answer: r.message,
          retryInMin: Math.round(r.inMs / 60_000),
        });
        return;
      case 'rejected':
        log.warn('push refused: sent again on the next change', { ...where, status: r.status, answer: r.message });
        return;
    }
  };
}
