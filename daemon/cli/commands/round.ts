import { UsageError, type Command } from '../command.ts';
import { choiceOption, intOption, parseOptions } from '../args.ts';
import { ARBITER_TOKEN_ENV } from '../../server/arbiter-auth.ts';
import type { GameSummary, RoundInfo } from '../../../protocols/feed/model.ts';
import { callDaemon as call, daemonBase, type ApiError } from '../daemon-api.ts';

const usage = `usage: boardcast round start <n> [options]
       boardcast round close <n> [--force] [options]
       boardcast round status [options]

Starts or closes a round on the running daemon (boardcast serve), or lists the rounds.

  start <n>         open round n: one game per imported pairing (boardcast import-pairings
                    --round n) at a table with a board, each waiting for its board's start
                    position (moves made before the start are found). Refused while a table
                    still plays a game with moves and no result.
  close <n>         close round n; refused while games are unfinished unless --force (an
                    adjourned game, or results to be set later)
  status            every round with its status and games

Options:
  --config FILE     the tournament config the daemon runs with: where it listens (httpHost,
                    httpPort; default: the embedded config, http://127.0.0.1:8080)
  --url URL         the daemon's address instead (e.g. http://192.168.1.20:8080)
  --token TOKEN     the arbiter token (default: $${ARBITER_TOKEN_ENV})
  --arbiter NAME    who acts, for the audit trail (default "arbiter")
  --reason TEXT     why, for the audit trail
  --force           close with unfinished games

Exit code 0 when done, 1 when the daemon refused or could not be reached, 2 on usage errors.`;

function describeGames(games: GameSummary[]): string[] {
  return games.map((g) => `  table ${g.table}: ${g.white.name} - ${g.black.name}  ${g.status}${g.result !== '*' ? ` ${g.result}` : ''}${g.ply > 0 ? ` (${g.ply} plies)` : ''}`);
}

const round: Command = {
  summary: 'start or close a round on the running daemon, or list the rounds',
  usage,
  async run(argv) {
    const { values: v, positionals } = parseOptions(
      argv,
      {
        config: { type: 'string' },
        url: { type: 'string' },
        token: { type: 'string' },
        arbiter: { type: 'string' },
        reason: { type: 'string' },
        force: { type: 'boolean' },
      },
      { positionals: true },
    );
    const [verbRaw, nRaw, ...rest] = positionals;
    if (verbRaw === undefined) throw new UsageError('say start, close or status');
    const verb = choiceOption(verbRaw, 'the action', ['start', 'close', 'status']);
    if (rest.length > 0) throw new UsageError(`unexpected ${rest.join(' ')}`);
    if (verb === 'status' && nRaw !== undefined) throw new UsageError('status takes no round number');
    if (verb !== 'status' && nRaw === undefined) throw new UsageError(`${verb} needs a round number`);
    const n = nRaw === undefined ? undefined : intOption(nRaw, 'the round', { min: 1, message: 'the round must be a number (1, 2, …)' });
    if (v.force && verb !== 'close') throw new UsageError('--force only goes with close');

    const where = daemonBase(v.url, v.config);
    if (!where.ok) {
      if (where.usage) throw new UsageError(where.lines.join('; '));
      for (const m of where.lines) console.error(m);
      return 1;
    }
    const base = where.value;

    if (verb === 'status') {
      const r = await call(`${base}/api/rounds`);
      if (typeof r === 'string') {
        console.error(`round: ${r}`);
        return 1;
      }
      if (r.status !== 200 || !Array.isArray(r.body)) {
        console.error(`round: ${base}/api/rounds answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
        return 1;
      }
      for (const x of r.body as RoundInfo[]) console.log(`round ${x.round}: ${x.status}, ${x.gameCount} game(s)${x.date ? `, ${x.date}` : ''}`);
      return 0;
    }

    const token = v.token ?? process.env[ARBITER_TOKEN_ENV];
    if (!token) {
      console.error(`round: an arbiter token is needed: --token TOKEN or ${ARBITER_TOKEN_ENV}`);
      return 1;
    }
    const body: Record<string, unknown> = {};
    if (v.arbiter !== undefined) body.arbiter = v.arbiter;
    if (v.reason !== undefined) body.reason = v.reason;
    if (verb === 'close') body.force = v.force ?? false;
    const r = await call(`${base}/api/arbiter/rounds/${n}/${verb}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (typeof r === 'string') {
      console.error(`round: ${r}`);
      return 1;
    }
    if (r.status !== 200) {
      const e = (r.body as ApiError).error;
      console.error(`round: ${verb} ${n} refused (${r.status}${e?.code ? ` ${e.code}` : ''}): ${e?.message ?? JSON.stringify(r.body).slice(0, 300)}`);
      return 1;
    }
    const done = r.body as { round: RoundInfo; games: GameSummary[] };
    console.log(`round ${n} ${verb === 'start' ? 'started' : 'closed'}: ${done.round.status}, ${done.games.length} game(s)`);
    for (const line of describeGames(done.games)) console.log(line);
    return 0;
  },
};

export default round;
