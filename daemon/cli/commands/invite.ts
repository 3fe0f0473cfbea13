import { UsageError, type Command } from '../command.ts';
import { choiceOption, numberOption, parseOptions } from '../args.ts';
import { ARBITER_TOKEN_ENV } from '../../server/arbiter-auth.ts';
import { callDaemon, daemonBase, type ApiError } from '../daemon-api.ts';

const usage = `usage: boardcast invite --name NAME --role arbiter|organiser [--hours H] [options]

Asks the running daemon (boardcast serve) for a one-time invitation link: whoever opens it first
and presses "Log in" is logged in once as NAME with the role, for the config's session length
(access.sessionHours). For an official without an account in the config (a deputy arbiter for a
day); the audit trail records NAME. The link works once and expires after H hours (default 24,
at most 168); a restart of the daemon forgets unused invitations. Send it privately: it is a
secret until used.

Options:
  --name NAME       who is invited (not the name of an account in the config)
  --role ROLE       arbiter or organiser
  --hours H         how long the link stays valid (default 24)
  --config FILE     the tournament config the daemon runs with: where it listens
  --url URL         the daemon's address instead (e.g. http://192.168.1.20:8080); the link is
                    printed with it, so give the address the official's browser will use
  --token TOKEN     the arbiter token (default: $${ARBITER_TOKEN_ENV})

Exit code 0 when the link was printed, 1 when the daemon refused or could not be reached, 2 on
usage errors.`;

const invite: Command = {
  summary: 'print a one-time invitation link for an official, from the running daemon',
  usage,
  async run(argv) {
    const { values: v } = parseOptions(argv, {
      name: { type: 'string' },
      role: { type: 'string' },
      hours: { type: 'string' },
      config: { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
    });
    if (!v.name) throw new UsageError('--name NAME is needed');
    if (!v.role) throw new UsageError('--role arbiter|organiser is needed');
    const role = choiceOption(v.role, '--role', ['arbiter', 'organiser']);
    const hours = v.hours === undefined ? undefined : numberOption(v.hours, '--hours');
    const where = daemonBase(v.url, v.config);
    if (!where.ok) {
      if (where.usage) throw new UsageError(where.lines.join('; '));
      for (const m of where.lines) console.error(m);
      return 1;
    }
    const token = v.token ?? process.env[ARBITER_TOKEN_ENV];
    if (!token) {
      console.error(`invite: an arbiter token is needed: --token TOKEN or ${ARBITER_TOKEN_ENV}`);
      return 1;
    }
    const r = await callDaemon(`${where.value}/api/arbiter/invitations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: v.name, role, ...(hours !== undefined ? { hours } : {}) }),
    });
    if (typeof r === 'string') {
      console.error(`invite: ${r}`);
      return 1;
    }
    if (r.status !== 200) {
      const e = (r.body as ApiError).error;
      console.error(`invite: refused (${r.status}${e?.code ? ` ${e.code}` : ''}): ${e?.message ?? JSON.stringify(r.body).slice(0, 300)}`);
      return 1;
    }
    const done = r.body as { path: string; expiresAt: number };
    console.log(`${where.value}${done.path}`);
    console.error(`invite: one login as ${v.name} (${role}), valid until ${new Date(done.expiresAt).toISOString()}`);
    return 0;
  },
};

export default invite;
