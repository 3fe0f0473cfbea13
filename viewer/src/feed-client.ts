import type { GameChange } from '../../protocols/feed/model.ts';
import { decodeServerMessage, encode, FEED_PATH, type ClientMessage, type ResumePoint, type Scope, type ServerMessage, type SnapshotBody, scopeKey } from '../../protocols/feed/messages.ts';

export interface ScopeHandlers {
  snapshot(body: SnapshotBody): void;
  delta(change: GameChange): void;
}

export type FeedStatus = 'connecting' | 'live' | 'offline';

interface Sub {
  scope: Scope;
  handlers: ScopeHandlers;
  resume: ResumePoint | null;
}

/**
 * The viewer's websocket client: subscribes, checks the per-scope sequence numbers, and after a
 * dropped connection reconnects (with backoff) and resumes each scope from its last sequence
 * number, so nothing is missed and nothing applied twice. A gap (which the server never sends)
 * would make it ask for a fresh snapshot rather than show a wrong position.
 */
export class FeedClient {
  private ws: WebSocket | null = null;
  private readonly subs = new Map<string, Sub>();
  private backoffMs = 250;
  private closed = false;
  /** serverNow − Date.now(), for extrapolating clocks in server time. */
  offsetMs = 0;
  status: FeedStatus = 'connecting';
  onStatus: (s: FeedStatus) => void = () => undefined;
  /** Counts for tests and the debug overlay. */
  readonly counters = { connects: 0, snapshots: 0, deltas: 0, resumes: 0, gaps: 0 };

  constructor() {
    this.connect();
  }

  subscribe(scope: Scope, handlers: ScopeHandlers): () => void {
    const key = scopeKey(scope);
    this.subs.set(key, { scope, handlers, resume: null });
    this.send({ v: 1, type: 'subscribe', scope });
    return () => {
      this.subs.delete(key);
      this.send({ v: 1, type: 'unsubscribe', scope });
    };
  }

  serverNow(): number {
    return Date.now() + this.offsetMs;
  }

  close(): void {
    this.closed = true;
    this.ws?.close();
  }

  private send(msg: ClientMessage): void {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(encode(msg));
  }

  private setStatus(s: FeedStatus): void {
    this.status = s;
    this.onStatus(s);
  }

  private connect(): void {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    // An official's session cookie goes with the upgrade request; the URL carries no secret.
    const ws = new WebSocket(`${proto}//${location.host}${FEED_PATH}`);
    this.ws = ws;
    this.setStatus('connecting');
    ws.onopen = () => {
      this.counters.connects++;
      this.backoffMs = 250;
      for (const sub of this.subs.values()) {
        const msg: ClientMessage = sub.resume ? { v: 1, type: 'subscribe', scope: sub.scope, since: sub.resume } : { v: 1, type: 'subscribe', scope: sub.scope };
        ws.send(encode(msg));
      }
      this.setStatus('live');
    };
    ws.onmessage = (ev) => {
      if (typeof ev.data === 'string') this.onMessage(ev.data);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      this.setStatus('offline');
      setTimeout(() => this.connect(), this.backoffMs);
      this.backoffMs = Math.min(this.backoffMs * 2, 5000);
    };
  }

  private onMessage(text: string): void {
    const d = decodeServerMessage(text);
    if (!d.ok) return;
    const msg: ServerMessage = d.value;
    if ('serverNow' in msg) this.offsetMs = msg.serverNow - Date.now();
    switch (msg.type) {
      case 'snapshot': {
        const sub = this.subs.get(msg.scope);
        if (!sub) return;
        sub.resume = { epoch: msg.epoch, seq: msg.seq };
        this.counters.snapshots++;
        sub.handlers.snapshot(msg.body);
        return;
      }
      case 'resumed': {
        const sub = this.subs.get(msg.scope);
        if (sub) this.counters.resumes++;
        return;
      }
      case 'delta': {
        const sub = this.subs.get(msg.scope);
        if (!sub || !sub.resume) return;
        if (msg.seq <= sub.resume.seq) return;
        if (msg.seq !== sub.resume.seq + 1) {
          this.counters.gaps++;
          sub.resume = null;
          this.send({ v: 1, type: 'subscribe', scope: sub.scope });
          return;
        }
        sub.resume.seq = msg.seq;
        this.counters.deltas++;
        sub.handlers.delta(msg.change);
        return;
      }
      default:
        return;
    }
  }
}
