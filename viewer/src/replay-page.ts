import { Chessground } from '@lichess-org/chessground';
import type { Api } from '@lichess-org/chessground/api';
import type { Key } from '@lichess-org/chessground/types';
import type { BoardEvent } from '../../protocols/board-events.ts';
import type { ReplayLabel, Timeline, TimelineStep } from '../../protocols/feed/timeline.ts';
import { h, setText } from './dom.ts';
import type { I18n } from './i18n.ts';
import { replayText, type ReplayKey } from './replay-i18n.ts';

/** How the page reaches the server: the caller adds the arbiter's credentials. */
export type ArbiterGet = (url: string) => Promise<Response>;

const FILES = 'abcdefgh';

/** A DGT field (0 = a8, board's own orientation) as a square name. */
function fieldName(field: number): string {
  return `${FILES[field % 8]}${8 - Math.floor(field / 8)}`;
}

function clockText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** What the sensors reported, in words (a frame with no board event: the message it holds). */
export function describeEvent(e: BoardEvent | null, message: string | null = null): string {
  if (!e) return message ? `board message: ${message}` : 'no bytes';
  switch (e.type) {
    case 'field':
      return `${fieldName(e.field)} ${e.piece === 0 ? 'emptied' : `piece 0x${e.piece.toString(16)}`}`;
    case 'dump':
      return `board dump (${e.board.filter((p) => p !== 0).length} pieces)`;
    case 'clock':
      return `clock ${clockText(e.whiteMs)} – ${clockText(e.blackMs)}${e.running ? `, ${e.running} running` : ', stopped'}${e.whiteFlag || e.blackFlag ? ', flag' : ''}`;
    case 'connection':
      return e.connected ? 'board connected' : 'board disconnected';
  }
}

/** What the engine made of a step, in words. */
export function describeProduced(l: ReplayLabel, i18n: I18n): string {
  switch (l.kind) {
    case 'move':
      return `${l.ply}. ${i18n.san(l.san)} (${l.uci})`;
    case 'confirmation':
      return `${l.ply}. ${i18n.san(l.san)} ✓${l.clockMs !== null ? ` ${clockText(l.clockMs)}` : ''}`;
    case 'amendment':
      return `↺ ${l.fromPly}: ${l.before.join(' ') || '—'} → ${l.after.join(' ') || '—'}`;
    case 'takeback':
      return `⟲ ${l.toPly}`;
    case 'result':
      return `${l.result}${l.termination ? ` (${l.termination})` : ''}`;
    case 'incident':
      return `⚠ ${l.incident.kind}${l.incident.article ? ` · ${l.incident.article}` : ''}: ${l.incident.message}`;
    case 'game':
      return `${l.gameId}`;
  }
}

/** Whether a step completed or confirmed a move (Shift+arrows step from one to the next). */
const isMoveStep = (s: TimelineStep): boolean => s.produced.some((p) => p.kind === 'move' || p.kind === 'amendment' || p.kind === 'takeback');

/** A view-only board whose differing squares are marked. */
class MarkedBoard {
  readonly el: HTMLElement;
  private readonly cg: Api;
  constructor(label: string, cls: string) {
    const host = h('div', { class: 'cg-wrap-host' });
    this.el = h('figure', { class: `replay-board ${cls}` }, h('div', { class: 'board-wrap' }, host), h('figcaption', {}, label));
    this.cg = Chessground(host, { viewOnly: true, coordinates: true, animation: { enabled: false }, drawable: { enabled: false, visible: false } });
  }
  show(placement: string, differ: readonly string[]): void {
    this.cg.set({ fen: placement, lastMove: undefined, highlight: { lastMove: false, check: false, custom: new Map(differ.map((s) => [s as Key, 'differs'])) } });
    this.el.dataset.fen = placement;
    this.el.dataset.differ = differ.join(' ');
  }
}

function t(i18n: I18n, key: ReplayKey): string {
  return replayText(i18n.lang, key);
}

/**
 * The arbiter's replay of one game, `/arbiter/replay/:id`: every stored step (sensor events and
 * decisions), scrubbable and steppable (←/→ one event, Shift+←/→ one move, N next incident), with
 * the sensors' board beside the engine's position and the squares where they differ, the clocks
 * as read, the moves so far, and each incident with its article and the rules in force. A span of
 * steps prints as a dispute report (A4) or downloads as JSON.
 */
export async function replayPage(root: HTMLElement, i18n: I18n, gameId: string, get: ArbiterGet): Promise<void> {
  root.replaceChildren(h('p', { class: 'muted' }, '…'));
  let res: Response;
  try {
    res = await get(`/api/arbiter/games/${encodeURIComponent(gameId)}/timeline`);
  } catch (e) {
    root.replaceChildren(h('p', { class: 'error' }, `${t(i18n, 'unreachable')}: ${(e as Error).message}`));
    return;
  }
  if (res.status === 401) {
    // The session ended while the page was open: log in again and come back here.
    location.assign(`/login?next=${encodeURIComponent(location.pathname + location.search)}`);
    return;
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    root.replaceChildren(h('p', { class: 'error', 'data-status': String(res.status) }, `${res.status} · ${body?.error?.message ?? res.statusText}`));
    return;
  }
  const timeline = (await res.json()) as Timeline;
  const params = new URLSearchParams(location.search);
  const report = /^(\d+)-(\d+)$/.exec(params.get('report') ?? '');
  if (report) {
    root.replaceChildren(disputeReport(timeline, Number(report[1]), Number(report[2]), i18n));
    return;
  }
  root.replaceChildren(new ReplayView(timeline, i18n).el);
}

/**
 * Where the replay opens: `?incident=<id>` (the game page's link from an incident) at the step that
 * incident arose at; else `?step=<n>`; else the first step.
 */
function startStep(timeline: Timeline, params: URLSearchParams): number {
  const incident = params.get('incident');
  const found = incident !== null ? timeline.incidents.find((i) => String(i.id) === incident) : undefined;
  if (found) return found.step;
  const step = Number(params.get('step'));
  return Number.isInteger(step) && step > 0 ? step : 0;
}

class ReplayView {
  readonly el: HTMLElement;
  private at = 0;
  private readonly sensors: MarkedBoard;
  private readonly engine: MarkedBoard;
  private readonly slider: HTMLInputElement;
  private readonly position = h('span', { class: 'replay-position' });
  private readonly when = h('div', { class: 'replay-when' });
  private readonly what = h('div', { class: 'replay-event' });
  private readonly raw = h('code', { class: 'replay-raw' });
  private readonly produced = h('ul', { class: 'replay-produced' });
  private readonly differ = h('div', { class: 'replay-differ' });
  private readonly clocks = h('div', { class: 'replay-clocks' });
  private readonly moves = h('p', { class: 'replay-moves' });
  private readonly from: HTMLInputElement;
  private readonly to: HTMLInputElement;

  constructor(
    private readonly timeline: Timeline,
    private readonly i18n: I18n,
  ) {
    const last = Math.max(0, timeline.steps.length - 1);
    this.sensors = new MarkedBoard(t(i18n, 'sensors'), 'sensors');
    this.engine = new MarkedBoard(t(i18n, 'engine'), 'engine');
    this.slider = h('input', { type: 'range', min: '0', max: String(last), value: '0', class: 'replay-slider', 'aria-label': t(i18n, 'step') });
    this.slider.addEventListener('input', () => this.go(Number(this.slider.value)));
    const button = (label: string, title: string, act: () => void, cls: string): HTMLButtonElement => {
      const b = h('button', { type: 'button', title, 'aria-label': title, class: cls }, label);
      b.addEventListener('click', act);
      return b;
    };
    const controls = h(
      'div',
      { class: 'replay-controls' },
      button('|◀', t(i18n, 'first'), () => this.go(0), 'rp-first'),
      button('◀◀', t(i18n, 'prevMove'), () => this.go(this.findMove(-1)), 'rp-prev-move'),
      button('◀', t(i18n, 'prevEvent'), () => this.go(this.at - 1), 'rp-prev'),
      this.slider,
      button('▶', t(i18n, 'nextEvent'), () => this.go(this.at + 1), 'rp-next'),
      button('▶▶', t(i18n, 'nextMove'), () => this.go(this.findMove(1)), 'rp-next-move'),
      button('▶|', t(i18n, 'last'), () => this.go(last), 'rp-last'),
      button('⚠', t(i18n, 'nextIncident'), () => this.go(this.findIncident()), 'rp-next-incident'),
      this.position,
    );
    this.from = h('input', { type: 'number', min: '0', max: String(last), value: '0', class: 'rp-from', 'aria-label': t(i18n, 'from') });
    this.to = h('input', { type: 'number', min: '0', max: String(last), value: String(last), class: 'rp-to', 'aria-label': t(i18n, 'to') });
    const reportLink = h('a', { class: 'rp-report', target: '_blank', rel: 'noopener' }, t(i18n, 'printReport'));
    const jsonLink = h('a', { class: 'rp-json', download: `${timeline.gameId}-report.json` }, 'JSON');
    const updateLinks = (): void => {
      const a = Number(this.from.value);
      const b = Number(this.to.value);
      reportLink.href = `${location.pathname}?report=${Math.min(a, b)}-${Math.max(a, b)}`;
      const span = reportData(timeline, Math.min(a, b), Math.max(a, b));
      jsonLink.href = URL.createObjectURL(new Blob([JSON.stringify(span, null, 2)], { type: 'application/json' }));
    };
    this.from.addEventListener('change', updateLinks);
    this.to.addEventListener('change', updateLinks);
    updateLinks();
    const useHere = (input: HTMLInputElement) => (): void => {
      input.value = String(this.at);
      updateLinks();
    };

    const incidents = h('ol', { class: 'replay-incidents' });
    for (const inc of timeline.incidents) {
      const go = h('button', { type: 'button', class: 'rp-goto' }, `${t(i18n, 'goTo')} ${inc.step}`);
      go.addEventListener('click', () => this.go(inc.step));
      incidents.append(
        h(
          'li',
          { 'data-step': String(inc.step) },
          h('strong', {}, inc.kind),
          inc.article ? ` · ${t(i18n, 'article')} ${inc.article}` : '',
          ` · ${inc.message}`,
          inc.consequence ? h('div', { class: 'muted' }, `${t(i18n, 'consequence')}: ${inc.consequence}`) : null,
          go,
        ),
      );
    }
    if (timeline.incidents.length === 0) incidents.append(h('li', { class: 'muted' }, t(i18n, 'noIncidents')));

    // Every decision about the game, undone ones struck through: the timed ones are steps too,
    // the whole-game ones (colours swapped, a Chess960 start) and undos only here.
    const amendments = h('ol', { class: 'replay-amendments' });
    for (const a of timeline.amendments) {
      const go = a.step === null ? null : h('button', { type: 'button', class: 'rp-goto' }, `${t(i18n, 'goTo')} ${a.step}`);
      go?.addEventListener('click', () => this.go(a.step!));
      amendments.append(
        h(
          'li',
          { class: 'amendment', 'data-action': a.action, 'data-undone': String(a.undone), ...(a.step === null ? {} : { 'data-step': String(a.step) }) },
          h('span', { class: 'amendment-text' }, `#${a.id} ${a.text}`),
          ` · ${a.by} · ${new Date(a.at).toLocaleString()} · ${t(i18n, 'reason')}: ${a.reason || '—'}`,
          a.undone ? h('strong', { class: 'undone-mark' }, ` · ${t(i18n, 'undone')}${a.undoneBy !== null ? ` (#${a.undoneBy})` : ''}`) : null,
          go,
        ),
      );
    }
    if (timeline.amendments.length === 0) amendments.append(h('li', { class: 'muted' }, t(i18n, 'noAmendments')));

    const rules = `${t(i18n, 'laws')} ${timeline.rules.edition} · ${timeline.rules.category}${timeline.rules.chess960 ? ' · Chess960' : ''}`;
    this.el = h(
      'div',
      { class: 'replay', tabindex: '0' },
      h('h1', {}, `${t(i18n, 'replay')} ${timeline.gameId}`, h('span', { class: 'muted' }, ` · ${t(i18n, 'round')} ${timeline.round} · ${t(i18n, 'table')} ${timeline.table} · ${rules}`)),
      h('section', { class: 'replay-incident-list' }, h('h2', {}, t(i18n, 'incidents')), incidents),
      h('section', { class: 'replay-amendment-list' }, h('h2', {}, t(i18n, 'amendments')), amendments),
      controls,
      h('div', { class: 'replay-boards' }, this.sensors.el, this.engine.el),
      this.differ,
      this.clocks,
      h('section', { class: 'replay-step' }, this.when, this.what, this.raw, this.produced),
      h('section', { class: 'replay-moves-box' }, h('h2', {}, t(i18n, 'moves')), this.moves),
      h(
        'section',
        { class: 'replay-report-box' },
        h('h2', {}, t(i18n, 'report')),
        h('label', {}, `${t(i18n, 'from')} `, this.from),
        button(t(i18n, 'here'), t(i18n, 'here'), useHere(this.from), 'rp-from-here'),
        h('label', {}, ` ${t(i18n, 'to')} `, this.to),
        button(t(i18n, 'here'), t(i18n, 'here'), useHere(this.to), 'rp-to-here'),
        ' ',
        reportLink,
        ' · ',
        jsonLink,
      ),
    );
    this.el.addEventListener('keydown', (e) => {
      if (e.target instanceof HTMLInputElement && e.target.type === 'number') return;
      if (e.key === 'ArrowRight') this.go(e.shiftKey ? this.findMove(1) : this.at + 1);
      else if (e.key === 'ArrowLeft') this.go(e.shiftKey ? this.findMove(-1) : this.at - 1);
      else if (e.key === 'n' || e.key === 'N') this.go(this.findIncident());
      else return;
      e.preventDefault();
    });
    this.go(startStep(timeline, new URLSearchParams(location.search)));
  }

  private findMove(direction: 1 | -1): number {
    for (let i = this.at + direction; i >= 0 && i < this.timeline.steps.length; i += direction) if (isMoveStep(this.timeline.steps[i]!)) return i;
    return direction > 0 ? this.timeline.steps.length - 1 : 0;
  }

  private findIncident(): number {
    const next = this.timeline.incidents.find((i) => i.step > this.at) ?? this.timeline.incidents[0];
    return next ? next.step : this.at;
  }

  private go(index: number): void {
    const steps = this.timeline.steps;
    if (steps.length === 0) {
      setText(this.position, '0 / 0');
      return;
    }
    this.at = Math.max(0, Math.min(steps.length - 1, index));
    const s = steps[this.at]!;
    this.slider.value = String(this.at);
    this.el.dataset.step = String(this.at);
    setText(this.position, `${this.at} / ${steps.length - 1}`);
    this.sensors.show(s.sensors, s.differ);
    this.engine.show(s.engine.fen.split(' ')[0] ?? s.engine.fen, s.differ);
    setText(this.differ, s.differ.length === 0 ? t(this.i18n, 'agree') : `${t(this.i18n, 'differ')}: ${s.differ.join(' ')}`);
    this.differ.className = `replay-differ${s.differ.length ? ' has-differences' : ''}`;
    setText(
      this.clocks,
      s.clock ? `♔ ${clockText(s.clock.whiteMs)}${s.clock.running === 'white' ? ' ◀' : ''}   ♚ ${clockText(s.clock.blackMs)}${s.clock.running === 'black' ? ' ◀' : ''}` : t(this.i18n, 'noClock'),
    );
    setText(this.when, `#${s.rawEventId} · ${s.wallMs !== null ? new Date(s.wallMs).toISOString().replace('T', ' ').slice(0, 23) : t(this.i18n, 'decision')}`);
    setText(this.what, s.kind === 'arbiter' ? `${t(this.i18n, 'decision')}: ${s.command?.text ?? ''}` : describeEvent(s.event, s.message));
    setText(this.raw, s.raw);
    this.produced.replaceChildren(...s.produced.map((p) => h('li', { class: `produced-${p.kind}` }, describeProduced(p, this.i18n))));
    this.moves.replaceChildren(...s.moves.flatMap((m, i) => [i % 2 === 0 ? `${i / 2 + 1}. ` : '', h('span', { class: i === s.moves.length - 1 ? 'current' : '' }, this.i18n.san(m)), ' ']));
  }
}

/** The span of a timeline a dispute report covers, as data (the JSON download). */
export function reportData(
  tl: Timeline,
  from: number,
  to: number,
): {
  gameId: string;
  round: number;
  table: number;
  rules: Timeline['rules'];
  from: number;
  to: number;
  steps: TimelineStep[];
  incidents: Timeline['incidents'];
  decisions: TimelineStep[];
  amendments: Timeline['amendments'];
} {
  const steps = tl.steps.slice(from, to + 1);
  return {
    gameId: tl.gameId,
    round: tl.round,
    table: tl.table,
    rules: tl.rules,
    from,
    to,
    steps,
    incidents: tl.incidents.filter((i) => i.step >= from && i.step <= to),
    decisions: steps.filter((s) => s.kind === 'arbiter'),
    // The audit trail's rows taken within the span, undone ones included (marked).
    amendments: tl.amendments.filter((a) => a.step !== null && a.step >= from && a.step <= to),
  };
}

const GLYPHS: Record<string, string> = { K: '♔', Q: '♕', R: '♖', B: '♗', N: '♘', P: '♙', k: '♚', q: '♛', r: '♜', b: '♝', n: '♞', p: '♟' };

/** A print-safe board diagram (a table of glyphs; differing squares outlined). */
function diagram(placement: string, differ: readonly string[], caption: string): HTMLElement {
  const table = h('table', { class: 'diagram' });
  const rows = placement.split('/');
  rows.forEach((row, r) => {
    const tr = h('tr');
    let file = 0;
    for (const ch of row) {
      const n = Number(ch);
      const cells = Number.isInteger(n) && n > 0 ? Array<string>(n).fill('') : [GLYPHS[ch] ?? '?'];
      for (const glyph of cells) {
        const square = `${FILES[file]}${8 - r}`;
        tr.append(h('td', { class: `${(file + r) % 2 === 0 ? 'light' : 'dark'}${differ.includes(square) ? ' differs' : ''}`, 'data-square': square }, glyph));
        file++;
      }
    }
    table.append(tr);
  });
  return h('figure', { class: 'diagram-box' }, table, h('figcaption', {}, caption));
}

/** The printable dispute report for steps `from`…`to` (A4; `page.pdf()` and the browser's print). */
export function disputeReport(tl: Timeline, from: number, to: number, i18n: I18n): HTMLElement {
  const data = reportData(tl, from, to);
  const first = data.steps[0];
  const last = data.steps[data.steps.length - 1];
  const boards = (s: TimelineStep | undefined, label: string): HTMLElement =>
    s
      ? h('div', { class: 'report-boards' }, diagram(s.sensors, s.differ, `${label} · ${t(i18n, 'sensors')}`), diagram(s.engine.fen.split(' ')[0] ?? '', s.differ, `${label} · ${t(i18n, 'engine')}`))
      : h('p', {}, '—');
  const rows = data.steps.map((s) =>
    h(
      'tr',
      {},
      h('td', {}, String(s.index)),
      h('td', {}, `#${s.rawEventId}`),
      h('td', {}, s.wallMs !== null ? new Date(s.wallMs).toISOString().slice(11, 23) : ''),
      h('td', {}, s.kind === 'arbiter' ? `${t(i18n, 'decision')}: ${s.command?.text ?? ''}` : describeEvent(s.event, s.message)),
      h('td', { class: 'raw' }, s.raw),
      h('td', {}, s.produced.map((p) => describeProduced(p, i18n)).join('; ')),
      h('td', {}, s.differ.join(' ')),
    ),
  );
  const incidents = data.incidents.map((i) =>
    h(
      'li',
      {},
      h('strong', {}, i.kind),
      ` · ${t(i18n, 'step')} ${i.step} · ${t(i18n, 'article')} ${i.article ?? '—'} · ${i.message}`,
      i.consequence ? ` · ${t(i18n, 'consequence')}: ${i.consequence}` : '',
    ),
  );
  const decisions = data.amendments.map((a) =>
    h(
      'li',
      { 'data-undone': String(a.undone) },
      `${t(i18n, 'step')} ${a.step}: #${a.id} ${a.text} · ${a.by} · ${new Date(a.at).toISOString().slice(0, 19).replace('T', ' ')} · ${t(i18n, 'reason')}: ${a.reason || '—'}${a.undone ? ` · ${t(i18n, 'undone')}` : ''}`,
    ),
  );
  return h(
    'article',
    { class: 'dispute-report' },
    h('h1', {}, `${t(i18n, 'report')} · ${tl.gameId}`),
    h(
      'p',
      {},
      `${t(i18n, 'round')} ${tl.round} · ${t(i18n, 'table')} ${tl.table} · ${t(i18n, 'laws')} ${tl.rules.edition} · ${tl.rules.category}${tl.rules.chess960 ? ' · Chess960' : ''} · ${t(i18n, 'steps')} ${from}–${to}`,
    ),
    h('h2', {}, t(i18n, 'incidents')),
    incidents.length ? h('ul', {}, ...incidents) : h('p', {}, t(i18n, 'noIncidents')),
    h('h2', {}, t(i18n, 'decisionsTaken')),
    decisions.length ? h('ul', {}, ...decisions) : h('p', {}, t(i18n, 'noDecisions')),
    h('h2', {}, t(i18n, 'positions')),
    boards(first, `${t(i18n, 'step')} ${from}`),
    boards(last, `${t(i18n, 'step')} ${to}`),
    h('h2', {}, t(i18n, 'moves')),
    h('p', { class: 'report-moves' }, (last?.moves ?? []).map((m, i) => `${i % 2 === 0 ? `${i / 2 + 1}. ` : ''}${m}`).join(' ')),
    h('h2', {}, t(i18n, 'events')),
    h(
      'table',
      { class: 'report-events' },
      h('thead', {}, h('tr', {}, ...['#', 'raw id', 'time', t(i18n, 'sensorsSaw'), 'bytes', t(i18n, 'engineRead'), t(i18n, 'differ')].map((c) => h('th', {}, c)))),
      h('tbody', {}, ...rows),
    ),
  );
}
