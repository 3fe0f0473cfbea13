import { UsageError, type Command } from '../command.ts';
import { intOption, numberOption, parseOptions, pathOption } from '../args.ts';
import { createLogger } from '../../log/logger.ts';
import { loadConfig } from '../../tournament/config.ts';
import { startDaemon } from '../../app/daemon.ts';

const usage = `usage: boardcast serve [--config FILE] [--port N] [--data DIR] [--board T=PATH]... [--pace X] [--delay S] [--no-viewer] [--check] [--new] [--livechess-port N]

Runs the broadcast: every configured board (or, with no config, 8 emulated tables replaying real
games at a human pace) → store → reconstruction → HTTP API, websocket feed and viewer.
On start, the live state is rebuilt by replaying the stored raw board events.

  --config FILE   tournament config (default: the embedded config/default.json)
  --port N        HTTP port (overrides httpPort; 0 picks a free one)
  --data DIR      data directory (overrides dataDir)
  --board T=PATH  put table T on the board at PATH (any device path, e.g. a pseudo-terminal of
                  \`boardcast emulate\`); replaces the config's board for T or adds the table
  --pace X        emulated tables play X times faster than real time (default 1)
  --delay S       broadcast delay: every public output (viewer, feed, API, PGN, /lcc, /relay)
                  shows the games S seconds late; the arbiter's pages and token stay live
                  (overrides broadcast.delaySeconds; 0 is live)
  --no-viewer     serve the API and feed only
  --check         check the store fully before opening it (every index entry against its row;
                  slower on a big store); without it a quick check reads every page. A damaged
                  store is refused and never written: restore a backup (boardcast restore)
  --new           start a new event although the store is missing or empty where one existed
                  (the data directory holds other files); without it such a start is refused
  --livechess-port N
                  serve the LiveChess eBoard API (what lichess's DGT page talks to) on port N
                  (1982 is LiveChess's own; 0 picks a free one); overrides
                  outputs.liveChessApi.port and turns the API on without the config key

Outputs (config/README.md, docs/bridge.md): the round PGN (/relay/round-N.pgn) and LCC JSON (/lcc/)
are always served on the HTTP port; the config's \`outputs.liveChessApi\` starts the LiveChess
eBoard API on its own port, \`outputs.lichessPush\` pushes rounds to lichess broadcasts (token from
the config or BOARDCAST_LICHESS_TOKEN), \`outputs.pgnFolder\` writes round-N.pgn and
round-N/game-<table>.pgn into a folder (for uploaders such as lichess's Broadcaster app). /health
and the hall page report each output's state.

A table whose board is a 5-digit serial number is matched to the serial port whose board reports
that number (probed every 10 s while unmatched); BOARDCAST_DEVICE_DIRS adds colon-separated
directories or dir/pattern entries (e.g. /tmp/hall/board?) to the ports probed.

Officials (arbiters, organisers) log in at /login with the config's access.accounts (password
hashes from \`boardcast hash-password\`; sessions last access.sessionHours), or once with a
link from \`boardcast invite\`. /arbiter is the desk; /hall the organiser's hall page (every
table's board and game, problems first, and the outputs; docs/hall.md). Scripts may use the
arbiter token from BOARDCAST_ARBITER_TOKEN as Authorization: Bearer (never in a URL).`;

interface Args {
  config?: string;
  port?: number;
  data?: string;
  pace: number;
  delaySeconds?: number;
  viewer: boolean;
  check: boolean;
  newStore: boolean;
  boards: { table: number; path: string }[];
  liveChessPort?: number;
}

/** TABLE=/absolute/path: the config schema only takes /dev paths; this also reaches pseudo-terminals. */
function boardOption(value: string): { table: number; path: string } {
  const m = /^(\d+)=(\/.+)$/.exec(value);
  if (!m || Number(m[1]) < 1) throw new UsageError('--board needs TABLE=/absolute/path, e.g. 3=/dev/ttyUSB0');
  return { table: Number(m[1]), path: pathOption(m[2]!) };
}

function parseServeArgs(argv: string[]): Args {
  const { values: v } = parseOptions(argv, {
    config: { type: 'string' },
    data: { type: 'string' },
    port: { type: 'string' },
    pace: { type: 'string' },
    delay: { type: 'string' },
    board: { type: 'string', multiple: true },
    'no-viewer': { type: 'boolean' },
    check: { type: 'boolean' },
    new: { type: 'boolean' },
    'livechess-port': { type: 'string' },
  });
  return {
    ...(v.config !== undefined ? { config: v.config } : {}),
    ...(v.data !== undefined ? { data: pathOption(v.data) } : {}),
    ...(v.port !== undefined ? { port: intOption(v.port, '--port', { min: 0, max: 65535 }) } : {}),
    pace: numberOption(v.pace, '--pace', { above: 0 }) ?? 1,
    ...(v.delay !== undefined ? { delaySeconds: intOption(v.delay, '--delay', { min: 0, max: 86_400 }) } : {}),
    viewer: !(v['no-viewer'] ?? false),
    check: v.check ?? false,
    newStore: v.new ?? false,
    boards: (v.board ?? []).map(boardOption),
    ...(v['livechess-port'] !== undefined ? { liveChessPort: intOption(v['livechess-port'], '--livechess-port', { min: 0, max: 65535 }) } : {}),
  };
}

const serve: Command = {
  summary: 'run the broadcast daemon (boards → store → live games → HTTP/websocket/viewer)',
  usage,
  async run(argv) {
    const args = parseServeArgs(argv);
    const log = createLogger({ component: 'serve' });
    const loaded = loadConfig(args.config);
    if (!loaded.ok) {
      for (const m of loaded.error.messages) console.error(loaded.error.file ? `${loaded.error.file}: ${m}` : m);
      return 1;
    }
    const config = { ...loaded.value, ...(args.data ? { dataDir: args.data } : {}), ...(args.delaySeconds !== undefined ? { broadcast: { delaySeconds: args.delaySeconds } } : {}) };
    if (args.liveChessPort !== undefined) {
      config.outputs = { ...config.outputs, liveChessApi: { host: config.outputs.liveChessApi?.host ?? '127.0.0.1', port: args.liveChessPort } };
    }
    // The config schema only takes /dev paths; --board also reaches pseudo-terminals elsewhere.
    for (const b of args.boards) {
      const tables = config.tables.filter((t) => t.number !== b.table);
      const old = config.tables.find((t) => t.number === b.table);
      config.tables = [...tables, { number: b.table, board: b.path, whiteOnClock: old?.whiteOnClock ?? 'left' }].sort((x, y) => x.number - y.number);
    }
    // Signals are heard from the start: one that comes while the daemon is still starting stops
    // it as soon as it is up, instead of killing the process halfway through.
    let signal: string | null = null;
    let wake: (() => void) | null = null;
    const onInt = (): void => {
      signal ??= 'SIGINT';
      wake?.();
    };
    const onTerm = (): void => {
      signal ??= 'SIGTERM';
      wake?.();
    };
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    const started = await startDaemon({
      config,
      log,
      pace: args.pace,
      viewer: args.viewer,
      check: args.check ? 'full' : 'quick',
      newStore: args.newStore,
      ...(args.port !== undefined ? { port: args.port } : {}),
    });
    if (!started.ok) {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      console.error(started.error);
      return 1;
    }
    const daemon = started.value;
    if (signal === null) await new Promise<void>((done) => (wake = done));
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    log.info('shutting down', { signal });
    await daemon.stop();
    log.info('stopped');
    return 0;
  },
};

export default serve;
