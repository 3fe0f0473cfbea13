import type { IncomingMessage, Server, ServerResponse } from 'node:http';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Answers GET /health with the runtime's own report (tables and their board connection state)
 * in front of the server's handler, which only knows the read model. The server offers no hook
 * for this, so the HTTP server's request listeners are wrapped; `extra` routes (the polled bridges)
 * are served the same way; everything else passes through.
 */
export function serveHealth(http: Server, report: () => Record<string, unknown>, extra?: { prefixes: string[]; handler: RequestListener }): void {
  const inner = http.listeners('request') as RequestListener[];
  http.removeAllListeners('request');
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/health' && (req.method === 'GET' || req.method === 'HEAD')) {
      const body = JSON.stringify(report());
      res.writeHead(200, {
        'Content-Type': 'application/json; charset=utf-8',
        'Cache-Control': 'no-cache',
        'Access-Control-Allow-Origin': '*',
        'Content-Length': Buffer.byteLength(body),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    if (extra && extra.prefixes.some((p) => path === p || path!.startsWith(`${p}/`))) {
      extra.handler(req, res);
      return;
    }
    for (const l of inner) l.call(http, req, res);
  });
}
