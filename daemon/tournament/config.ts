import { parsePasswordHashText } from '../../protocols/password-hash.ts';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { serialToBusAddress } from '../../protocols/dgt/bus.ts';
import { CONFIG_DIR } from '../install/paths.ts';
import { CONFIG_SCHEMA, type RawConfig } from './config-schema.ts';
import { err, ok, type Result } from '../store/result.ts';
import type { GameCategory, HallTable, RulesEdition, TournamentSetup } from '../store/types.ts';
import { normaliseTimeControl, pgnTimeControl, type TimeControl } from './time-control.ts';

export interface TableConfig {
  number: number;
  /** Device path (e.g. /dev/ttyUSB0) or the board's 5-digit serial number (always the serial with `bus`). */
  board: string;
  /**
   * Device path of the DGT bus line the board hangs on (several boards in bus mode on one serial
   * line). The board is then addressed on the line by its serial number (`board`).
   */
  bus?: string;
  /** Which side of the clock White's player sits on (the clock reports left/right, not colours). */
  whiteOnClock: 'left' | 'right';
}

/**
 * How a table's games open: 'board', when its board is set up in a start position after a game
 * (the round is the table's game count, so a table that plays every round needs no action);
 * 'arbiter', only when the arbiter starts the round (boardcast round start N), one game per pairing.
 */
export type RoundStart = 'board' | 'arbiter';

export interface EmulateConfig {
  count: number;
  /** "random" or a path (resolved like dataDir) to a PGN file or a directory of PGN files. */
  games: string;
  seed: number;
  /** Noise model of the emulated players (daemon/simulation/noisy-player NOISE_MODELS; checked by the emulator). */
  noise: string;
  /** Serial number of emulated board 1; the others count up. */
  serialBase: number;
}

/** The LiveChess eBoard websocket API (bridge/livechess): where it listens. */
export interface LiveChessApiConfig {
  port: number;
  host: string;
}

/** Round PGN pushed to lichess broadcast rounds (bridge/relay/push-client). */
export interface LichessPushConfig {
  rounds: { round: number; roundId: string }[];
  /** Null: taken from BOARDCAST_LICHESS_TOKEN when `serve` starts. */
  token: string | null;
  baseUrl: string;
}

/** The PGN folder output (bridge/pgn-folder): where the files go (absolute). */
export interface PgnFolderConfig {
  path: string;
}

export interface BoardcastConfig {
  /** The file it came from (absolute), or null for the embedded default. */
  source: string | null;
  event: { name: string; site: string; federation: string | null; chiefArbiter: string | null };
  rounds: { count: number; dates: string[]; start: RoundStart };
  timeControl: TimeControl;
  rules: { edition: RulesEdition; category: GameCategory; chess960: boolean };
  tables: TableConfig[];
  httpPort: number;
  /** Address the HTTP server listens on: 127.0.0.1 (this machine only) or 0.0.0.0 (the hall network). */
  httpHost: string;
  /** Absolute: relative paths are resolved against the config file's directory (cwd for the default). */
  dataDir: string;
  emulate: EmulateConfig | null;
  /**
   * The store's upkeep: after a start, replay it whole in the background and compare with what the
   * start restored (`verifyAfterStart`); fold the WAL into the file every `walCheckpointMinutes`.
   */
  store: { verifyAfterStart: boolean; walCheckpointMinutes: number; liveSnapshotSeconds: number };
  /** Online backups of the store into <dataDir>/backups: every `everyMinutes` (0: only at round close), `keep` newest kept. */
  backup: { everyMinutes: number; keep: number };
  /** Websocket feed connections at once: in all, and from one address. */
  feed: { maxConnections: number; maxConnectionsPerIp: number };
  /** Officials' accounts (password hashes) and how long a login lasts. */
  access: { accounts: { name: string; role: 'arbiter' | 'organiser'; password: string }[]; sessionHours: number; secureCookie: boolean };
  /** Public outputs show the games this many seconds late (0: live); officials always see them live. */
  broadcast: { delaySeconds: number };
  /** Outputs `serve` starts besides its own HTTP port; null: off. */
  outputs: { liveChessApi: LiveChessApiConfig | null; lichessPush: LichessPushConfig | null; pgnFolder: PgnFolderConfig | null };
}

export interface ConfigError {
  /** The file, or null for the embedded default. */
  file: string | null;
  /** One line per problem, each `config error: <key path>: <what is wrong>`. */
  messages: string[];
}

const configDir = CONFIG_DIR;
export const SCHEMA_FILE = resolve(configDir, 'boardcast.schema.json');
export const DEFAULT_CONFIG_FILE = resolve(configDir, 'default.json');

type Schema = Record<string, unknown>;
const schema = CONFIG_SCHEMA as unknown as Schema;
const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true });
ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
const validate = ajv.compile(schema);

/** "/tables/2/board" → "tables[2].board" */
function keyPath(pointer: string, child?: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out === '' ? p : `.${p}`;
  return out === '' ? '(top level)' : out;
}

/**
 * The deepest `x-message` on the way from the root schema to the failing keyword, and the schema
 * location that carries it (errors sharing that location are one problem for a person).
 */
function customMessage(schemaPath: string): { message: string; at: string } | undefined {
  let node: unknown = schema;
  let found: { message: string; at: string } | undefined;
  const segs = schemaPath.replace(/^#\//, '').split('/');
  for (let i = 0; i <= segs.length; i++) {
    if (node === null || typeof node !== 'object') break;
    const msg = (node as Schema)['x-message'];
    if (typeof msg === 'string') found = { message: msg, at: segs.slice(0, i).join('/') };
    if (i < segs.length) node = (node as Schema)[segs[i]!.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return found;
}

function describe(e: ErrorObject): string {
  switch (e.keyword) {
    case 'required':
      return `${keyPath(e.instancePath, (e.params as { missingProperty: string }).missingProperty)}: is required`;
    case 'additionalProperties':
      return `${keyPath(e.instancePath, (e.params as { additionalProperty: string }).additionalProperty)}: unknown key`;
  }
  const custom = customMessage(e.schemaPath);
  if (custom) return `${keyPath(e.instancePath)}: ${custom.message}`;
  if (e.keyword === 'enum') {
    const allowed = (e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ');
    return `${keyPath(e.instancePath)}: must be one of ${allowed}`;
  }
  return `${keyPath(e.instancePath)}: ${e.message ?? 'is invalid'}`;
}

/** Checks the schema cannot express: uniqueness and consistency across keys. */
function crossChecks(c: RawConfig): string[] {
  const tables = c.tables ?? [];
  const dates = c.rounds.dates ?? [];
  const problems: string[] = [];
  const numbers = new Map<number, number>();
  const boards = new Map<string, number>();
  tables.forEach((t, i) => {
    const n = numbers.get(t.number);
    if (n !== undefined) problems.push(`tables[${i}].number: table ${t.number} is already used by tables[${n}]`);
    else numbers.set(t.number, i);
    const b = boards.get(t.board);
    if (b !== undefined) problems.push(`tables[${i}].board: board ${t.board} is already on tables[${b}]`);
    else boards.set(t.board, i);
  });
  problems.push(...busChecks(tables));
  const lc = c.outputs?.liveChessApi;
  const httpPort = c.httpPort ?? 8080;
  if (lc && lc.port !== undefined && lc.port !== 0 && lc.port === httpPort) {
    problems.push(`outputs.liveChessApi.port: ${lc.port} is httpPort; the LiveChess API needs a port of its own (LiveChess's is 1982)`);
  }
  const pushed = new Map<string, number>();
  (c.outputs?.lichessPush?.rounds ?? []).forEach((r, i) => {
    const at = pushed.get(r.roundId);
    // Two pushes to one lichess round would overwrite each other's games on every change.
    if (at !== undefined) problems.push(`outputs.lichessPush.rounds[${i}].roundId: ${r.roundId} is already outputs.lichessPush.rounds[${at}]`);
    else pushed.set(r.roundId, i);
  });
  dates.forEach((d, i) => {
    // The schema checks the shape; a calendar must check the day ("2026-13-45" has the shape).
    const [y, m, day] = d.split('-').map(Number) as [number, number, number];
    const t = new Date(Date.UTC(y, m - 1, day));
    if (t.getUTCFullYear() !== y || t.getUTCMonth() !== m - 1 || t.getUTCDate() !== day) problems.push(`rounds.dates[${i}]: ${d} is not a date in the calendar`);
  });
  if (dates.length > c.rounds.count) {
    problems.push(`rounds.dates: ${dates.length} dates for ${c.rounds.count} rounds`);
  }
  const names = new Map<string, number>();
  (c.access?.accounts ?? []).forEach((a, i) => {
    const seen = names.get(a.name);
    if (seen !== undefined) problems.push(`access.accounts[${i}].name: "${a.name}" is already used by access.accounts[${seen}]`);
    else names.set(a.name, i);
    const hash = parsePasswordHashText(a.password);
    if (!hash.ok) problems.push(`access.accounts[${i}].password: ${hash.error}`);
  });
  if (tables.length === 0 && !c.emulate) {
    problems.push('tables: must list at least one table (or add an "emulate" section)');
  }
  return problems;
}

/**
 * Bus tables: the board is found on its line by the address its serial number gives (dgtbrd.h: the
 * serial's decimal value as 14 bits), so `board` must be that serial, two boards on one line must
 * not share an address, and a line cannot also be opened as a single board's port.
 */
function busChecks(tables: readonly { board: string; bus?: string | undefined }[]): string[] {
  const problems: string[] = [];
  const singlePorts = new Map<string, number>();
  tables.forEach((t, i) => {
    if (!/^\d{5}$/.test(t.board)) singlePorts.set(t.board, i);
  });
  /** bus path → address → the table using it */
  const addresses = new Map<string, Map<number, number>>();
  tables.forEach((t, i) => {
    if (t.bus === undefined) return;
    const port = singlePorts.get(t.bus);
    if (port !== undefined) problems.push(`tables[${i}].bus: ${t.bus} is also tables[${port}].board; a line is either one board's port or a bus line`);
    if (!/^\d{5}$/.test(t.board)) {
      problems.push(`tables[${i}].bus: needs tables[${i}].board to be the board's serial number (5 digits, e.g. "12007"), not ${JSON.stringify(t.board)}`);
      return;
    }
    const address = serialToBusAddress(t.board);
    // Address 0 is the PING broadcast every board answers: no board can be polled there.
    if (address === 0) {
      problems.push(`tables[${i}].board: serial ${t.board} gives bus address 0 (the broadcast address), which no board can be polled at`);
      return;
    }
    let onLine = addresses.get(t.bus);
    if (!onLine) addresses.set(t.bus, (onLine = new Map()));
    const other = onLine.get(address);
    if (other !== undefined) {
      problems.push(`tables[${i}].board: serial ${t.board} has bus address ${address} on ${t.bus}, the same as tables[${other}].board ${tables[other]!.board} (addresses are the serial modulo 16384)`);
    } else {
      onLine.set(address, i);
    }
  });
  return problems;
}

/**
 * Validates parsed JSON as a config. `baseDir` resolves relative paths (dataDir, emulate.games, outputs.pgnFolder.path).
 * Never throws for bad input: every problem found is listed.
 */
export function parseConfig(json: unknown, source: string | null, baseDir: string): Result<BoardcastConfig, ConfigError> {
  const data = structuredClone(json);
  if (!validate(data)) {
    const seen = new Set<string>();
    const messages: string[] = [];
    for (const e of validate.errors ?? []) {
      // oneOf reports every branch; one line per key path is what a person needs.
      const custom = e.keyword === 'required' || e.keyword === 'additionalProperties' ? undefined : customMessage(e.schemaPath);
      // The instance location of the x-message node: each properties/items step consumes one segment.
      const depth = custom ? custom.at.split('/').filter((s) => s === 'properties' || s === 'items').length : 0;
      const key = custom
        ? `${custom.at}@${e.instancePath
            .split('/')
            .slice(0, depth + 1)
            .join('/')}`
        : '';
      const line = `config error: ${describe(e)}`;
      if (seen.has(line) || (custom && seen.has(key))) continue;
      seen.add(line);
      if (custom) seen.add(key);
      messages.push(line);
    }
    return err({ file: source, messages });
  }
  const c = data as RawConfig;
  const problems = crossChecks(c);
  if (problems.length > 0) return err({ file: source, messages: problems.map((p) => `config error: ${p}`) });

  // ajv has filled in every `default` of the schema (useDefaults): the `!`s below read those.
  const rules = c.rules!;
  const e = c.emulate;
  return ok({
    source,
    event: {
      name: c.event.name,
      site: c.event.site!,
      federation: c.event.federation ?? null,
      chiefArbiter: c.event.chiefArbiter ?? null,
    },
    rounds: { count: c.rounds.count, dates: c.rounds.dates!, start: c.rounds.start! },
    timeControl: normaliseTimeControl(c.timeControl),
    rules: { edition: rules.edition!, category: rules.category!, chess960: rules.chess960! },
    tables: c.tables!.map((t) => ({ number: t.number, board: t.board, ...(t.bus !== undefined ? { bus: t.bus } : {}), whiteOnClock: t.whiteOnClock! })),
    httpPort: c.httpPort!,
    httpHost: c.httpHost!,
    dataDir: resolve(baseDir, c.dataDir!),
    emulate: e ? { count: e.count, games: e.games === 'random' ? 'random' : resolve(baseDir, e.games!), seed: e.seed!, noise: e.noise!, serialBase: e.serialBase! } : null,
    store: { verifyAfterStart: c.store!.verifyAfterStart!, walCheckpointMinutes: c.store!.walCheckpointMinutes!, liveSnapshotSeconds: c.store!.liveSnapshotSeconds! },
    backup: { everyMinutes: c.backup!.everyMinutes!, keep: c.backup!.keep! },
    feed: { maxConnections: c.feed!.maxConnections!, maxConnectionsPerIp: c.feed!.maxConnectionsPerIp! },
    access: { accounts: c.access!.accounts!.map((a) => ({ name: a.name, role: a.role, password: a.password })), sessionHours: c.access!.sessionHours!, secureCookie: c.access!.secureCookie! },
    broadcast: { delaySeconds: c.broadcast!.delaySeconds! },
    outputs: outputsOf(c.outputs!, baseDir),
  });
}

function outputsOf(o: NonNullable<RawConfig['outputs']>, baseDir: string): BoardcastConfig['outputs'] {
  const lc = o.liveChessApi;
  const push = o.lichessPush;
  return {
    liveChessApi: lc ? { port: lc.port!, host: lc.host! } : null,
    lichessPush: push ? { rounds: push.rounds.map((r) => ({ round: r.round, roundId: r.roundId })), token: push.token ?? null, baseUrl: push.baseUrl! } : null,
    pgnFolder: o.pgnFolder ? { path: resolve(baseDir, o.pgnFolder.path) } : null,
  };
}

/**
 * Loads and validates a config file; without a path, the embedded default (8 emulated tables).
 * Errors are values: an unreadable file, bad JSON (with its position) or every schema violation.
 */
export function loadConfig(path?: string): Result<BoardcastConfig, ConfigError> {
  const file = path === undefined ? DEFAULT_CONFIG_FILE : resolve(path);
  const source = path === undefined ? null : file;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    return err({ file: source, messages: [`config error: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`] });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return err({ file: source, messages: [`config error: ${file} is not valid JSON: ${(e as Error).message}`] });
  }
  return parseConfig(json, source, path === undefined ? process.cwd() : dirname(file));
}

/** The hall: configured tables, then emulated ones numbered after the highest configured table. */
export function hallTables(c: BoardcastConfig): HallTable[] {
  const real: HallTable[] = c.tables.map((t) => ({ number: t.number, board: t.board, whiteOnClock: t.whiteOnClock }));
  const next = real.reduce((m, t) => Math.max(m, t.number), 0);
  const emulated: HallTable[] = Array.from({ length: c.emulate?.count ?? 0 }, (_, i) => ({
    number: next + i + 1,
    board: null,
    whiteOnClock: 'left',
  }));
  return [...real, ...emulated].sort((a, b) => a.number - b.number);
}

/** What the store keeps about the event. */
export function tournamentSetup(c: BoardcastConfig): TournamentSetup {
  return {
    name: c.event.name,
    site: c.event.site === '' ? null : c.event.site,
    startDate: c.rounds.dates[0] ?? null,
    endDate: c.rounds.dates.length === c.rounds.count ? c.rounds.dates[c.rounds.count - 1]! : null,
    timeControl: pgnTimeControl(c.timeControl),
    rulesEdition: c.rules.edition,
    category: c.rules.category,
    variant: c.rules.chess960 ? 'chess960' : 'standard',
    roundCount: c.rounds.count,
    roundDates: c.rounds.dates,
  };
}
