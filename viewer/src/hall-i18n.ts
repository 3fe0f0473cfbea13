import type { Lang } from './i18n.ts';
import type { HallTableState } from '../../protocols/feed/hall.ts';

// The hall page's texts, beside the viewer's main table (i18n.ts) as the replay page's are
// (replay-i18n.ts). English is complete; a language without a text shows the English one until
// it is translated.

const TEXT = {
  hall: { en: 'Hall' },
  hallTitle: { en: 'The hall' },
  tables: { en: 'Tables' },
  outputs: { en: 'Outputs' },
  board: { en: 'Board serial' },
  device: { en: 'Device or bus line' },
  state: { en: 'State' },
  sinceLastEvent: { en: 'Last event' },
  clock: { en: 'Clock' },
  battery: { en: 'Battery' },
  discarded: { en: 'Bytes discarded' },
  game: { en: 'Game' },
  lastMove: { en: 'Last move' },
  clockOn: { en: 'connected' },
  clockOff: { en: 'no clock' },
  unknown: { en: '—' },
  charging: { en: 'charging' },
  ago: { en: 'ago' },
  never: { en: 'never' },
  updated: { en: 'Updated' },
  unreachable: { en: 'The daemon cannot be reached: these are the last known states' },
  noTables: { en: 'No tables are configured' },
  off: { en: 'off' },
  liveChessApi: { en: 'LiveChess eBoard API' },
  lichessPush: { en: 'lichess push' },
  pgnFolder: { en: 'PGN folder' },
  lastPush: { en: 'last push' },
  lastWrite: { en: 'last write' },
  lastError: { en: 'last error' },
  nextRetry: { en: 'next retry' },
  connections: { en: 'connections' },
  pushes: { en: 'pushes' },
  writes: { en: 'writes' },
  deskLink: { en: "Arbiter's desk" },
  squares: { en: 'squares' },
  engineFaults: { en: 'engine faults' },
  checkRecord: { en: 'check the record' },
  changeBoard: { en: "Change a table's board" },
  changeBoardHelp: {
    en: "A spare board for a broken one, or two boards swapped between tables: the table keeps its game, and the new board is read from now on. Set the new board up in the game's position first. A board another table has is swapped: that table gets this one's.",
  },
  changeBoardButton: { en: 'Change' },
  changeRow: { en: 'change' },
  newBoard: { en: 'New board (serial number or device path)' },
  reason: { en: 'Reason' },
  boardChanged: { en: 'now reads' },
  was: { en: 'was' },
  'state.live': { en: 'live' },
  'state.retrying': { en: 'retrying' },
  'state.searching': { en: 'searching' },
  'state.out-of-step': { en: 'out of step' },
  'state.silent': { en: 'silent' },
  'state.connecting': { en: 'connecting' },
  'state.handshaking': { en: 'handshaking' },
  'state.idle': { en: 'idle' },
  'state.stopped': { en: 'stopped' },
} as const satisfies Record<string, { en: string } & Partial<Record<Lang, string>>>;

export type HallKey = keyof typeof TEXT;

export function hallText(lang: Lang, key: HallKey): string {
  const t: Partial<Record<Lang, string>> & { en: string } = TEXT[key];
  return t[lang] ?? t.en;
}

export function stateText(lang: Lang, state: HallTableState): string {
  return hallText(lang, `state.${state}`);
}
