import { createServer } from 'node:net';
import { err, ok, type Result } from '../store/result.ts';

/**
 * Whether the HTTP port can be bound, asked before the store is opened and replayed: a daemon
 * that cannot serve must not touch the store first (the message names what holds the port).
 */
export function portFree(port: number, host: string): Promise<Result<void, string>> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => resolve(err(e.code === 'EADDRINUSE' ? `port ${port} on ${host} is in use by another program` : e.message)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(ok(undefined))));
  });
}
