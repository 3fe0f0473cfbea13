import type { GameSummary } from '../../protocols/feed/model.ts';
import { applyToSummary } from '../../protocols/feed/apply.ts';
import { BoardView } from './board.ts';
import { h, setText } from './dom.ts';
import type { FeedClient } from './feed-client.ts';
import type { I18n } from './i18n.ts';
import { chooseRound } from './overview.ts';
import { moveNumberLabel, PlayerRow, turnOf } from './players.ts';

/**
 * Demonstration board for screens in the hall: one large board, names and clocks big enough to
 * read from 10 m. URL: /demo?round=1&tables=1,3,5&rotate=20 (seconds per table; no rotate: the
 * first table stays). Click or press F to go full screen.
 */
export async function demoPage(root: HTMLElement, i18n: I18n, feed: FeedClient): Promise<void> {
  document.body.classList.add('demo-body');
  const params = new URLSearchParams(location.search);
  const wanted = (params.get('tables') ?? '')
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
  const rotateS = Number(params.get('rotate') ?? '0');
  const round = await chooseRound();

  const board = new BoardView();
  const white = new PlayerRow('white');
  const black = new PlayerRow('black');
  const tableNo = h('div', { class: 'demo-table' });
  const lastMove = h('div', { class: 'demo-last' });
  const result = h('div', { class: 'demo-result' });
  root.append(h('main', { class: 'demo' }, h('div', { class: 'demo-board' }, board.el), h('aside', { class: 'demo-side' }, tableNo, black.el, lastMove, result, white.el)));
  root.addEventListener('click', () => void document.documentElement.requestFullscreen?.().catch(() => undefined));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'f' || e.key === 'F') void document.documentElement.requestFullscreen?.().catch(() => undefined);
  });

  const games = new Map<string, GameSummary>();
  let order: string[] = [];
  let index = 0;
  const current = (): GameSummary | undefined => games.get(order[index % Math.max(1, order.length)] ?? '');

  const render = (): void => {
    const g = current();
    if (!g) return;
    root.dataset.game = g.id;
    setText(tableNo, `${i18n.t('round')} ${g.round} · ${i18n.t('table')} ${g.table}`);
    white.setPlayer(g.white);
    black.setPlayer(g.black);
    // While the record cannot follow the board, the board itself is shown (never a frozen one).
    board.show(g.boardShown ?? g.fen, g.boardShown ? null : g.lastMove?.uci);
    setText(lastMove, g.lastMove ? `${moveNumberLabel(g.fen, g.lastMove.san)} ${i18n.san(g.lastMove.san)}` : '');
    setText(result, g.result === '*' ? '' : g.result);
  };

  feed.subscribe(
    { kind: 'round', round },
    {
      snapshot(body) {
        if (body.kind !== 'round') return;
        games.clear();
        for (const g of body.games) games.set(g.id, g);
        const chosen = wanted.length ? body.games.filter((g) => wanted.includes(g.table)) : body.games.slice(0, 1);
        order = (chosen.length ? chosen : body.games.slice(0, 1)).map((g) => g.id);
        render();
      },
      delta(change) {
        if (change.kind === 'game') {
          if (change.summary.round === round) games.set(change.gameId, change.summary);
          if (current()?.id === change.gameId) render();
          return;
        }
        const g = games.get(change.gameId);
        if (!g) return;
        applyToSummary(g, change);
        if (current()?.id === g.id) render();
      },
    },
  );
  if (rotateS > 0) {
    setInterval(() => {
      if (order.length < 2) return;
      index = (index + 1) % order.length;
      render();
    }, rotateS * 1000);
  }
  setInterval(() => {
    const g = current();
    if (!g) return;
    const live = g.result === '*' && g.status === 'live';
    const turn = turnOf(g.fen);
    white.setClock(g.clock, feed.serverNow(), live && turn === 'white', g.result !== '*');
    black.setClock(g.clock, feed.serverNow(), live && turn === 'black', g.result !== '*');
  }, 100);
  window.addEventListener('resize', () => board.redraw());
}
