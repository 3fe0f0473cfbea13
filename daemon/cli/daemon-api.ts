import { loadConfig } from '../tournament/config.ts';

/** The JSON error shape of the daemon's API (docs/api.md). */
export interface ApiError {
  error?: { status?: number; code?: string; message?: string };
}

/** Where the config's daemon answers: a wildcard listen address is reached on this machine. */
export function daemonUrl(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

/**
 * The running daemon's base address, from --url or the config it runs with; the error lines say
 * what is wrong (a bad --url is the caller's usage error: `usage` true).
 */
export function daemonBase(url: string | undefined, config: string | undefined): { ok: true; value: string } | { ok: false; usage: boolean; lines: string[] } {
  if (url !== undefined) {
    if (!/^https?:\/\/[^/]+/.test(url)) return { ok: false, usage: true, lines: [`--url needs an http:// address, not ${url}`] };
    return { ok: true, value: url.replace(/\/+$/, '') };
  }
  const c = loadConfig(config);
  if (!c.ok) return { ok: false, usage: false, lines: c.error.messages };
  return { ok: true, value: daemonUrl(c.value.httpHost, c.value.httpPort) };
}

/** One request to the daemon: its status and body (JSON when it is), or why no daemon answered. */
export async function callDaemon(url: string, init?: RequestInit): Promise<{ status: number; body: unknown } | string> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text for the message
    }
    return { status: res.status, body };
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message;
    return `no daemon answers at ${new URL(url).origin} (${cause}): is boardcast serve running with this config?`;
  }
}
