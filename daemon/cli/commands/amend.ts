import { UsageError, type Command } from '../command.ts';
import { choiceOption, intOption, parseOptions } from '../args.ts';
import { ARBITER_TOKEN_ENV } from '../../server/arbiter-auth.ts';
import type { GameState } from '../../../protocols/feed/model.ts';
import type { AmendmentView } from '../../runtime/arbiter-actions.ts';
import { callDaemon as call, daemonBase, type ApiError } from '../daemon-api.ts';

const ACTIONS = ['result', 'reinstate', 'position', 'moves', 'accept-board', 'swap-colours', 'clock', 'chess960', 'undo'] as const;
type Action = (typeof ACTIONS)[number];

const usage = `usage: boardcast amend <game-id> <action> [args] --reason TEXT [options]
       boardcast amend <game-id> --list [options]

Amends a game on the running daemon (boardcast serve), as the arbiter's desk does: each amendment
is recorded with who, when and why, re-broadcast at once to every feed and platform, and can be
undone (the undo is an amendment too). The board's raw events never change. <game-id> is the
game's id in the API, e.g. r3-t12 (round 3, table 12).

Actions:
  result <1-0|0-1|1/2-1/2>     set or change the result
  reinstate <ply>              go back to the position after <ply> (moves after it deleted)
  position <fen>               the game goes on from this position
  moves --from <ply> <san>...  the moves after <ply> are these (insert missing moves at a
                               break, or another order of inferred moves); --replaces N: how
                               many recorded plies they replace (1 fills a break)
  accept-board [--ply N]       accept the board's position (a break at ply N, or now)
  swap-colours                 the players were entered the wrong way round: swap them
  clock [--ply N] [--white T] [--black T]
                               correct a clock reading: the %clk of ply N, or (no --ply) the
                               clock now; T as h:mm:ss or m:ss
  chess960 <fen|number>        the game is Chess960 from this start (FEN, or position 0-959):
                               derived again from it
  undo <amendment-id>          take an amendment back (see --list for the ids)

Options:
  --reason TEXT     why, for the audit trail (required for swap-colours, clock, chess960, undo)
  --list            list the game's amendments (id, when, who, what, why, undone or not)
  --config FILE     the tournament config the daemon runs with: where it listens (httpHost,
                    httpPort; default: the embedded config, http://127.0.0.1:8080)
  --url URL         the daemon's address instead (e.g. http://192.168.1.20:8080)
  --token TOKEN     the arbiter token (default: $${ARBITER_TOKEN_ENV})
  --arbiter NAME    who acts, for the audit trail (default "arbiter")

Exit code 0 when done, 1 when the daemon refused or could not be reached, 2 on usage errors.`;

/** "1:30:00" or "45:10" → ms. */
function clockTime(text: string, what: string): number {
  const m = /^(?:(\d{1,2}):)?([0-5]?\d):([0-5]\d)$/.exec(text);
  if (!m) throw new UsageError(`${what} must be a time as h:mm:ss or m:ss, not ${JSON.stringify(text)}`);
  return ((Number(m[1] ?? 0) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000;
}

const one = (args: string[], what: string): string => {
  if (args.length !== 1) throw new UsageError(`${what}: give exactly one ${what === 'result' ? 'result' : 'value'}${args.length > 1 ? `, not ${args.join(' ')}` : ''}`);
  return args[0]!;
};

/** The request body of an action from its arguments (checked further by the daemon). */
function bodyOf(action: Action, args: string[], v: { from?: string; replaces?: string; ply?: string; white?: string; black?: string }): Record<string, unknown> {
  const ply = v.ply === undefined ? undefined : intOption(v.ply, '--ply', { min: 1 });
  if (v.ply !== undefined && action !== 'accept-board' && action !== 'clock') throw new UsageError('--ply goes with accept-board and clock');
  if ((v.from !== undefined || v.replaces !== undefined) && action !== 'moves') throw new UsageError('--from and --replaces go with moves');
  if ((v.white !== undefined || v.black !== undefined) && action !== 'clock') throw new UsageError('--white and --black go with clock');
  switch (action) {
    case 'result':
      return { result: choiceOption(one(args, 'result'), 'the result', ['1-0', '0-1', '1/2-1/2']) };
    case 'reinstate':
      return { ply: intOption(one(args, 'reinstate'), 'the ply', { min: 0 }) };
    case 'position':
      return { fen: args.join(' ') };
    case 'moves': {
      if (v.from === undefined) throw new UsageError('moves needs --from <ply>: the ply after which the moves go');
      if (args.length === 0) throw new UsageError('moves needs the moves, in SAN');
      return { fromPly: intOption(v.from, '--from', { min: 0 }), sans: args, ...(v.replaces !== undefined ? { replaces: intOption(v.replaces, '--replaces', { min: 1 }) } : {}) };
    }
    case 'accept-board':
    case 'swap-colours':
      if (args.length > 0) throw new UsageError(`${action} takes no arguments`);
      return ply !== undefined ? { ply } : {};
    case 'clock': {
      if (args.length > 0) throw new UsageError('clock takes --white and --black, not arguments');
      if (v.white === undefined && v.black === undefined) throw new UsageError('clock needs --white, --black or both');
      return {
        ...(ply !== undefined ? { ply } : {}),
        ...(v.white !== undefined ? { whiteMs: clockTime(v.white, '--white') } : {}),
        ...(v.black !== undefined ? { blackMs: clockTime(v.black, '--black') } : {}),
      };
    }
    case 'chess960': {
      const text = args.join(' ');
      if (text === '') throw new UsageError('chess960 needs the start position: a FEN or a number 0-959');
      return /^\d{1,3}$/.test(text) ? { position: intOption(text, 'the position', { min: 0, max: 959 }) } : { fen: text };
    }
    case 'undo':
      return { amendment: intOption(one(args, 'undo'), 'the amendment id', { min: 1 }) };
  }
}

const time = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

const amend: Command = {
  summary: 'amend a game on the running daemon (result, moves, clock, colours, Chess960, undo) or list its amendments',
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
        list: { type: 'boolean' },
        from: { type: 'string' },
        replaces: { type: 'string' },
        ply: { type: 'string' },
        white: { type: 'string' },
        black: { type: 'string' },
      },
      { positionals: true },
    );
    const [gameId, actionRaw, ...args] = positionals;
    if (gameId === undefined) throw new UsageError('say which game (e.g. r1-t3)');
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(gameId)) throw new UsageError(`${JSON.stringify(gameId)} is not a game id (e.g. r1-t3)`);
    if (v.list && actionRaw !== undefined) throw new UsageError('--list takes no action');
    if (!v.list && actionRaw === undefined) throw new UsageError(`say what to do: ${ACTIONS.join(', ')}; or --list`);
    const action = v.list ? null : choiceOption(actionRaw!, 'the action', ACTIONS);
    const body = action === null ? null : bodyOf(action, args, v);

    const where = daemonBase(v.url, v.config);
    if (!where.ok) {
      if (where.usage) throw new UsageError(where.lines.join('; '));
      for (const m of where.lines) console.error(m);
      return 1;
    }
    const token = v.token ?? process.env[ARBITER_TOKEN_ENV];
    if (!token) {
      console.error(`amend: an arbiter token is needed: --token TOKEN or ${ARBITER_TOKEN_ENV}`);
      return 1;
    }
    const game = `${where.value}/api/arbiter/games/${encodeURIComponent(gameId)}`;
    const refused = (r: { status: number; body: unknown }, what: string): number => {
      const e = (r.body as ApiError).error;
      console.error(`amend: ${what} refused (${r.status}${e?.code ? ` ${e.code}` : ''}): ${e?.message ?? JSON.stringify(r.body).slice(0, 300)}`);
      return 1;
    };

    if (body === null) {
      const r = await call(`${game}/amendments`, { headers: { authorization: `Bearer ${token}` } });
      if (typeof r === 'string') {
        console.error(`amend: ${r}`);
        return 1;
      }
      if (r.status !== 200 || !Array.isArray(r.body)) return refused(r, 'the list');
      const list = r.body as AmendmentView[];
      if (list.length === 0) console.log(`${gameId}: no amendments`);
      for (const a of list) {
        const state = a.undone ? '  [undone]' : '';
        console.log(`${a.id}  ${time(a.at)}  ${a.arbiter}  ${a.action}${a.undoes !== undefined ? ` ${a.undoes}` : ''}  "${a.reason}"${state}`);
      }
      return 0;
    }
    if (v.arbiter !== undefined) body.arbiter = v.arbiter;
    if (v.reason !== undefined) body.reason = v.reason;
    const r = await call(`${game}/${action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (typeof r === 'string') {
      console.error(`amend: ${r}`);
      return 1;
    }
    if (r.status !== 200) return refused(r, `${action} on ${gameId}`);
    const g = r.body as GameState;
    console.log(`${gameId} amended (${action}): ${g.white.name} - ${g.black.name}  ${g.status}${g.result !== '*' ? ` ${g.result}` : ''}, ${g.ply} plies`);
    return 0;
  },
};

export default amend;
