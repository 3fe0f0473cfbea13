import type { Color } from 'chessops';
import type { ClockState, PlayerInfo } from '../../protocols/feed/model.ts';
import { h, setText } from './dom.ts';

/** FIDE federation codes (IOC-style) to ISO 3166 alpha-2, for flag emoji; unknown codes show as text only. */
const ISO2: Record<string, string> = {
  SLO: 'SI',
  SRB: 'RS',
  SVK: 'SK',
  CRO: 'HR',
  BIH: 'BA',
  MNE: 'ME',
  MKD: 'MK',
  AUT: 'AT',
  GER: 'DE',
  HUN: 'HU',
  CZE: 'CZ',
  POL: 'PL',
  ITA: 'IT',
  FRA: 'FR',
  ESP: 'ES',
  ENG: 'GB',
  SCO: 'GB',
  WLS: 'GB',
  USA: 'US',
  IND: 'IN',
  CHN: 'CN',
  NOR: 'NO',
  NED: 'NL',
  UKR: 'UA',
  RUS: 'RU',
  ARM: 'AM',
  AZE: 'AZ',
  GEO: 'GE',
  ROU: 'RO',
  BUL: 'BG',
  GRE: 'GR',
  TUR: 'TR',
  SUI: 'CH',
  SWE: 'SE',
  DEN: 'DK',
  FIN: 'FI',
  ISR: 'IL',
  BEL: 'BE',
  POR: 'PT',
  IRL: 'IE',
  LTU: 'LT',
  LAT: 'LV',
  EST: 'EE',
  BLR: 'BY',
  KAZ: 'KZ',
  UZB: 'UZ',
  IRI: 'IR',
  CAN: 'CA',
  BRA: 'BR',
  ARG: 'AR',
  PER: 'PE',
  CUB: 'CU',
  MEX: 'MX',
  AUS: 'AU',
  JPN: 'JP',
  VIE: 'VN',
  PHI: 'PH',
  EGY: 'EG',
  ALB: 'AL',
  KOS: 'XK',
  MDA: 'MD',
  ISL: 'IS',
  LUX: 'LU',
  MLT: 'MT',
  CYP: 'CY',
  AND: 'AD',
  MON: 'MC',
  FID: '',
};

let flagsRender: boolean | null = null;

/**
 * Whether this browser draws flag emoji (Windows and minimal Linux installs show two boxed
 * letters instead): a supported flag is one glyph, about as wide as one regional indicator.
 */
function canRenderFlags(): boolean {
  if (flagsRender !== null) return flagsRender;
  const ctx = document.createElement('canvas').getContext('2d');
  if (!ctx) return (flagsRender = false);
  ctx.font = '32px sans-serif';
  const pair = ctx.measureText('\u{1F1F8}\u{1F1EE}').width;
  const one = ctx.measureText('\u{1F1F8}').width;
  return (flagsRender = pair > 0 && pair < one * 1.5);
}

/** Flag emoji for a federation, or '' when unknown or the browser cannot draw it. */
export function flag(fed: string | null): string {
  if (!fed) return '';
  const iso = ISO2[fed.toUpperCase()];
  if (!iso || !canRenderFlags()) return '';
  return String.fromCodePoint(...[...iso].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65));
}

/** h:mm:ss above an hour, m:ss above ten seconds, then tenths (as DGT clocks show the last seconds). */
export function formatClock(ms: number): string {
  const v = Math.max(0, ms);
  if (v < 10_000) return `${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 100)}`;
  const s = Math.floor(v / 1000);
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return hh > 0 ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

/** The time a side has now, extrapolating the running clock from its reading (server time). */
export function remaining(clock: ClockState, side: Color, serverNow: number): number {
  const base = side === 'white' ? clock.whiteMs : clock.blackMs;
  if (clock.running !== side) return base;
  return Math.max(0, base - Math.max(0, serverNow - clock.readAt));
}

/** One player's row: side, title and name above federation (flag) and rating; the clock beside. */
export class PlayerRow {
  readonly el: HTMLElement;
  private readonly fed = h('span', { class: 'fed' });
  private readonly title = h('span', { class: 'title' });
  private readonly name = h('span', { class: 'name' });
  private readonly rating = h('span', { class: 'rating' });
  private readonly clock = h('span', { class: 'clock' });

  constructor(readonly side: Color) {
    this.el = h(
      'div',
      { class: `player ${side}` },
      h('span', { class: `side-dot ${side}` }),
      h('span', { class: 'who' }, h('span', { class: 'line1' }, this.title, this.name), h('span', { class: 'line2' }, this.fed, this.rating)),
      this.clock,
    );
  }

  setPlayer(p: PlayerInfo): void {
    const f = flag(p.federation);
    setText(this.fed, p.federation ? `${f}${f ? ' ' : ''}${p.federation}` : '');
    this.fed.title = p.federation ?? '';
    setText(this.title, p.title ?? '');
    setText(this.name, p.name);
    setText(this.rating, p.rating !== null ? String(p.rating) : '');
  }

  /** `toMove` false for both sides once the game is over: the clock display then stops. */
  setClock(clock: ClockState | null, serverNow: number, toMove: boolean, finished = false): void {
    this.el.classList.toggle('to-move', toMove);
    if (clock && finished) clock = { ...clock, running: null };
    if (!clock) {
      setText(this.clock, '');
      return;
    }
    const ms = remaining(clock, this.side, serverNow);
    setText(this.clock, formatClock(ms));
    this.clock.classList.toggle('running', clock.running === this.side);
    this.clock.classList.toggle('flagged', this.side === 'white' ? clock.whiteFlag || ms === 0 : clock.blackFlag || ms === 0);
  }
}

/** Side to move from a FEN. */
export { turnOf } from '../../protocols/feed/apply.ts';

/**
 * "12." or "12…" for the move that led to `fenAfter`, from the position itself: after a break in
 * the record (a ply with no move, san "--") the ply's parity no longer says who moved.
 */
export function moveNumberLabel(fenAfter: string, san: string): string {
  if (san === '--') return '⋯';
  const fields = fenAfter.split(' ');
  const blackMoved = fields[1] === 'w';
  const fullmove = Number(fields[5] ?? '1') || 1;
  return blackMoved ? `${fullmove - 1}…` : `${fullmove}.`;
}
