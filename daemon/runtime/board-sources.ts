import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '../log/logger.ts';
import { listCandidatePorts } from '../transport/discovery.ts';
import { identifyBoard, type Identification } from '../board/identify.ts';
import { SerialTransport } from '../transport/serial-transport.ts';

/**
 * Extra places to look for boards, from BOARDCAST_DEVICE_DIRS (colon-separated). Each entry is a
 * directory (every entry in it is a candidate) or a directory plus a glob on the name (`*`, `?`),
 * e.g. `/tmp/hall/board?`: `boardcast emulate` puts the emulator's own end (`boardN.emu`) next to
 * the board's, and probing that end would talk to the emulator from the wrong side.
 */
export const DEVICE_DIRS_ENV = 'BOARDCAST_DEVICE_DIRS';

export function deviceDirsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env[DEVICE_DIRS_ENV] ?? '').split(':').filter((s) => s.startsWith('/'));
}

/** Paths named by the extra device-dir entries, as they are now (missing directories give none). */
export function listExtraDevices(entries: readonly string[]): string[] {
  const out: string[] = [];
  for (const entry of entries) {
    const glob = /[*?]/.test(basename(entry));
    const dir = glob ? dirname(entry) : entry;
    const re = glob ? globRegExp(basename(entry)) : null;
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const n of names) if (!re || re.test(n)) out.push(join(dir, n));
  }
  return out;
}

function globRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

function resolvedSync(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** A table's `board` naming the board by the 5-digit serial printed under it (anything else is a port path, COMn included). */
export function isSerialNumber(board: string): boolean {
  return /^\d{5}$/.test(board);
}

export interface SerialTable {
  number: number;
  /** The configured serial number (5 digits, as printed under the board). */
  serial: string;
}

export interface BoardSourcesOptions {
  tables: readonly SerialTable[];
  /** Device paths that path-configured tables own: never probed (probing writes to the port). */
  reservedPaths: readonly string[];
  log: Logger;
  /** Called when a table's board is found on a path (first time, or on a new path after re-plugging). */
  onMatch: (table: number, path: string) => void;
  /** How often to look again while a table is unmatched or its device may vanish. Default 10 s. */
  intervalMs?: number;
  /** Per-port identify timeout. Default 1.5 s. */
  identifyTimeoutMs?: number;
  /** Extra directory / glob entries (default: BOARDCAST_DEVICE_DIRS). */
  deviceDirs?: readonly string[];
  /** Candidate paths on the machine (default: discovery's list plus the extra entries). */
  listPaths?: () => Promise<string[]>;
  /** Default: identifyBoard over a SerialTransport. */
  identify?: (path: string) => Promise<Identification>;
}

export interface ScanReport {
  probed: number;
  matched: { table: number; path: string }[];
  unmatched: number[];
}

/**
 * Attaches tables whose board is configured by serial number to the port that board is on. Ports
 * are probed one at a time (a shared line must not hear overlapping queries), and never a port a
 * table already uses: identifying writes to the port and would disturb a live session.
 */
export class BoardSources {
  private readonly paths = new Map<number, string | null>();
  /** The serial number each table looks for (the config's, or the board an organiser put in since). */
  private readonly serials = new Map<number, string>();
  private reserved: readonly string[];
  private started = false;
  private readonly intervalMs: number;
  private timer: ReturnType<typeof setInterval> | null = null;
  private scanning: Promise<ScanReport> | null = null;
  private stopped = false;
  private lastUnmatchedLog = '';

  constructor(private readonly opts: BoardSourcesOptions) {
    this.intervalMs = opts.intervalMs ?? 10_000;
    this.reserved = opts.reservedPaths;
    for (const t of opts.tables) {
      this.paths.set(t.number, null);
      this.serials.set(t.number, t.serial);
    }
  }

  /**
   * Boards changed between tables during the event (docs/hall.md, *Changing a table's board*):
   * each listed table looks for the serial given from now on (null: its board is no longer found
   * by serial number). A board another table had found keeps its port and is handed over at once
   * (`onMatch`); the others are searched for. `reservedPaths` replaces the paths never probed.
   */
  reassign(changes: readonly { table: number; serial: string | null }[], reservedPaths: readonly string[]): void {
    const found = new Map<string, string>();
    for (const [table, path] of this.paths) if (path !== null) found.set(this.serials.get(table)!, path);
    for (const c of changes) {
      this.paths.delete(c.table);
      this.serials.delete(c.table);
    }
    this.reserved = reservedPaths;
    const handed: { table: number; path: string }[] = [];
    for (const c of changes) {
      if (c.serial === null) continue;
      this.serials.set(c.table, c.serial);
      const path = found.get(c.serial) ?? null;
      this.paths.set(c.table, path);
      if (path !== null) handed.push({ table: c.table, path });
    }
    for (const h of handed) {
      this.opts.log.info('board handed to another table', { table: h.table, serial: this.serials.get(h.table), path: h.path });
      this.opts.onMatch(h.table, h.path);
    }
    if (!this.started || this.stopped) return;
    if (!this.timer) {
      this.timer = setInterval(() => void this.tick(), this.intervalMs);
      this.timer.unref();
    }
    if ([...this.paths.values()].some((p) => p === null)) void this.scan();
  }

  /** The path a serial-numbered table is matched to now; null while searching. */
  pathOf(table: number): string | null {
    return this.paths.get(table) ?? null;
  }

  has(table: number): boolean {
    return this.paths.has(table);
  }

  /** First scan now, then a check every interval (cheap unless a table is unmatched). */
  start(): void {
    this.started = true;
    if (this.serials.size === 0 || this.timer || this.stopped) return;
    void this.scan();
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.scanning?.catch(() => undefined);
  }

  /** A session lost its link: if its device node is gone, search again (re-plugged elsewhere). */
  linkLost(): void {
    if (this.dropVanished() > 0) void this.scan();
  }

  private async tick(): Promise<void> {
    this.dropVanished();
    if ([...this.paths.values()].some((p) => p === null)) await this.scan();
  }

  /** Unmatches tables whose device node no longer exists (USB unplugged; socat link removed). */
  private dropVanished(): number {
    let n = 0;
    for (const [table, path] of this.paths) {
      if (path !== null && !existsSync(path)) {
        this.paths.set(table, null);
        this.opts.log.warn('board device gone; searching for it again', { table, path });
        n++;
      }
    }
    return n;
  }

  /** Probes every free candidate port once; concurrent calls share the running scan. */
  scan(): Promise<ScanReport> {
    if (this.scanning) return this.scanning;
    this.scanning = this.runScan().finally(() => {
      this.scanning = null;
    });
    return this.scanning;
  }

  private async runScan(): Promise<ScanReport> {
    const report: ScanReport = { probed: 0, matched: [], unmatched: [] };
    const wanted = new Map<string, number>();
    for (const [table, serial] of this.serials) if (this.paths.get(table) === null) wanted.set(serial, table);
    if (wanted.size === 0 || this.stopped) return report;

    const busy = new Set<string>();
    for (const p of [...this.reserved, ...[...this.paths.values()].filter((p): p is string => p !== null)]) {
      busy.add(p);
      busy.add(resolvedSync(p));
    }
    const seen = new Set<string>();
    for (const path of await this.candidatePaths()) {
      if (wanted.size === 0 || this.stopped) break;
      const device = resolvedSync(path);
      if (busy.has(path) || busy.has(device) || seen.has(device)) continue;
      seen.add(device);
      report.probed++;
      const id = await this.identify(path);
      if (!id.dgt) continue;
      const table = wanted.get(id.serial) ?? (id.longSerial !== null ? wanted.get(id.longSerial) : undefined);
      if (table === undefined) {
        this.opts.log.debug('DGT board not configured by serial', { path, serial: id.longSerial ?? id.serial });
        continue;
      }
      wanted.delete(id.serial);
      if (id.longSerial !== null) wanted.delete(id.longSerial);
      if (this.stopped) break;
      // The organiser may have changed the table's board while the probe ran.
      const now = this.serials.get(table);
      if (this.paths.get(table) !== null || (now !== id.serial && now !== id.longSerial)) continue;
      this.paths.set(table, path);
      busy.add(path);
      busy.add(device);
      report.matched.push({ table, path });
      this.opts.log.info('board found', { table, serial: id.longSerial ?? id.serial, path });
      this.opts.onMatch(table, path);
    }
    report.unmatched = [...wanted.values()].sort((a, b) => a - b);
    // Once per change, not every 10 s: a table waiting all afternoon for its board is one line.
    const key = report.unmatched.join(',');
    if (report.unmatched.length > 0 && key !== this.lastUnmatchedLog) {
      const serials = report.unmatched.map((table) => `table ${table}: ${this.serials.get(table)}`);
      this.opts.log.warn('boards not found yet; still searching', { tables: serials, probed: report.probed, everyMs: this.intervalMs });
    }
    this.lastUnmatchedLog = key;
    return report;
  }

  private async candidatePaths(): Promise<string[]> {
    if (this.opts.listPaths) return this.opts.listPaths();
    const found = (await listCandidatePorts()).map((c) => c.path);
    return [...found, ...listExtraDevices(this.opts.deviceDirs ?? deviceDirsFromEnv())];
  }

  private identify(path: string): Promise<Identification> {
    const timeoutMs = this.opts.identifyTimeoutMs ?? 1_500;
    return this.opts.identify ? this.opts.identify(path) : identifyBoard(new SerialTransport(path), { timeoutMs });
  }
}
