import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import { encode, type ErrorCode, type ResumePoint, type Role, type Scope, type ServerMessage, type SnapshotBody, type SnapshotReason, scopeKey } from '../../protocols/feed/messages.ts';
import { decodeClientMessage } from '../../protocols/feed/client-messages.ts';
import type { GameChange, GameState, GameSummary, LiveSource } from '../../protocols/feed/model.ts';
import { ScopeStream } from './scope-stream.ts';
import { compressedTextFrame, deflateParams, deflatePart, storedPart, takesSharedDeflate } from './deflated-frames.ts';

/** How the feed learns who a client is: at the upgrade (session cookie or Bearer header) or later with an `auth` message. */
export interface FeedAuth {
  roleAtUpgrade(req: IncomingMessage): Role;
  tokenIsArbiter(token: string): boolean;
}

export interface FeedLimits {
  /** Largest client frame accepted (ws closes with 1009 beyond it). */
  maxPayload: number;
  /** Token bucket per connection: burst size and refill per second. */
  rateBurst: number;
  ratePerSecond: number;
  /** Rate-limit violations after which the connection is closed (1008). */
  rateViolationsBeforeClose: number;
  maxSubscriptionsPerConnection: number;
  /** Deltas kept per scope stream for resuming clients. */
  historyPerScope: number;
  /** Above this many queued bytes a client stops receiving deltas and is resynced later. */
  highWaterBytes: number;
  /** A lagging client gets its resync snapshot once its queue is below this. */
  lowWaterBytes: number;
  /** A client that stays behind this long is disconnected (1013). */
  laggingTimeoutMs: number;
  /** How often lagging clients are checked. */
  resyncCheckMs: number;
  /**
   * Websocket ping interval; a client that has not answered the previous ping is dropped (phones
   * that walk out of the hall leave half-open TCP connections behind).
   */
  heartbeatMs: number;
  /** Websocket connections at once, in all and from one address (refused at the upgrade with 503). */
  maxConnections: number;
  maxConnectionsPerIp: number;
}

export const DEFAULT_FEED_LIMITS: FeedLimits = {
  maxPayload: 16 * 1024,
  rateBurst: 40,
  ratePerSecond: 20,
  rateViolationsBeforeClose: 200,
  maxSubscriptionsPerConnection: 64,
  historyPerScope: 2048,
  highWaterBytes: 512 * 1024,
  lowWaterBytes: 64 * 1024,
  laggingTimeoutMs: 60_000,
  resyncCheckMs: 100,
  heartbeatMs: 30_000,
  maxConnections: 20_000,
  maxConnectionsPerIp: 500,
};

export interface FeedStats {
  connections: number;
  framesSent: number;
  resyncs: number;
  laggingDisconnects: number;
  badMessages: number;
  rateLimited: number;
  /** Frames not sent because the client's queue was over the high-water mark (snapshots included). */
  framesHeldBack: number;
  /** Connections refused by the connection limits. */
  refusedConnections: number;
  /** Frames sent compressed, and the compressions that took (shared frames are compressed once). */
  framesCompressed: number;
  deflates: number;
}

interface Subscription {
  stream: ScopeStream<Client>;
  /** The client fell behind: deltas are skipped until a resync snapshot is sent. */
  lagging: boolean;
}

interface Client {
  ws: WebSocket;
  /** The connection's socket: frames compressed once for every client are written to it as they are. */
  socket: Socket;
  /** It negotiated permessage-deflate in a way that reads frames compressed once for all. */
  sharedDeflate: boolean;
  role: Role;
  subs: Map<string, Subscription>;
  tokens: number;
  lastRefill: number;
  violations: number;
  lastRateError: number;
  laggingSince: number | null;
  /** Answered the last heartbeat ping. */
  alive: boolean;
  ip: string;
}

const now = (): number => Date.now();

/** How long a stream's snapshot is given to joining clients, followed by the deltas since, before it is read anew. */
const SNAPSHOT_REUSE_MS = 500;
/** ...and at most this many deltas after it (beyond, a fresh snapshot is smaller). */
const SNAPSHOT_REUSE_DELTAS = 256;

/** A stream's snapshot body at a sequence number: serialised once, compressed once when asked. */
interface SnapshotEntry {
  seq: number;
  at: number;
  json: string;
  /** The body and the message's closing brace, compressed on their own (deflated-frames.ts). */
  deflated?: Buffer;
}

/**
 * The websocket side of the server: per-connection subscriptions, numbered per-scope streams,
 * resume, flow control for slow clients and input limits. Fed by the LiveSource change stream.
 */
export class FeedHub {
  readonly epoch = randomBytes(6).toString('hex');
  readonly stats: FeedStats = {
    connections: 0,
    framesSent: 0,
    resyncs: 0,
    laggingDisconnects: 0,
    badMessages: 0,
    rateLimited: 0,
    framesHeldBack: 0,
    refusedConnections: 0,
    framesCompressed: 0,
    deflates: 0,
  };
  private readonly perIp = new Map<string, number>();
  private readonly streams = new Map<string, ScopeStream<Client>>();
  private readonly clients = new Set<Client>();
  /** Clients with at least one lagging subscription (checked by the resync timer). */
  private readonly lagging = new Set<Client>();
  private readonly roundOfGame = new Map<string, number>();
  private readonly unsubscribeSource: () => void;
  private readonly timer: NodeJS.Timeout;
  private readonly heartbeat: NodeJS.Timeout;
  /** Corked sockets and the backlog each had before this tick (the tick's own frames are not lag). */
  private readonly corked = new Map<Client, { socket: Socket; backlog: number }>();
  /** Per stream: the snapshot body at a sequence number, serialised once for every client that asks. */
  private readonly snapshotCache = new Map<string, SnapshotEntry>();

  constructor(
    private readonly source: LiveSource,
    private readonly auth: FeedAuth,
    readonly limits: FeedLimits = DEFAULT_FEED_LIMITS,
    private readonly deflateThreshold = 1024,
    /** The broadcast delay's view for public clients; officials follow `source` live. */
    private readonly publicSource: LiveSource = source,
  ) {
    if (publicSource === source) this.unsubscribeSource = source.subscribe((c) => this.onChange(c, ['public', 'arbiter']));
    else {
      const offLive = source.subscribe((c) => this.onChange(c, ['arbiter']));
      const offPublic = publicSource.subscribe((c) => this.onChange(c, ['public']));
      this.unsubscribeSource = () => {
        offLive();
        offPublic();
      };
    }
    this.timer = setInterval(() => this.serviceLagging(), limits.resyncCheckMs);
    this.timer.unref();
    this.heartbeat = setInterval(() => this.beat(), limits.heartbeatMs);
    this.heartbeat.unref();
  }

  private beat(): void {
    for (const client of [...this.clients]) {
      if (!client.alive) {
        client.ws.terminate();
        this.drop(client);
        continue;
      }
      client.alive = false;
      client.ws.ping();
    }
  }

  /** Clients currently skipping deltas because their socket queue is full. */
  laggingClients(): number {
    return this.lagging.size;
  }

  /** Drops every websocket (they reconnect and resume); for shutdown and for tests. */
  disconnectAll(): void {
    for (const c of [...this.clients]) {
      c.ws.terminate();
      this.drop(c);
    }
  }

  close(): void {
    this.unsubscribeSource();
    clearInterval(this.timer);
    clearInterval(this.heartbeat);
    for (const c of this.clients) c.ws.terminate();
  }

  /**
   * Whether one more connection from `ip` is within the limits (asked at the HTTP upgrade, so a
   * refused client costs no websocket at all).
   */
  admits(ip: string): boolean {
    const ok = this.clients.size < this.limits.maxConnections && (this.perIp.get(ip) ?? 0) < this.limits.maxConnectionsPerIp;
    if (!ok) this.stats.refusedConnections++;
    return ok;
  }

  /** A new websocket connection; `req` may carry an arbiter's session cookie or a Bearer token (never a secret in the URL). */
  accept(ws: WebSocket, req: IncomingMessage): void {
    const ip = req.socket.remoteAddress ?? '?';
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    const client: Client = {
      ip,
      ws,
      socket: req.socket,
      sharedDeflate: takesSharedDeflate(deflateParams(ws)),
      role: this.auth.roleAtUpgrade(req),
      subs: new Map(),
      tokens: this.limits.rateBurst,
      lastRefill: now(),
      violations: 0,
      lastRateError: 0,
      laggingSince: null,
      alive: true,
    };
    this.clients.add(client);
    this.stats.connections = this.clients.size;
    ws.on('message', (data, isBinary) => this.onMessage(client, data as Buffer, isBinary));
    ws.on('pong', () => {
      client.alive = true;
    });
    ws.on('close', () => this.drop(client));
    ws.on('error', () => this.drop(client));
    this.send(client, { v: 1, type: 'welcome', role: client.role, serverNow: now(), maxPayload: this.limits.maxPayload });
  }

  private drop(client: Client): void {
    if (!this.clients.delete(client)) return;
    const left = (this.perIp.get(client.ip) ?? 1) - 1;
    if (left > 0) this.perIp.set(client.ip, left);
    else this.perIp.delete(client.ip);
    this.lagging.delete(client);
    for (const s of client.subs.values()) s.stream.subscribers.delete(client);
    client.subs.clear();
    this.stats.connections = this.clients.size;
  }

  private send(client: Client, msg: ServerMessage): void {
    this.sendFrame(client, encode(msg));
  }

  /** The bytes a client has not yet taken (its socket queue before this tick's own frames). */
  private backlog(client: Client): number {
    return this.corked.get(client)?.backlog ?? client.ws.bufferedAmount;
  }

  /**
   * Every frame counts against the client's queue: above the high-water mark nothing more is
   * queued for it (snapshots included), it is marked lagging, and it gets one fresh snapshot per
   * subscription once it has drained — or is dropped if it never does. A client that never reads
   * costs at most the high-water mark, however often it asks.
   */
  private sendFrame(client: Client, frame: string | Buffer, compressed?: () => Buffer): void {
    if (client.ws.readyState !== client.ws.OPEN) return;
    if (this.backlog(client) > this.limits.highWaterBytes) {
      this.stats.framesHeldBack++;
      for (const sub of client.subs.values()) sub.lagging = true;
      client.laggingSince ??= now();
      this.lagging.add(client);
      return;
    }
    this.cork(client);
    // Larger frames go compressed, and compressed once for every client that shares them (the
    // snapshot of a stream, a delta), written to the socket as a finished frame. ws itself never
    // compresses: its sender then writes every frame at once, so ours and its stay in order.
    const small = (typeof frame === 'string' ? frame.length : frame.byteLength) < this.deflateThreshold;
    if (!small && client.sharedDeflate) {
      client.socket.write(compressed ? compressed() : compressedTextFrame([this.deflate(frame)]));
      this.stats.framesCompressed++;
    } else client.ws.send(frame, { binary: false, compress: false });
    this.stats.framesSent++;
  }

  /**
   * Frames sent to one client in the same tick (a move and the clock change of its press, several
   * missed deltas on resume) leave in one write instead of one system call each: the socket is
   * corked until the current synchronous work is done. ws has no public cork; without its socket
   * (not expected) frames are simply written one by one.
   */
  private cork(client: Client): void {
    if (this.corked.has(client)) return;
    const socket = (client.ws as unknown as { _socket?: Socket })._socket;
    if (!socket || typeof socket.cork !== 'function') return;
    this.corked.set(client, { socket, backlog: client.ws.bufferedAmount });
    socket.cork();
    if (this.corked.size === 1) queueMicrotask(() => this.uncorkAll());
  }

  private uncorkAll(): void {
    for (const { socket } of this.corked.values()) socket.uncork();
    this.corked.clear();
  }

  private error(client: Client, code: ErrorCode, message: string, scope?: string): void {
    this.send(client, scope === undefined ? { v: 1, type: 'error', code, message } : { v: 1, type: 'error', code, message, scope });
  }

  private allow(client: Client): boolean {
    const t = now();
    client.tokens = Math.min(this.limits.rateBurst, client.tokens + ((t - client.lastRefill) / 1000) * this.limits.ratePerSecond);
    client.lastRefill = t;
    if (client.tokens >= 1) {
      client.tokens -= 1;
      return true;
    }
    client.violations++;
    this.stats.rateLimited++;
    if (client.violations >= this.limits.rateViolationsBeforeClose) {
      client.ws.close(1008, 'rate limit');
      return false;
    }
    if (t - client.lastRateError >= 1000) {
      client.lastRateError = t;
      this.error(client, 'rate-limited', `more than ${this.limits.ratePerSecond} messages per second; message ignored`);
    }
    return false;
  }

  private onMessage(client: Client, data: Buffer, isBinary: boolean): void {
    if (!this.allow(client)) return;
    if (isBinary) {
      this.stats.badMessages++;
      this.error(client, 'bad-message', 'binary frames are not part of the protocol; send JSON text');
      return;
    }
    const decoded = decodeClientMessage(data.toString('utf8'));
    if (!decoded.ok) {
      this.stats.badMessages++;
      this.error(client, decoded.error.code, decoded.error.message);
      return;
    }
    const msg = decoded.value;
    switch (msg.type) {
      case 'ping':
        this.send(client, msg.t === undefined ? { v: 1, type: 'pong', serverNow: now() } : { v: 1, type: 'pong', t: msg.t, serverNow: now() });
        return;
      case 'auth':
        if (!this.auth.tokenIsArbiter(msg.token)) {
          this.error(client, 'bad-token', 'arbiter token not accepted');
          return;
        }
        client.role = 'arbiter';
        this.send(client, { v: 1, type: 'authed', role: 'arbiter' });
        return;
      case 'subscribe':
        this.subscribe(client, msg.scope, msg.since);
        return;
      case 'unsubscribe': {
        const key = scopeKey(msg.scope);
        const sub = client.subs.get(key);
        if (sub) {
          sub.stream.subscribers.delete(client);
          client.subs.delete(key);
        }
        this.send(client, { v: 1, type: 'unsubscribed', scope: key });
        return;
      }
    }
  }

  private scopeExists(scope: Scope): boolean {
    switch (scope.kind) {
      case 'tournament':
        return true;
      case 'round':
        return this.source.games(scope.round) !== undefined;
      case 'game':
        return this.source.game(scope.gameId) !== undefined;
    }
  }

  private stream(scope: string, audience: Role): ScopeStream<Client> {
    const key = `${audience}|${scope}`;
    let s = this.streams.get(key);
    if (!s) {
      s = new ScopeStream<Client>(scope, audience, this.limits.historyPerScope);
      this.streams.set(key, s);
    }
    return s;
  }

  private subscribe(client: Client, scope: Scope, since: ResumePoint | undefined): void {
    const key = scopeKey(scope);
    if (!this.scopeExists(scope)) {
      this.error(client, 'unknown-scope', `no such ${scope.kind}: ${key}`, key);
      return;
    }
    const existing = client.subs.get(key);
    if (existing) existing.stream.subscribers.delete(client);
    else if (client.subs.size >= this.limits.maxSubscriptionsPerConnection) {
      this.error(client, 'too-many-subscriptions', `at most ${this.limits.maxSubscriptionsPerConnection} subscriptions per connection`, key);
      return;
    }
    const stream = this.stream(key, client.role);
    const sub: Subscription = { stream, lagging: false };
    client.subs.set(key, sub);
    stream.subscribers.add(client);
    if (since && since.epoch === this.epoch) {
      const missed = stream.since(since.seq);
      if (missed) {
        this.send(client, { v: 1, type: 'resumed', scope: key, epoch: this.epoch, seq: since.seq, serverNow: now() });
        for (const d of missed) this.sendFrame(client, d.frame);
        return;
      }
    }
    this.sendSnapshot(client, sub, !since ? 'subscribe' : since.epoch === this.epoch ? 'resume-too-old' : 'resume-other-epoch');
  }

  private sendSnapshot(client: Client, sub: Subscription, reason: SnapshotReason): void {
    const { stream } = sub;
    const entry = this.snapshotEntry(stream);
    if (entry === undefined) {
      this.error(client, 'unknown-scope', `${stream.scope} no longer exists`, stream.scope);
      return;
    }
    // A snapshot a moment old is the same snapshot plus the deltas numbered since (still in the
    // stream's ring): with a thousand boards the tournament's sequence number moves many times a
    // second, and serialising its snapshot anew for every viewer who joins made joining the
    // bottleneck (about 6 viewers a second at 1,000 boards).
    const since = entry.seq === stream.seq ? [] : stream.since(entry.seq);
    if (this.backlog(client) > this.limits.highWaterBytes) {
      // Behind already: one snapshot when it has drained, not one per request piled on its queue.
      this.stats.framesHeldBack++;
      sub.lagging = true;
      client.laggingSince ??= now();
      this.lagging.add(client);
      return;
    }
    sub.lagging = false;
    // The message around the shared body is the client's own (its reason, the time); the body is
    // serialised once per stream and sequence number for every client that asks.
    const head = encode({ v: 1, type: 'snapshot', scope: stream.scope, epoch: this.epoch, seq: entry.seq, serverNow: now(), reason, body: null as unknown as SnapshotBody });
    const envelope = head.slice(0, -'null}'.length);
    // Compressed, the body is too: once per stream and sequence number, after the client's own envelope.
    this.sendFrame(client, `${envelope}${entry.json}}`, () => compressedTextFrame([storedPart(envelope), (entry.deflated ??= this.deflate(`${entry.json}}`))]));
    for (const d of since ?? []) this.sendFrame(client, d.frame);
  }

  /** Snapshot bodies are read and serialised once per stream and sequence number: thousands of subscribers share them. */
  /** A part of a message compressed on its own; the envelope of a snapshot is not counted. */
  private deflate(text: string | Buffer): Buffer {
    this.stats.deflates++;
    return deflatePart(text);
  }

  private snapshotEntry(stream: ScopeStream<Client>): SnapshotEntry | undefined {
    const key = `${stream.audience}|${stream.scope}`;
    const cached = this.snapshotCache.get(key);
    if (cached && cached.seq === stream.seq && now() - cached.at < 1000) return cached;
    // An older one while it is fresh and the deltas since are few and still kept (sendSnapshot sends them after it).
    if (cached && now() - cached.at < SNAPSHOT_REUSE_MS) {
      const since = stream.since(cached.seq);
      if (since && since.length <= SNAPSHOT_REUSE_DELTAS) return cached;
    }
    const body = this.readSnapshot(stream.scope, stream.audience);
    if (!body) return undefined;
    const entry: SnapshotEntry = { seq: stream.seq, at: now(), json: JSON.stringify(body) };
    this.snapshotCache.set(key, entry);
    return entry;
  }

  private readSnapshot(scope: string, audience: Role): SnapshotBody | undefined {
    const src = audience === 'arbiter' ? this.source : this.publicSource;
    if (scope === 'tournament') {
      const rounds = src.rounds();
      const games: GameSummary[] = [];
      for (const r of rounds) games.push(...(src.games(r.round) ?? []));
      return { kind: 'tournament', tournament: src.tournament(), rounds, games };
    }
    if (scope.startsWith('round:')) {
      const n = Number(scope.slice(6));
      const games = src.games(n);
      const round = src.rounds().find((r) => r.round === n);
      if (!games || !round) return undefined;
      return { kind: 'round', tournament: src.tournament(), round, games };
    }
    const game = src.game(scope.slice(5));
    if (!game) return undefined;
    return { kind: 'game', game: audience === 'arbiter' ? game : publicGame(game) };
  }

  private roundOf(gameId: string): number | undefined {
    let r = this.roundOfGame.get(gameId);
    if (r === undefined) {
      r = this.source.game(gameId)?.round;
      if (r !== undefined) this.roundOfGame.set(gameId, r);
    }
    return r;
  }

  private onChange(change: GameChange, to: readonly Role[]): void {
    if (change.kind === 'game') this.roundOfGame.set(change.gameId, change.summary.round);
    const round = this.roundOf(change.gameId);
    const scopes = ['tournament', `game:${change.gameId}`];
    if (round !== undefined) scopes.push(`round:${round}`);
    const audiences = change.kind === 'incident' ? to.filter((a) => a === 'arbiter') : to;
    for (const audience of audiences) {
      for (const scope of scopes) {
        const stream = this.streams.get(`${audience}|${scope}`);
        if (!stream) continue;
        const t = now();
        const sent = scopedChange(change, scope, audience);
        const d = stream.append((seq) => encode({ v: 1, type: 'delta', scope, seq, serverNow: t, change: sent }));
        let shared: Buffer | undefined;
        const compressed = (): Buffer => (shared ??= compressedTextFrame([this.deflate(d.frame)]));
        for (const client of stream.subscribers) this.deliver(client, stream, d.frame, compressed);
      }
    }
  }

  /**
   * Flow control: a client whose socket queue is above the high-water mark skips deltas (they are
   * not queued in our memory either) and is marked lagging; `serviceLagging` sends it a fresh
   * snapshot once its queue has drained, so it never sees a gap — only a jump to the present.
   */
  private deliver(client: Client, stream: ScopeStream<Client>, frame: Buffer, compressed: () => Buffer): void {
    const sub = client.subs.get(stream.scope);
    if (!sub || sub.lagging) return;
    if (this.backlog(client) > this.limits.highWaterBytes) {
      sub.lagging = true;
      client.laggingSince ??= now();
      this.lagging.add(client);
      return;
    }
    this.sendFrame(client, frame, compressed);
  }

  private serviceLagging(): void {
    const t = now();
    for (const client of this.lagging) {
      if (client.laggingSince === null) continue;
      if (client.ws.bufferedAmount <= this.limits.lowWaterBytes) {
        for (const sub of client.subs.values()) {
          if (!sub.lagging) continue;
          this.stats.resyncs++;
          this.sendSnapshot(client, sub, 'resync');
        }
        client.laggingSince = null;
        this.lagging.delete(client);
      } else if (t - client.laggingSince > this.limits.laggingTimeoutMs) {
        this.stats.laggingDisconnects++;
        client.ws.terminate();
        this.drop(client);
      }
    }
  }
}

/** The public view of a game: incidents are for arbiters only. */
/**
 * A game derived again carries its whole state to the game's own scope (incidents stripped for the
 * public); round and tournament scopes list summaries, so they get the summary alone.
 */
function scopedChange(change: GameChange, scope: string, audience: Role): GameChange {
  if (change.kind !== 'game' || !change.state) return change;
  if (!scope.startsWith('game:')) return { kind: 'game', gameId: change.gameId, summary: change.summary };
  return audience === 'arbiter' ? change : { ...change, state: publicGame(change.state) };
}

export function publicGame(g: GameState): GameState {
  return { ...g, incidents: [] };
}
