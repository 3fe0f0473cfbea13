import type { HallReport, HallTable, OutputsHealth } from '../../protocols/feed/hall.ts';
import { isProblem } from '../../protocols/feed/hall.ts';
import type { RoundInfo } from '../../protocols/feed/model.ts';
import { arbiterPost, DeskRoundRow, sessionBar, showSessionEnded, whoami, type ArbiterContext, type RoundStartClose } from './arbiter-desk.ts';
import { h, setText } from './dom.ts';
import type { FeedClient } from './feed-client.ts';
import { hallText, stateText, type HallKey } from './hall-i18n.ts';
import type { I18n } from './i18n.ts';
import { fetchRounds } from './overview.ts';
import { header } from './shell.ts';

/**
 * How often the page reads GET /api/hall. The report is a few hundred bytes a table and costs the
 * daemon nothing but a look at its tables, so once a second keeps "retrying" within 2 s of an
 * unplugged cable without a feed message of its own.
 */
const POLL_MS = 1_000;

/** "0.8 s", "12 s", "3 min", "2 h": how long ago, to the precision an organiser needs. */
export function agoText(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 2 * 3600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3600_000)} h`;
}

const clockTime = (at: number): string => new Date(at).toLocaleTimeString();

/** One table's row: every field of the report, its state also as `data-state` for styles and tests. */
class HallRow {
  readonly el: HTMLTableRowElement;
  private readonly cells: Record<'table' | 'serial' | 'device' | 'state' | 'since' | 'clock' | 'battery' | 'discarded' | 'game' | 'lastMove', HTMLTableCellElement>;
  private readonly serialText = h('span', { class: 'ht-serial-text' });
  private readonly changeButton: HTMLButtonElement;

  constructor(
    private readonly i18n: I18n,
    /** Where a game's link goes: the arbiter's page for arbiters, the public one for organisers (the arbiter's is not theirs). */
    private readonly gameHref: (id: string) => string,
    /** Opens the board change form for this row's table. */
    onChange: (table: number) => void,
  ) {
    const td = (cls: string): HTMLTableCellElement => h('td', { class: cls });
    this.cells = {
      // State and its age first: on a phone they are what shows without scrolling sideways.
      table: td('ht-table'),
      state: td('ht-state'),
      since: td('ht-since'),
      serial: td('ht-serial'),
      device: td('ht-device'),
      clock: td('ht-clock'),
      battery: td('ht-battery'),
      discarded: td('ht-discarded'),
      game: td('ht-game'),
      lastMove: td('ht-last-move'),
    };
    this.changeButton = h('button', { type: 'button', class: 'ht-change link-button' }, hallText(i18n.lang, 'changeRow'));
    this.changeButton.onclick = () => onChange(Number(this.el.dataset.table));
    this.cells.serial.append(this.serialText, ' ', this.changeButton);
    this.el = h('tr', { class: 'hall-row' }, ...Object.values(this.cells));
  }

  private t(key: HallKey): string {
    return hallText(this.i18n.lang, key);
  }

  render(t: HallTable): void {
    const c = this.cells;
    this.el.dataset.table = String(t.table);
    this.el.dataset.state = t.state;
    this.el.classList.toggle('problem', isProblem(t.state) || t.engineFaults > 0);
    setText(c.table, String(t.table));
    setText(this.serialText, t.serial ?? t.board);
    c.serial.title = t.boardFixed === null ? t.board : `${t.board} · ${t.boardFixed}`;
    // Bus-line tables and emulated boards are changed in the config file, not here.
    this.changeButton.hidden = t.boardFixed !== null;
    setText(c.device, t.device ?? this.t('unknown'));
    c.device.title = t.device ?? '';
    const state = stateText(this.i18n.lang, t.state);
    const shown = t.state === 'out-of-step' && t.outOfStepSquares !== null ? `${state} (${t.outOfStepSquares} ${this.t('squares')})` : state;
    // The game's engine failed (a fault in boardcast, in the log): the arbiter should look at its record.
    setText(c.state, t.engineFaults > 0 ? `${shown} · ${this.t('engineFaults')}: ${t.engineFaults} (${this.t('checkRecord')})` : shown);
    setText(c.since, t.sinceLastEventMs === null ? this.t('never') : `${agoText(t.sinceLastEventMs)} ${this.t('ago')}`);
    c.clock.dataset.clock = String(t.clockConnected);
    setText(c.clock, t.clockConnected === null ? this.t('unknown') : t.clockConnected ? this.t('clockOn') : this.t('clockOff'));
    const percent = t.battery?.percent ?? null;
    setText(c.battery, percent === null ? this.t('unknown') : `${percent} %${t.battery?.charging ? ` · ${this.t('charging')}` : ''}`);
    setText(c.discarded, String(t.discardedBytes));
    c.discarded.classList.toggle('noisy', t.discardedBytes > 0);
    c.game.replaceChildren(t.gameId === null ? this.t('unknown') : h('a', { href: this.gameHref(t.gameId) }, t.gameId));
    setText(c.lastMove, t.lastMove === null ? '' : this.i18n.san(t.lastMove));
  }
}

/** Each output the config turns on: where it stands, its last success, last error and next retry. */
function outputItems(i18n: I18n, o: OutputsHealth): HTMLElement[] {
  const t = (k: HallKey): string => hallText(i18n.lang, k);
  const item = (name: string, kind: string, state: string, ...parts: (string | null)[]): HTMLElement =>
    h('li', { class: 'hall-output', 'data-output': kind, 'data-state': state }, h('strong', {}, name), ` · ${state}`, ...parts.filter((p): p is string => p !== null).map((p) => ` · ${p}`));
  const at = (label: HallKey, ms: number | null): string | null => (ms === null ? null : `${t(label)} ${clockTime(ms)}`);
  const out: HTMLElement[] = [];
  if (o.liveChessApi) out.push(item(t('liveChessApi'), 'liveChessApi', 'ok', o.liveChessApi.url, `${t('connections')} ${o.liveChessApi.connections}`));
  else out.push(item(t('liveChessApi'), 'liveChessApi', t('off')));
  if (o.lichessPush)
    for (const p of o.lichessPush)
      out.push(
        item(
          `${t('lichessPush')} ${p.round} → ${p.roundId}`,
          'lichessPush',
          p.state,
          at('lastPush', p.lastPushAt),
          `${t('pushes')} ${p.pushes}`,
          p.lastError ? `${t('lastError')} ${clockTime(p.lastError.at)}: ${p.lastError.status ?? ''} ${p.lastError.message}` : null,
          at('nextRetry', p.nextRetryAt),
        ),
      );
  else out.push(item(t('lichessPush'), 'lichessPush', t('off')));
  if (o.pgnFolder)
    out.push(
      item(
        t('pgnFolder'),
        'pgnFolder',
        o.pgnFolder.lastError === null ? 'ok' : 'error',
        o.pgnFolder.dir,
        `${t('writes')} ${o.pgnFolder.writes}`,
        at('lastWrite', o.pgnFolder.lastWriteAt),
        o.pgnFolder.lastError === null ? null : `${t('lastError')}: ${o.pgnFolder.lastError}`,
      ),
    );
  else out.push(item(t('pgnFolder'), 'pgnFolder', t('off')));
  return out;
}

/**
 * The organiser's hall page, `/hall` (organisers and arbiters, after /login): every table's board
 * connection and game, problems first, read from GET /api/hall every second; each output's state;
 * and the rounds with Start / Close as on the arbiter's desk.
 */
export async function hallPage(root: HTMLElement, i18n: I18n, feed: FeedClient): Promise<void> {
  const t = (k: HallKey): string => hallText(i18n.lang, k);
  document.title = `${t('hallTitle')} · boardcast`;
  const authBanner = h('div', { class: 'auth-banner', role: 'alert' });
  authBanner.hidden = true;
  let sessionEnded = false;
  const ctx: ArbiterContext = {
    i18n,
    onUnauthorized: (m) => {
      sessionEnded = true;
      showSessionEnded(authBanner, i18n, m);
    },
  };
  const staleNote = h('div', { class: 'hall-stale', role: 'status' });
  staleNote.hidden = true;
  const updated = h('span', { class: 'hall-updated' });
  const head = h(
    'tr',
    {},
    ...(['table', 'state', 'sinceLastEvent', 'board', 'device', 'clock', 'battery', 'discarded', 'game', 'lastMove'] as const).map((k) =>
      h('th', { scope: 'col' }, k === 'table' ? i18n.t('table') : t(k)),
    ),
  );
  const body = h('tbody', {});
  const noTables = h('p', { class: 'desk-empty' }, t('noTables'));
  noTables.hidden = true;
  const outputs = h('ul', { class: 'hall-outputs' });
  const change = boardChangeForm(ctx);
  const roundList = h('ul', { class: 'desk-rounds' });
  root.append(
    header(i18n, feed, h('h1', {}, t('hallTitle'))),
    h(
      'main',
      { class: 'desk hall' },
      authBanner,
      h(
        'div',
        { class: 'desk-bar' },
        sessionBar(ctx),
        h('span', { class: 'desk-links' }, h('a', { class: 'public-link desk-link-top', href: '/arbiter' }, t('deskLink')), ' · ', h('a', { class: 'public-link', href: '/' }, i18n.t('publicView'))),
      ),
      staleNote,
      h(
        'section',
        { class: 'hall-tables-panel' },
        h('h2', {}, t('tables'), ' ', updated),
        h('div', { class: 'hall-scroll' }, h('table', { class: 'hall-tables' }, h('thead', {}, head), body)),
        noTables,
      ),
      change.el,
      h('section', { class: 'hall-outputs-panel' }, h('h2', {}, t('outputs')), outputs),
      h('section', { class: 'desk-rounds-panel' }, h('h2', {}, i18n.t('rounds')), roundList),
    ),
  );

  let gamePath = '/game/';
  const gameHref = (id: string): string => `${gamePath}${encodeURIComponent(id)}`;
  const rows = new Map<number, HallRow>();
  const show = (report: HallReport): void => {
    const seen = new Set<number>();
    // The server's order is the page's: problems first, then by table number.
    for (const table of report.tables) {
      seen.add(table.table);
      let row = rows.get(table.table);
      if (!row) {
        row = new HallRow(i18n, gameHref, (n) => change.open(n));
        rows.set(table.table, row);
      }
      row.render(table);
      body.append(row.el);
    }
    for (const [n, row] of rows)
      if (!seen.has(n)) {
        row.el.remove();
        rows.delete(n);
      }
    noTables.hidden = rows.size > 0;
    change.tables(report.tables);
    outputs.replaceChildren(...outputItems(i18n, report.outputs));
    setText(updated, `· ${t('updated')} ${clockTime(report.at)}`);
  };

  let lastOk = 0;
  const poll = async (): Promise<void> => {
    if (sessionEnded) return;
    try {
      const res = await fetch('/api/hall', { credentials: 'same-origin', cache: 'no-store' });
      if (res.status === 401) {
        const err = ((await res.json()) as { error?: { message?: string } }).error;
        ctx.onUnauthorized(err?.message ?? 'HTTP 401');
        return;
      }
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      show((await res.json()) as HallReport);
      lastOk = Date.now();
      staleNote.hidden = true;
    } catch (e) {
      // Never a frozen page that looks current: say since when nothing was read.
      staleNote.hidden = false;
      setText(staleNote, `${t('unreachable')} (${lastOk === 0 ? t('never') : `${agoText(Date.now() - lastOk)} ${t('ago')}`}; ${(e as Error).message})`);
    }
  };
  // One read at a time: a slow answer delays the next rather than piling requests up.
  const loop = async (): Promise<void> => {
    await poll();
    setTimeout(() => void loop(), POLL_MS);
  };
  void loop();

  const roundRows = new Map<number, DeskRoundRow>();
  const applyRounds = (rounds: RoundInfo[]): void => {
    for (const r of rounds) {
      const row = roundRows.get(r.round);
      if (row) {
        row.info = r;
        row.render();
        continue;
      }
      const created = new DeskRoundRow(r, ctx, desk);
      roundRows.set(r.round, created);
      roundList.append(created.el);
    }
  };
  const desk = {
    // A round's games are on the desk: choosing a round here opens it there.
    selectRound: (n: number): void => location.assign(`/arbiter?round=${n}`),
    roundChanged: (r: RoundStartClose): void => applyRounds([r.round]),
  };
  const me = await whoami();
  if (!me) return;
  if (me.role === 'arbiter') gamePath = '/arbiter/';
  applyRounds(await fetchRounds());
  // Catches a round started or closed from a desk or `boardcast round`.
  setInterval(() => void fetchRounds().then(applyRounds), 10_000);
}

/**
 * The form that puts another board in at a table (POST /api/arbiter/tables/:n/board, docs/hall.md):
 * a table, the new board (other tables' boards offered: choosing one swaps them), and why.
 */
function boardChangeForm(ctx: ArbiterContext): { el: HTMLElement; open: (table: number) => void; tables: (list: readonly HallTable[]) => void } {
  const t = (k: HallKey): string => hallText(ctx.i18n.lang, k);
  const table = h('select', { class: 'bc-table', 'aria-label': ctx.i18n.t('table') });
  const board = h('input', { class: 'bc-board', type: 'text', list: 'bc-boards', autocomplete: 'off', 'aria-label': t('newBoard'), placeholder: t('newBoard') });
  const known = h('datalist', { id: 'bc-boards' });
  const reason = h('input', { class: 'bc-reason', type: 'text', 'aria-label': t('reason'), placeholder: t('reason') });
  const submit = h('button', { type: 'submit', class: 'bc-submit' }, t('changeBoardButton'));
  const message = h('p', { class: 'bc-message', role: 'status' });
  const form = h('form', { class: 'board-change' }, table, board, known, reason, submit);
  const el = h('section', { class: 'hall-board-change-panel' }, h('h2', {}, t('changeBoard')), h('p', { class: 'hint' }, t('changeBoardHelp')), form, message);
  let shown = '';
  form.onsubmit = async (e) => {
    e.preventDefault();
    submit.disabled = true;
    message.dataset.kind = '';
    setText(message, '');
    try {
      const o = await arbiterPost<{ changes: { table: number; board: string; previous: string }[] }>(ctx, `tables/${table.value}/board`, { board: board.value.trim(), reason: reason.value });
      if (!o.ok) {
        message.dataset.kind = 'error';
        setText(message, o.message);
        return;
      }
      message.dataset.kind = 'ok';
      setText(message, o.value.changes.map((c) => `${ctx.i18n.t('table')} ${c.table} ${t('boardChanged')} ${c.board} (${t('was')} ${c.previous})`).join(' · '));
      board.value = '';
      reason.value = '';
    } finally {
      submit.disabled = false;
    }
  };
  return {
    el,
    open: (n) => {
      table.value = String(n);
      board.focus();
    },
    tables: (list) => {
      const sorted = [...list].sort((a, b) => a.table - b.table);
      const key = sorted.map((x) => `${x.table}:${x.board}`).join(',');
      if (key === shown) return;
      shown = key;
      const chosen = table.value;
      table.replaceChildren(...sorted.map((x) => h('option', { value: String(x.table) }, `${ctx.i18n.t('table')} ${x.table} · ${x.board}`)));
      if (chosen) table.value = chosen;
      known.replaceChildren(...sorted.map((x) => h('option', { value: x.board }, `${ctx.i18n.t('table')} ${x.table}`)));
    },
  };
}
