import WebSocket from 'ws';
import { decodeServerMessage, encode, type ClientMessage, type ServerMessage } from '../../protocols/feed/messages.ts';

/** A feed client for tests: every server message is queued; `next` waits for one that matches. */
export class TestClient {
  readonly messages: ServerMessage[] = [];
  private readonly waiters: { pred: (m: ServerMessage) => boolean; resolve: (m: ServerMessage) => void }[] = [];
  private cursor = 0;
  closed: { code: number; reason: string } | null = null;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const d = decodeServerMessage((data as Buffer).toString('utf8'));
      if (!d.ok) throw new Error(`bad server frame: ${d.error.message}`);
      this.messages.push(d.value);
      for (let i = this.waiters.length - 1; i >= 0; i--) {
        const w = this.waiters[i]!;
        if (w.pred(d.value)) {
          this.waiters.splice(i, 1);
          w.resolve(d.value);
        }
      }
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) };
    });
  }

  static async open(url: string, opts: { token?: string; headers?: Record<string, string> } = {}): Promise<TestClient> {
    // The token travels as a Bearer header at the upgrade: a secret never goes in the URL.
    const headers = { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...opts.headers };
    const ws = new WebSocket(url, { headers });
    const c = new TestClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    await c.next((m) => m.type === 'welcome');
    return c;
  }

  send(msg: ClientMessage): void {
    this.ws.send(encode(msg));
  }

  sendRaw(data: string | Buffer): void {
    this.ws.send(data);
  }

  /** The first not-yet-consumed message matching `pred` (waiting up to `timeoutMs`). */
  next<T extends ServerMessage>(pred: (m: ServerMessage) => m is T, timeoutMs?: number): Promise<T>;
  next(pred: (m: ServerMessage) => boolean, timeoutMs?: number): Promise<ServerMessage>;
  next(pred: (m: ServerMessage) => boolean, timeoutMs = 5000): Promise<ServerMessage> {
    for (let i = this.cursor; i < this.messages.length; i++) {
      const m = this.messages[i]!;
      if (pred(m)) {
        this.cursor = i + 1;
        return Promise.resolve(m);
      }
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting; last messages: ${JSON.stringify(this.messages.slice(-3)).slice(0, 600)}`)), timeoutMs);
      this.waiters.push({
        pred,
        resolve: (m) => {
          clearTimeout(timer);
          this.cursor = this.messages.length;
          resolve(m);
        },
      });
    });
  }

  deltas(scope: string): Extract<ServerMessage, { type: 'delta' }>[] {
    return this.messages.filter((m): m is Extract<ServerMessage, { type: 'delta' }> => m.type === 'delta' && m.scope === scope);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}

export const isType =
  <K extends ServerMessage['type']>(type: K, scope?: string) =>
  (m: ServerMessage): m is Extract<ServerMessage, { type: K }> =>
    m.type === type && (scope === undefined || ('scope' in m && m.scope === scope));
