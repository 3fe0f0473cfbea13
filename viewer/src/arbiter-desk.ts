import type { GameResult, GameState, GameSummary, RoundInfo } from '../../protocols/feed/model.ts';
import { applyToSummary } from '../../protocols/feed/apply.ts';
import { h, setText } from './dom.ts';
import { moveNumberLabel } from './players.ts';
import type { FeedClient } from './feed-client.ts';
import { hallText } from './hall-i18n.ts';
import type { I18n } from './i18n.ts';
import { chooseRound, fetchRounds } from './overview.ts';
import { header } from './shell.ts';
import { AmendControls } from './amend-controls.ts';
import { act, ActionMessage, arbiterPost, failureText, type ArbiterContext, type ArbiterOutcome } from './arbiter-request.ts';

export { ActionMessage, arbiterPost, failureText, type ArbiterContext, type ArbiterOutcome };

/** The login form, coming back to this page afterwards. */
export function loginHref(): string {
  return `/login?next=${encodeURIComponent(location.pathname + location.search)}`;
}

/** Fills an alert with "not logged in: <why>" and a link to log in again (coming back here). */
export function showSessionEnded(banner: HTMLElement, i18n: I18n, message: string): void {
  banner.hidden = false;
  banner.replaceChildren(`${i18n.t('sessionEnded')}: ${message} `, h('a', { class: 'login-link', href: loginHref() }, i18n.t('logIn')));
}

/** Who is logged in (GET /api/arbiter/whoami); without a session, off to the login form. */
export async function whoami(): Promise<{ name: string | null; role: string } | null> {
  try {
    const res = await fetch('/api/arbiter/whoami');
    if (res.status === 401) {
      location.assign(loginHref());
      return null;
    }
    if (!res.ok) return null;
    return (await res.json()) as { name: string | null; role: string };
  } catch {
    // Offline: the first action will say so.
    return null;
  }
}

/** "1/2-1/2" as arbiters write it on a scoresheet. */
export function resultLabel(r: GameResult): string {
  return r === '1/2-1/2' ? '½-½' : r === '*' ? '' : r;
}

const RESULTS: readonly Exclude<GameResult, '*'>[] = ['1-0', '1/2-1/2', '0-1'];

/**
 * Who is logged in (the name the audit trail records) and a Log out button. Logging out is a
 * POST (a form), so no link can do it by accident.
 */
export function sessionBar(ctx: ArbiterContext): HTMLElement {
  const name = h('strong', { class: 'session-name' }, '…');
  const logout = h('form', { method: 'post', action: '/logout', class: 'logout-form' }, h('button', { type: 'submit', class: 'logout' }, ctx.i18n.t('logout')));
  void whoami().then((me) => {
    if (!me) return;
    setText(name, `${me.name ?? '(token)'} · ${me.role}`);
    // An organiser runs rounds, not games: the game controls would only be refused (403).
    document.body.dataset.role = me.role;
  });
  return h('div', { class: 'session-bar' }, h('span', {}, `${ctx.i18n.t('loggedInAs')} `), name, logout);
}

/**
 * 1-0 / ½-½ / 0-1 with an optional reason, for one game; also a forfeit for a game that never
 * started. Replacing a result the game already has asks first.
 */
export class ResultControls {
  readonly el: HTMLElement;
  private readonly reason: HTMLInputElement;
  private readonly buttons: HTMLButtonElement[];
  readonly msg = new ActionMessage();

  constructor(
    private readonly ctx: ArbiterContext,
    private readonly gameId: string,
    private readonly current: () => GameResult,
    /** After a result was set (the game page lists the amendment). */
    private readonly onDone?: () => void,
  ) {
    const { i18n } = ctx;
    this.reason = h('input', { type: 'text', class: 'reason', placeholder: i18n.t('reasonHint'), 'aria-label': i18n.t('reason'), maxlength: '500' });
    this.buttons = RESULTS.map((r) => {
      const b = h('button', { type: 'button', class: 'res-btn', 'data-result': r }, resultLabel(r));
      b.onclick = () => this.choose(r);
      return b;
    });
    this.el = h('div', { class: 'result-controls' }, h('div', { class: 'res-buttons', role: 'group', 'aria-label': i18n.t('resultButtons') }, ...this.buttons), this.reason, this.msg.el);
  }

  private choose(r: Exclude<GameResult, '*'>): void {
    const now = this.current();
    if (now !== '*' && now !== r) {
      const { i18n } = this.ctx;
      this.msg.confirm(`${resultLabel(now)} → ${i18n.t('changeResult')} ${resultLabel(r)}?`, i18n.t('confirm'), i18n.t('cancel'), () => void this.send(r));
      return;
    }
    void this.send(r);
  }

  private async send(r: Exclude<GameResult, '*'>): Promise<void> {
    const reason = this.reason.value.trim();
    const body: Record<string, unknown> = { result: r, ...(reason ? { reason } : {}) };
    const done = await act(this.buttons, this.msg, this.ctx.i18n, () => arbiterPost<GameState>(this.ctx, `games/${encodeURIComponent(this.gameId)}/result`, body));
    if (done) {
      this.reason.value = '';
      this.msg.done(`${resultLabel(done.result)}`);
      this.onDone?.();
    }
  }
}

function gameStatusText(i18n: I18n, g: GameSummary): string {
  return g.status === 'pending' ? i18n.t('notStarted') : g.status === 'live' ? i18n.t('inProgress') : i18n.t('finished');
}

function playerText(p: GameSummary['white']): string {
  return `${p.title ? `${p.title} ` : ''}${p.name}`;
}

/** A link to a game's arbiter page that keeps the language; the session cookie does the rest (no secret in any URL). */
export function arbiterGameHref(gameId: string): string {
  const q = new URLSearchParams();
  const lang = new URLSearchParams(location.search).get('lang');
  if (lang) q.set('lang', lang);
  const qs = q.toString();
  return `/arbiter/${encodeURIComponent(gameId)}${qs ? `?${qs}` : ''}`;
}

/** One game on the desk: table, players, status, result, plies, result controls, link. */
class DeskGameRow {
  readonly el: HTMLElement;
  private readonly table = h('span', { class: 'dg-table' });
  private readonly players = h('span', { class: 'dg-players' });
  private readonly status = h('span', { class: 'dg-status' });
  private readonly result = h('span', { class: 'dg-result' });
  private readonly plies = h('span', { class: 'dg-plies' });
  readonly controls: ResultControls;

  constructor(
    public game: GameSummary,
    private readonly ctx: ArbiterContext,
  ) {
    this.controls = new ResultControls(ctx, game.id, () => this.game.result);
    const link = h('a', { class: 'dg-open', href: arbiterGameHref(game.id) }, `${ctx.i18n.t('open')} ›`);
    this.el = h('div', { class: 'desk-game', 'data-game': game.id }, this.table, this.players, this.status, this.result, this.plies, h('div', { class: 'dg-actions' }, this.controls.el), link);
    this.render();
  }

  render(): void {
    const g = this.game;
    const { i18n } = this.ctx;
    setText(this.table, String(g.table));
    this.table.title = `${i18n.t('table')} ${g.table}`;
    setText(this.players, `${playerText(g.white)} – ${playerText(g.black)}`);
    setText(this.status, gameStatusText(i18n, g));
    setText(this.result, resultLabel(g.result));
    setText(this.plies, String(g.ply));
    this.plies.title = i18n.t('plies');
    this.el.dataset.status = g.status;
    this.el.dataset.result = g.result;
    this.el.dataset.ply = String(g.ply);
  }
}

function roundStatusText(i18n: I18n, r: RoundInfo): string {
  return r.status === 'upcoming' ? i18n.t('upcoming') : r.status === 'live' ? i18n.t('live') : i18n.t('finished');
}

/** What a round start or close answers: the round and its games. */
export interface RoundStartClose {
  round: RoundInfo;
  games: GameSummary[];
}

/** One round in the desk's list (and the hall page's): select it, start or close it, and its messages. */
export class DeskRoundRow {
  readonly el: HTMLElement;
  private readonly select: HTMLButtonElement;
  private readonly status = h('span', { class: 'round-status' });
  private readonly count = h('span', { class: 'round-count' });
  private readonly start: HTMLButtonElement;
  private readonly close: HTMLButtonElement;
  readonly msg = new ActionMessage();
  /** Closed by this desk, or the server said it already was. */
  private closed = false;

  constructor(
    public info: RoundInfo,
    private readonly ctx: ArbiterContext,
    private readonly desk: { selectRound(n: number): void; roundChanged(r: RoundStartClose): void },
  ) {
    const { i18n } = ctx;
    this.select = h('button', { type: 'button', class: 'round-select' }, `${i18n.t('round')} ${info.round}`);
    this.select.onclick = () => desk.selectRound(info.round);
    this.start = h('button', { type: 'button', class: 'round-start' }, i18n.t('startRound'));
    this.close = h('button', { type: 'button', class: 'round-close' }, i18n.t('closeRound'));
    this.start.onclick = () => void this.doStart();
    this.close.onclick = () => void this.doClose(false);
    this.el = h('li', { class: 'desk-round', 'data-round': String(info.round) }, this.select, this.status, this.count, h('span', { class: 'round-buttons' }, this.start, this.close), this.msg.el);
    this.render();
  }

  render(): void {
    const r = this.info;
    this.el.dataset.status = r.status;
    setText(this.status, roundStatusText(this.ctx.i18n, r));
    setText(this.count, `${this.ctx.i18n.t('games')}: ${r.gameCount}`);
    this.start.hidden = r.status !== 'upcoming';
    // A round whose games all have results reads `finished` before the arbiter closes it: Close
    // stays offered until the round is closed.
    this.close.hidden = !(r.status === 'live' || (r.status === 'finished' && !this.closed && r.closed !== true));
  }

  setSelected(on: boolean): void {
    this.el.classList.toggle('selected', on);
    this.select.setAttribute('aria-pressed', String(on));
  }

  private async doStart(): Promise<void> {
    const done = await act([this.start, this.close], this.msg, this.ctx.i18n, () => arbiterPost<RoundStartClose>(this.ctx, `rounds/${this.info.round}/start`, {}));
    if (!done) return;
    this.msg.done(`${this.ctx.i18n.t('round')} ${done.round.round}: ${roundStatusText(this.ctx.i18n, done.round)}`);
    this.desk.roundChanged(done);
  }

  /** Unfinished games refuse a plain close; the refusal (naming the tables) is shown, then asked. */
  private async doClose(force: boolean): Promise<void> {
    const { i18n } = this.ctx;
    const buttons = [this.start, this.close];
    for (const b of buttons) b.disabled = true;
    this.msg.clear();
    const o = await arbiterPost<RoundStartClose>(this.ctx, `rounds/${this.info.round}/close`, force ? { force: true } : {});
    for (const b of buttons) b.disabled = false;
    if (o.ok) {
      this.closed = true;
      this.msg.done(`${i18n.t('round')} ${o.value.round.round}: ${roundStatusText(i18n, o.value.round)}`);
      this.desk.roundChanged(o.value);
      return;
    }
    if (o.code === 'round-closed') {
      this.closed = true;
      this.render();
    }
    if (o.code === 'games-unfinished' && !force) {
      this.msg.confirm(failureText(i18n, o), i18n.t('closeAnyway'), i18n.t('cancel'), () => void this.doClose(true));
      return;
    }
    this.msg.error(failureText(i18n, o));
  }
}

/**
 * The arbiter's desk, `/arbiter` (after /login): every round with Start / Close, the selected round's
 * games live (as on the overview, through the feed) with result buttons, and links to each game's
 * arbiter page. Every refusal from the API is shown next to the control that caused it.
 */
export async function arbiterDeskPage(root: HTMLElement, i18n: I18n, feed: FeedClient): Promise<void> {
  const title = h('h1', {}, i18n.t('arbiterDesk'));
  document.title = `${i18n.t('arbiterDesk')} · boardcast`;
  const authBanner = h('div', { class: 'auth-banner', role: 'alert' });
  const showAuth = (text: string | null): void => {
    authBanner.hidden = text === null;
    setText(authBanner, text ?? '');
  };
  showAuth(null);
  const ctx: ArbiterContext = { i18n, onUnauthorized: (m) => showSessionEnded(authBanner, i18n, m) };

  const roundList = h('ul', { class: 'desk-rounds' });
  const gamesTitle = h('h2', {}, '');
  const gameRows = h('div', { class: 'desk-games' });
  const emptyNote = h('p', { class: 'desk-empty' }, i18n.t('noGames'));
  const labels = h(
    'div',
    { class: 'desk-game desk-head', 'aria-hidden': 'true' },
    h('span', { class: 'dg-table' }, i18n.t('table')),
    h('span', { class: 'dg-players' }, i18n.t('players')),
    h('span', { class: 'dg-status' }, i18n.t('status')),
    h('span', { class: 'dg-result' }, i18n.t('result')),
    h('span', { class: 'dg-plies' }, i18n.t('plies')),
    h('span', { class: 'dg-actions' }, `${i18n.t('resultButtons')} · ${i18n.t('reason')}`),
    h('span', { class: 'dg-open' }, ''),
  );
  const publicLink = h('a', { class: 'public-link', href: '/' }, i18n.t('publicView'));
  const hallLink = h('a', { class: 'public-link hall-link', href: '/hall' }, hallText(i18n.lang, 'hallTitle'));
  root.append(
    header(i18n, feed, title),
    h(
      'main',
      { class: 'desk' },
      authBanner,
      h('div', { class: 'desk-bar' }, sessionBar(ctx), h('span', { class: 'desk-links' }, hallLink, ' · ', publicLink)),
      h('section', { class: 'desk-rounds-panel' }, h('h2', {}, i18n.t('rounds')), roundList),
      h('section', { class: 'desk-games-panel' }, gamesTitle, labels, gameRows, emptyNote),
    ),
  );

  const roundRows = new Map<number, DeskRoundRow>();
  const rows = new Map<string, DeskGameRow>();
  let selected = 0;
  let unsubscribe: (() => void) | null = null;

  const showEmpty = (): void => {
    emptyNote.hidden = rows.size > 0;
    labels.hidden = rows.size === 0;
  };

  /** Adds or updates a game's row, in table order; games of other rounds are dropped. */
  const placeRow = (g: GameSummary): void => {
    const existing = rows.get(g.id);
    if (g.round !== selected) {
      existing?.el.remove();
      rows.delete(g.id);
      showEmpty();
      return;
    }
    const row = existing ?? new DeskGameRow(g, ctx);
    row.game = g;
    row.render();
    rows.set(g.id, row);
    const after = [...rows.values()].filter((r) => r !== row && r.game.table > g.table).sort((a, b) => a.game.table - b.game.table)[0];
    gameRows.insertBefore(row.el, after?.el ?? null);
    showEmpty();
  };

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
      created.setSelected(r.round === selected);
    }
  };

  let refreshTimer: ReturnType<typeof setTimeout> | null = null;
  /** Round statuses follow the games (all finished → finished): re-read them soon after a change. */
  const refreshRoundsSoon = (): void => {
    if (refreshTimer) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      void fetchRounds().then(applyRounds);
    }, 400);
  };

  /** `fresh`: subscribe again even when shown, for a new snapshot (the games of a round just started). */
  const selectRound = (n: number, fresh = false): void => {
    if (n === selected && !fresh) return;
    selected = n;
    for (const [k, row] of roundRows) row.setSelected(k === n);
    const url = new URL(location.href);
    url.searchParams.set('round', String(n));
    history.replaceState(null, '', url.toString());
    setText(gamesTitle, `${i18n.t('games')} · ${i18n.t('round')} ${n}`);
    if (!fresh) {
      unsubscribe?.();
      rows.clear();
      gameRows.replaceChildren();
      showEmpty();
    }
    unsubscribe = feed.subscribe(
      { kind: 'round', round: n },
      {
        snapshot(body) {
          if (body.kind !== 'round' || selected !== n) return;
          title.textContent = `${i18n.t('arbiterDesk')} — ${body.tournament.name}`;
          // Keep the rows (and any message or reason typed in them); drop games no longer listed.
          const ids = new Set(body.games.map((g) => g.id));
          for (const [id, row] of rows)
            if (!ids.has(id)) {
              row.el.remove();
              rows.delete(id);
            }
          for (const g of body.games) placeRow(g);
          showEmpty();
        },
        delta(change) {
          if (selected !== n) return;
          if (change.kind === 'game') placeRow(change.summary);
          else {
            const row = rows.get(change.gameId);
            if (row) {
              applyToSummary(row.game, change);
              row.render();
            }
          }
          if (change.kind === 'game' || change.kind === 'result' || change.kind === 'takeback') refreshRoundsSoon();
        },
      },
    );
  };

  const desk = {
    selectRound,
    roundChanged(r: RoundStartClose): void {
      applyRounds([r.round]);
      const shown = r.round.round === selected;
      selectRound(r.round.round, shown);
      for (const g of r.games) placeRow(g);
      refreshRoundsSoon();
    },
  };

  const rounds = await fetchRounds();
  applyRounds(rounds);
  selectRound(await chooseRound(rounds));
  // Also catches a round started or closed from another desk or `boardcast round`.
  setInterval(() => void fetchRounds().then(applyRounds), 10_000);
}

/**
 * The arbiter's controls on a game page: result buttons, reinstating the position after the move
 * selected in the move list (FIDE Laws 7.5.1: an illegal move noticed later is corrected from the
 * position before it), and a new position from a FEN (an adjourned or set-up game).
 */
export class GameArbiterPanel {
  readonly el: HTMLElement;
  private game: GameState | null = null;
  private selectedPly: number | null = null;
  private readonly reinstateBtn: HTMLButtonElement;
  private readonly reinstateWhat = h('div', { class: 'reinstate-what' });
  private readonly reinstateMsg = new ActionMessage();
  private readonly fen: HTMLInputElement;
  private readonly fenBtn: HTMLButtonElement;
  private readonly fenMsg = new ActionMessage();
  readonly results: ResultControls;
  readonly amendments: AmendmentList;
  private readonly amend: AmendControls;

  constructor(
    private readonly ctx: ArbiterContext,
    private readonly gameId: string,
    private readonly hooks: {
      /** After a reinstate: the page leaves its review of the old moves. */
      reinstated(): void;
      /**
       * After a new position: the page should take a fresh snapshot, because the feed carries
       * a set position only as a takeback to ply 0, which clients apply onto the old start FEN.
       */
      positionSet(): void;
    },
  ) {
    const { i18n } = ctx;
    this.amendments = new AmendmentList(ctx, gameId);
    this.results = new ResultControls(
      ctx,
      gameId,
      () => this.game?.result ?? '*',
      () => void this.amendments.refresh(),
    );
    this.amend = new AmendControls(ctx, gameId, () => void this.amendments.refresh());
    this.reinstateBtn = h('button', { type: 'button', class: 'reinstate-btn' }, i18n.t('reinstate'));
    this.reinstateBtn.onclick = () => this.askReinstate();
    this.fen = h('input', {
      type: 'text',
      class: 'fen-input',
      placeholder: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
      spellcheck: 'false',
      autocomplete: 'off',
      'aria-label': i18n.t('setPosition'),
    });
    this.fenBtn = h('button', { type: 'button', class: 'fen-btn' }, i18n.t('setPositionButton'));
    this.fenBtn.onclick = () => this.askPosition();
    this.el = h(
      'section',
      { class: 'arbiter-actions' },
      h('h2', {}, i18n.t('arbiterActions')),
      sessionBar(this.ctx),
      h('h3', {}, i18n.t('resultButtons')),
      this.results.el,
      this.amendments.el,
      this.reinstateWhat,
      this.reinstateBtn,
      this.reinstateMsg.el,
      h('h3', {}, i18n.t('setPosition')),
      h('div', { class: 'fen-row' }, this.fen, this.fenBtn),
      this.fenMsg.el,
      this.amend.el,
    );
    this.update(null, null);
    void this.amendments.refresh();
  }

  /** The game as shown and the ply selected in the move list (null: following the game). */
  update(game: GameState | null, selectedPly: number | null): void {
    this.game = game;
    this.selectedPly = selectedPly;
    this.amend.update(game, selectedPly);
    const ply = this.selectablePly();
    this.reinstateBtn.disabled = ply === null;
    if (ply === null || !game) {
      setText(this.reinstateWhat, this.ctx.i18n.t('reinstateHint'));
      this.reinstateWhat.dataset.ply = '';
      return;
    }
    const move = ply > 0 ? game.moves[ply - 1] : undefined;
    const label = move ? `${moveNumberLabel(move.fenAfter, move.san)} ${this.ctx.i18n.san(move.san)}` : game.startFen.split(' ')[0]!;
    setText(this.reinstateWhat, `${label} (${ply}/${game.moves.length})`);
    this.reinstateWhat.dataset.ply = String(ply);
  }

  /** A reinstate needs an earlier ply selected: at the last move there is nothing to take back. */
  private selectablePly(): number | null {
    if (!this.game || this.selectedPly === null || this.selectedPly >= this.game.moves.length) return null;
    return this.selectedPly;
  }

  private askReinstate(): void {
    const ply = this.selectablePly();
    if (ply === null || !this.game) return;
    const { i18n } = this.ctx;
    const n = this.game.moves.length - ply;
    this.reinstateMsg.confirm(i18n.t('takeBack').replace('{n}', String(n)), i18n.t('confirm'), i18n.t('cancel'), () => void this.reinstate(ply));
  }

  private async reinstate(ply: number): Promise<void> {
    const done = await act([this.reinstateBtn], this.reinstateMsg, this.ctx.i18n, () => arbiterPost<GameState>(this.ctx, `games/${encodeURIComponent(this.gameId)}/reinstate`, { ply }));
    if (!done) return;
    this.reinstateMsg.done(this.ctx.i18n.t('done'));
    void this.amendments.refresh();
    this.hooks.reinstated();
  }

  private askPosition(): void {
    const fen = this.fen.value.trim();
    const { i18n } = this.ctx;
    if (!fen) {
      this.fenMsg.error(i18n.t('setPosition'));
      return;
    }
    this.fenMsg.confirm(i18n.t('confirmPosition'), i18n.t('confirm'), i18n.t('cancel'), () => void this.setPosition(fen));
  }

  private async setPosition(fen: string): Promise<void> {
    const done = await act([this.fenBtn], this.fenMsg, this.ctx.i18n, () => arbiterPost<GameState>(this.ctx, `games/${encodeURIComponent(this.gameId)}/position`, { fen }));
    if (!done) return;
    this.fen.value = '';
    this.fenMsg.done(this.ctx.i18n.t('done'));
    void this.amendments.refresh();
    this.hooks.positionSet();
  }
}

/** One amendment as GET /api/arbiter/games/:id/amendments lists it. */
interface AmendmentItem {
  id: number;
  at: number;
  arbiter: string;
  action: string;
  reason: string;
  undone: boolean;
  undoes?: number;
}

/**
 * A game's amendments (the audit trail: when, who, what, why), each in force with an Undo button.
 * An undo asks for its reason and a confirmation; the game is derived again without the amendment
 * and the feed brings the page the game as it is now.
 */
export class AmendmentList {
  readonly el: HTMLElement;
  private readonly list = h('ol', { class: 'amendment-list' });
  private readonly reason: HTMLInputElement;
  readonly msg = new ActionMessage();

  constructor(
    private readonly ctx: ArbiterContext,
    private readonly gameId: string,
  ) {
    const { i18n } = ctx;
    this.reason = h('input', { type: 'text', class: 'undo-reason', placeholder: i18n.t('undoReason'), 'aria-label': i18n.t('undoReason'), maxlength: '500' });
    this.el = h('section', { class: 'amendments' }, h('h3', {}, i18n.t('amendments')), this.list, this.reason, this.msg.el);
  }

  async refresh(): Promise<void> {
    let items: AmendmentItem[];
    try {
      const res = await fetch(`/api/arbiter/games/${encodeURIComponent(this.gameId)}/amendments`);
      if (res.status === 401) this.ctx.onUnauthorized(this.ctx.i18n.t('sessionEnded'));
      if (!res.ok) return;
      items = (await res.json()) as AmendmentItem[];
    } catch {
      return;
    }
    const { i18n } = this.ctx;
    if (items.length === 0) {
      this.list.replaceChildren(h('li', { class: 'none' }, i18n.t('noAmendments')));
      return;
    }
    this.list.replaceChildren(
      ...items.map((a) => {
        const time = new Date(a.at).toLocaleTimeString();
        const what = `${a.action}${a.undoes !== undefined ? ` #${a.undoes}` : ''}`;
        const li = h('li', { class: 'amendment', 'data-id': String(a.id), 'data-action': a.action, 'data-undone': String(a.undone) }, `#${a.id} ${time} · ${a.arbiter} · ${what} · ${a.reason}`);
        if (a.undone) li.append(h('span', { class: 'undone-mark' }, ` (${i18n.t('undone')})`));
        else {
          const b = h('button', { type: 'button', class: 'undo-btn' }, i18n.t('undo'));
          b.onclick = () => this.askUndo(a.id, b);
          li.append(' ', b);
        }
        return li;
      }),
    );
  }

  private askUndo(id: number, button: HTMLButtonElement): void {
    const { i18n } = this.ctx;
    const reason = this.reason.value.trim();
    if (!reason) {
      this.msg.error(i18n.t('undoReason'));
      this.reason.focus();
      return;
    }
    this.msg.confirm(`#${id}: ${i18n.t('confirmUndo')}`, i18n.t('confirm'), i18n.t('cancel'), () => void this.undo(id, reason, button));
  }

  private async undo(id: number, reason: string, button: HTMLButtonElement): Promise<void> {
    const done = await act([button], this.msg, this.ctx.i18n, () => arbiterPost<GameState>(this.ctx, `games/${encodeURIComponent(this.gameId)}/undo`, { amendment: id, reason }));
    if (!done) return;
    this.reason.value = '';
    this.msg.done(this.ctx.i18n.t('done'));
    await this.refresh();
  }
}
