/**
 * The organiser's hall at a glance (GET /api/hall, the `/hall` page): every table's board
 * connection and game, and every output's state. Plain JSON, shared by the daemon that builds it
 * and the viewer that shows it. The connection fields are the ones GET /health reports; the hall
 * adds what only officials may see before the broadcast delay (the last move).
 */

/**
 * A table's board connection. 'searching': a table configured by serial number whose board is on
 * no port; 'out-of-step': live, but the board's last dump disagreed with the board the host holds;
 * 'silent': the board stopped reporting while its clock ran; 'retrying': the board is away.
 */
export type HallTableState = 'idle' | 'connecting' | 'handshaking' | 'live' | 'out-of-step' | 'silent' | 'retrying' | 'stopped' | 'searching';

/** The last BATTERY_STATUS a (Bluetooth) board sent; fields the board left out are null. */
export interface BatteryReading {
  percent: number | null;
  charging: boolean | null;
  /** When it was read (epoch ms). */
  at: number;
}

/** One table as GET /health lists it. */
export interface TableConnection {
  table: number;
  /** The configured board: a device path, a serial number or a bus line's table entry. */
  board: string;
  serial: string | null;
  /** The device path the board is on: a path table's own, a serial table's match, a bus table's line (null while searching). */
  device: string | null;
  state: HallTableState;
  /** ms since the table's link last reported anything (null: never). */
  sinceLastEventMs: number | null;
  /** Squares the last dump showed differently (while out of step), else null. */
  outOfStepSquares: number | null;
  /** Bytes of line noise thrown away on this table's link since the start. */
  discardedBytes: number;
  gameId: string | null;
  /** Times the engine of the game on the table failed (a fault in boardcast, each in the log): its record wants the arbiter's look. */
  engineFaults: number;
  /** Whether a clock is on the board: from the last clock reading (null before any). */
  clockConnected: boolean | null;
  /** Null until the board sends its battery status (Bluetooth boards only). */
  battery: BatteryReading | null;
}

/** A table on the hall page: its connection, and the last move of the game on it (SAN, live: no broadcast delay). */
export interface HallTable extends TableConnection {
  lastMove: string | null;
  /** Why the table's board cannot be changed from the hall page (a bus line, an emulated board); null when it can. */
  boardFixed: string | null;
}

/** Where one lichess push target stands (docs/bridge.md, *Push client*). Times are epoch ms. */
export interface PushTargetHealth {
  round: number;
  roundId: string;
  state: 'ok' | 'retrying' | 'unauthorized' | 'rejected';
  lastPushAt: number | null;
  lastGameErrors: number;
  lastError: { at: number; status: number | null; message: string } | null;
  nextRetryAt: number | null;
  pushes: number;
}

/** Each output the config turns on, null when off (the `outputs` of GET /health). */
export interface OutputsHealth {
  liveChessApi: { url: string; connections: number; feedMessages: number; badMessages: number } | null;
  lichessPush: PushTargetHealth[] | null;
  pgnFolder: { dir: string; writes: number; lastWriteAt: number | null; lastError: string | null } | null;
}

/** GET /api/hall. */
export interface HallReport {
  /** When the report was made (epoch ms): "since" times on the page count from it. */
  at: number;
  /** Problems first (`problemsFirst`). */
  tables: HallTable[];
  outputs: OutputsHealth;
}

/**
 * How urgent a table's state is for the organiser, most urgent lowest: a board that is away, then
 * one that is being read again, then one not yet live; live boards last.
 */
const URGENCY: Readonly<Record<HallTableState, number>> = {
  retrying: 0,
  searching: 1,
  silent: 2,
  'out-of-step': 3,
  connecting: 4,
  handshaking: 5,
  stopped: 6,
  idle: 7,
  live: 8,
};

/** The tables in the order the hall page lists them: problems first, then by table number. */
export function problemsFirst<T extends { table: number; state: HallTableState }>(tables: readonly T[]): T[] {
  return [...tables].sort((a, b) => URGENCY[a.state] - URGENCY[b.state] || a.table - b.table);
}

/** Whether a table needs the organiser's eye (anything but live). */
export function isProblem(state: HallTableState): boolean {
  return state !== 'live';
}
