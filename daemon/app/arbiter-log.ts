import type { Logger } from '../log/logger.ts';
import type { ArbiterHandler } from '../runtime/arbiter.ts';
import type { RoundHandler } from '../runtime/arbiter-actions.ts';

/** The arbiter's game actions, each logged with who took it and why (a failed store write loudly). */
export function loggedArbiter(apply: ArbiterHandler, log: Logger): ArbiterHandler {
  return (gameId, action) => {
    const done = apply(gameId, action);
    if (done.ok) log.info('arbiter action', { gameId, action: action.kind, arbiter: action.arbiter, reason: action.reason });
    else if (done.error.status === 500) log.error('amendment not recorded', { gameId, error: done.error.message });
    return done;
  };
}

/** Round starts and closes, logged with who took them, or why they were refused. */
export function loggedRounds(apply: RoundHandler, log: Logger): RoundHandler {
  return (n, action) => {
    const done = apply(n, action);
    const what = action.kind === 'start' ? 'started' : 'closed';
    if (done.ok) log.info(`round ${n} ${what}`, { games: done.value.games.length, arbiter: action.arbiter, reason: action.reason });
    else log.warn(`round ${n} not ${what}`, { problem: done.error.message });
    return done;
  };
}

/** A round that closed is backed up at once: a round's games are never only in the live file. */
export function backedUpOnClose(apply: RoundHandler, backups: { take(reason: string): Promise<void> }): RoundHandler {
  return (n, action) => {
    const done = apply(n, action);
    if (done.ok && action.kind === 'close') void backups.take(`round ${n} closed`);
    return done;
  };
}
