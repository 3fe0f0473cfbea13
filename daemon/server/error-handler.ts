import type { ErrorRequestHandler } from 'express';

/** One line about a request that failed, for the daemon's log (never a stack trace to a client). */
export type RequestProblem = { status: number; method: string; path: string; message: string };

/** Express's own errors carry the HTTP status they stand for (a bad %-escape in the path is 400). */
function statusOf(e: unknown): number {
  const s = (e as { status?: unknown; statusCode?: unknown } | null)?.status ?? (e as { statusCode?: unknown } | null)?.statusCode;
  return typeof s === 'number' && s >= 400 && s < 600 ? s : 500;
}

/** What a client is told: the kind of problem, nothing of the server's files or code. */
function clientMessage(status: number, e: unknown): string {
  if (status === 400 && e instanceof URIError) return 'the address holds a malformed %-escape';
  if (status === 413) return 'the request body is too large';
  if (status < 500) return (e as { expose?: boolean; message?: string } | null)?.expose ? String((e as Error).message) : 'bad request';
  return 'the server could not answer this request';
}

/**
 * The last handler on the app: any error a route or Express itself raised becomes a JSON answer
 * `{error: {status, code, message}}` (4xx for the client's mistakes, 500 for ours), and one line
 * through `report`; no HTML page, no stack trace, nothing on stderr.
 */
export function jsonErrors(report: (p: RequestProblem) => void = () => {}): ErrorRequestHandler {
  return (e: unknown, req, res, next) => {
    if (res.headersSent) {
      next(e);
      return;
    }
    const status = statusOf(e);
    const message = clientMessage(status, e);
    report({ status, method: req.method, path: req.originalUrl.slice(0, 200), message: status >= 500 ? String((e as Error)?.message ?? e) : message });
    const code = status === 413 ? 'too-large' : status >= 500 ? 'internal' : e instanceof URIError ? 'bad-path' : 'bad-request';
    res.status(status).json({ error: { status, code, message } });
  };
}
