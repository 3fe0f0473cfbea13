import type { GameSummary, RoundInfo } from '../../protocols/feed/model.ts';
import { applyToSummary } from '../../protocols/feed/apply.ts';
import { BoardView } from './board.ts';
import { h, setText } from './dom.ts';
import type { FeedClient } from './feed-client.ts';
import type { I18n } from './i18n.ts';
import { moveNumberLabel, PlayerRow, turnOf } from './players.ts';
import { header } from './shell.ts';

export async function fetchRounds(): Promise<RoundInfo[]> {
  try {
    return (await (await fetch('/api/rounds')).json()) as RoundInfo[];
  } catch {
    return [];
  }
}

/** The round a visitor most likely wants: `?round=`, else the live one, else the last started. */
export async function chooseRound(rounds?: RoundInfo[]): Promise<number> {
  const asked = Number(new URLSearchParams(location.search).get('round'));
  if (Number.isInteger(asked) && asked > 0) return asked;
  const all = rounds ?? (await fetchRounds());
  const live = all.filter((r) => r.status === 'live').at(-1);
  const started = all.filter((r) => r.status !== 'upcoming');
  return live?.round ?? started[started.length - 1]?.round ?? all[0]?.round ?? 1;
}

/** Links to the rounds that have games, the shown one marked. */
function roundNav(rounds: RoundInfo[], current: number, i18n: I18n): HTMLElement {
  const nav = h('nav', { class: 'rounds', 'aria-label': i18n.t('round') });
  for (const r of rounds) {
    if (r.gameCount === 0) continue;
    const a = h('a', { href: `/?round=${r.round}`, class: r.round === current ? 'current' : '' }, String(r.round));
    if (r.status === 'live') a.classList.add('live');
    nav.append(a);
  }
  return nav;
}

class TableCard {
  readonly el: HTMLElement;
  private readonly board = new BoardView({ coordinates: false });
  private readonly white = new PlayerRow('white');
  private readonly black = new PlayerRow('black');
  private readonly result = h('span', { class: 'result' });
  private readonly last = h('span', { class: 'card-last' });

  constructor(
    public game: GameSummary,
    private readonly i18n: I18n,
  ) {
    this.el = h(
      'a',
      { class: 'table-card', href: `/game/${encodeURIComponent(game.id)}`, 'data-game': game.id },
      h('div', { class: 'card-head' }, h('span', { class: 'table-no' }, `${i18n.t('table')} ${game.table}`), this.last, this.result),
      this.black.el,
      this.board.el,
      this.white.el,
    );
    this.setPlayers();
    this.render();
  }

  setPlayers(): void {
    this.white.setPlayer(this.game.white);
    this.black.setPlayer(this.game.black);
    this.el.querySelector('.table-no')!.textContent = `${this.i18n.t('table')} ${this.game.table}`;
  }

  render(): void {
    const g = this.game;
    // While the record cannot follow the board, the board itself is shown (never a frozen one).
    this.board.show(g.boardShown ?? g.fen, g.boardShown ? null : g.lastMove?.uci);
    setText(this.result, g.result === '*' ? '' : g.result);
    setText(this.last, g.lastMove ? `${moveNumberLabel(g.fen, g.lastMove.san)} ${this.i18n.san(g.lastMove.san)}` : '');
    this.el.dataset.ply = String(g.ply);
  }

  tick(serverNow: number): void {
    const g = this.game;
    const live = g.status === 'live' && g.result === '*';
    const turn = turnOf(g.fen);
    this.white.setClock(g.clock, serverNow, live && turn === 'white', g.result !== '*');
    this.black.setClock(g.clock, serverNow, live && turn === 'black', g.result !== '*');
  }
}

/** Every table of a round, live: mini board, players, clocks, result. */
export async function overviewPage(root: HTMLElement, i18n: I18n, feed: FeedClient): Promise<void> {
  const rounds = await fetchRounds();
  const round = await chooseRound(rounds);
  const title = h('h1', {}, `${i18n.t('round')} ${round}`);
  const grid = h('main', { class: 'overview-grid' });
  root.append(header(i18n, feed, title), roundNav(rounds, round, i18n), grid);
  const cards = new Map<string, TableCard>();
  /** A game published or re-paired during the round: add, move or update its card. */
  const placeCard = (g: GameSummary): void => {
    const existing = cards.get(g.id);
    if (g.round !== round) {
      existing?.el.remove();
      cards.delete(g.id);
      return;
    }
    const card = existing ?? new TableCard(g, i18n);
    card.game = g;
    card.setPlayers();
    card.render();
    cards.set(g.id, card);
    const after = [...cards.values()].filter((c) => c !== card && c.game.table > g.table).sort((a, b) => a.game.table - b.game.table)[0];
    grid.insertBefore(card.el, after?.el ?? null);
  };
  feed.subscribe(
    { kind: 'round', round },
    {
      snapshot(body) {
        if (body.kind !== 'round') return;
        title.textContent = `${body.tournament.name} — ${i18n.t('round')} ${round}`;
        document.title = `${body.tournament.name} · ${i18n.t('round')} ${round}`;
        grid.replaceChildren();
        cards.clear();
        for (const g of body.games) {
          const card = new TableCard(g, i18n);
          cards.set(g.id, card);
          grid.append(card.el);
        }
      },
      delta(change) {
        if (change.kind === 'game') {
          placeCard(change.summary);
          return;
        }
        const card = cards.get(change.gameId);
        if (!card) return;
        applyToSummary(card.game, change);
        card.render();
      },
    },
  );
  setInterval(() => {
    const now = feed.serverNow();
    for (const c of cards.values()) c.tick(now);
  }, 200);
}
