import type { GameState } from '../../protocols/feed/model.ts';
import { applyToGame, moverAt } from '../../protocols/feed/apply.ts';
import { GameArbiterPanel, showSessionEnded } from './arbiter-desk.ts';
import { replayText } from './replay-i18n.ts';
import { BoardView } from './board.ts';
import { h, setText } from './dom.ts';
import type { FeedClient } from './feed-client.ts';
import type { I18n } from './i18n.ts';
import { PlayerRow, turnOf } from './players.ts';
import { header } from './shell.ts';

/** The arbiter's replay of `gameId` opened at incident `incidentId` (keeping the language). */
function incidentReplayHref(gameId: string, incidentId: number): string {
  const q = new URLSearchParams({ incident: String(incidentId) });
  const lang = new URLSearchParams(location.search).get('lang');
  if (lang) q.set('lang', lang);
  return `/arbiter/replay/${encodeURIComponent(gameId)}?${q.toString()}`;
}

/**
 * One game: board with the last move highlighted, clickable SAN move list (reviewing an earlier
 * position stops following the game until "back to live"), ticking clocks, players, result and
 * termination; for a logged-in arbiter also the incidents with their FIDE article and consequence,
 * and the arbiter's controls (result, reinstate after the selected move, set a position).
 */
export function gamePage(root: HTMLElement, i18n: I18n, feed: FeedClient, gameId: string, arbiter: boolean): void {
  const title = h('h1', {}, '');
  const board = new BoardView();
  const white = new PlayerRow('white');
  const black = new PlayerRow('black');
  const resultLine = h('div', { class: 'result-line' });
  const moveList = h('ol', { class: 'moves' });
  const backToLive = h('button', { class: 'back-live', type: 'button', hidden: '' }, `⏵ ${i18n.t('backToLive')}`);
  const reviewNote = h('div', { class: 'review-note' });
  const pgnLink = h('a', { class: 'pgn-link', href: `/api/games/${encodeURIComponent(gameId)}/pgn`, download: `${gameId}.pgn` }, 'PGN');
  const incidents = h('section', { class: 'incidents' });
  const side = h('aside', { class: 'game-side' }, black.el, resultLine, h('div', { class: 'moves-head' }, h('h2', {}, i18n.t('moves')), backToLive, pgnLink), reviewNote, moveList, white.el);
  const authBanner = h('div', { class: 'auth-banner', role: 'alert', hidden: '' });
  let panel: GameArbiterPanel | null = null;
  if (arbiter) {
    const ctx = {
      i18n,
      onUnauthorized: (m: string) => showSessionEnded(authBanner, i18n, m),
    };
    panel = new GameArbiterPanel(ctx, gameId, {
      reinstated: () => {
        reviewPly = null;
        showBoard();
      },
      positionSet: () => {
        reviewPly = null;
        follow();
      },
    });
    side.append(panel.el, incidents);
  }
  const deskLink = arbiter ? h('a', { class: 'desk-link', href: '/arbiter' }, `‹ ${i18n.t('arbiterDesk')}`) : null;
  // The arbiter's replay of this game: every stored board event beside what the engine made of it.
  const replayLink = arbiter ? h('a', { class: 'replay-link', href: `/arbiter/replay/${encodeURIComponent(gameId)}` }, `${replayText(i18n.lang, 'replay')} ›`) : null;
  root.append(header(i18n, feed, title), ...(arbiter ? [authBanner] : []), h('main', { class: 'game-page' }, h('div', { class: 'game-board' }, deskLink, replayLink, board.el), side));

  let game: GameState | null = null;
  /** null: following the game; otherwise the ply being reviewed (0 = start position). */
  let reviewPly: number | null = null;

  const showBoard = (): void => {
    if (!game) return;
    const ply = reviewPly ?? game.moves.length;
    const move = ply > 0 ? game.moves[ply - 1] : undefined;
    const fen = move ? move.fenAfter : game.startFen;
    // Following live while the record cannot follow the board: the board as it stands.
    const shown = reviewPly === null ? game.boardShown : undefined;
    if (shown !== undefined) board.show(shown, null);
    else board.show(fen, move?.uci, move ? /[+#]$/.test(move.san) : false);
    backToLive.hidden = reviewPly === null;
    setText(reviewNote, reviewPly !== null ? `${i18n.t('reviewing')} ${reviewPly}/${game.moves.length}` : shown !== undefined ? i18n.t('boardOutOfStep') : '');
    for (const li of moveList.querySelectorAll('.san')) li.classList.toggle('current', Number((li as HTMLElement).dataset.ply) === ply);
    panel?.update(game, reviewPly);
  };

  const renderMoves = (): void => {
    if (!game) return;
    moveList.replaceChildren();
    let row: HTMLElement | null = null;
    game.moves.forEach((m, i) => {
      // Who moved and the move number come from the position before the move: after a break in the
      // record (a ply with no move) the plies' parity no longer tells.
      const isBlack = m.gap ? turnOf(m.fenAfter) === 'white' : moverAt(game!, i) === 'black';
      const number = Number((i === 0 ? game!.startFen : game!.moves[i - 1]!.fenAfter).split(' ')[5] ?? '1') || 1;
      if (m.gap) {
        row = h('li', { class: 'move-row gap' }, h('span', { class: 'no' }, ''));
        moveList.append(row);
        row = null;
      } else if (!row || !isBlack) {
        row = h('li', { class: 'move-row' }, h('span', { class: 'no' }, `${number}.`));
        if (isBlack) row.append(h('span', { class: 'san empty' }, '…'));
        moveList.append(row);
      }
      // A move inferred from a jump that several orders explain is marked, with what else fits.
      const u = m.uncertain;
      const cell = h(
        'button',
        {
          class: m.gap ? 'san gap' : u ? 'san uncertain' : 'san',
          ...(m.gap ? { title: i18n.t(m.gap.accepted ? 'recordBreakAccepted' : 'recordBreak') } : {}),
          type: 'button',
          'data-ply': String(m.ply),
          ...(u
            ? {
                title: `${i18n.t('uncertainOrder')} ${u.candidates
                  .slice(1, 4)
                  .map((c) => c.map((x) => i18n.san(x)).join(' '))
                  .join('; ')}`,
              }
            : {}),
        },
        m.gap ? '⋯' : i18n.san(m.san),
      );
      cell.onclick = () => {
        reviewPly = m.ply === game!.moves.length ? null : m.ply;
        showBoard();
      };
      if (m.gap) moveList.lastElementChild!.append(cell);
      else row!.append(cell);
    });
    if (reviewPly === null) moveList.scrollTop = moveList.scrollHeight;
  };

  const renderResult = (): void => {
    if (!game) return;
    const text =
      game.result === '*' ? (game.status === 'pending' ? i18n.t('notStarted') : i18n.t('inProgress')) : `${game.result}${game.termination ? ` · ${i18n.termination(game.termination)}` : ''}`;
    setText(resultLine, text);
    resultLine.classList.toggle('final', game.result !== '*');
  };

  const renderIncidents = (): void => {
    if (!game || !arbiter) return;
    const items = game.incidents.map((inc) =>
      h(
        'li',
        { class: 'incident', 'data-kind': inc.kind },
        h(
          'div',
          { class: 'inc-head' },
          h('span', { class: 'inc-ply' }, `#${inc.ply}`),
          h('strong', {}, inc.kind),
          inc.article ? h('span', { class: 'inc-art' }, `${i18n.t('article')} ${inc.article}`) : null,
        ),
        h('div', { class: 'inc-msg' }, inc.message),
        inc.consequence ? h('div', { class: 'inc-cons' }, `${i18n.t('consequence')}: ${inc.consequence}`) : null,
        // The evidence first (docs/arbiter.md): the replay opens at the step this incident arose at.
        h('a', { class: 'inc-replay', href: incidentReplayHref(gameId, inc.id) }, `${replayText(i18n.lang, 'inReplay')} ›`),
      ),
    );
    incidents.replaceChildren(h('h2', {}, i18n.t('incidents')), items.length ? h('ol', {}, ...items) : h('p', {}, i18n.t('noIncidents')));
  };

  /** The whole page from `game`: a snapshot, or the game derived again. */
  const renderAll = (): void => {
    if (!game) return;
    title.textContent = `${game.white.name} – ${game.black.name}`;
    if (deskLink) deskLink.href = `/arbiter?round=${game.round}`;
    document.title = `${game.white.name} – ${game.black.name}`;
    white.setPlayer(game.white);
    black.setPlayer(game.black);
    if (reviewPly !== null && reviewPly > game.moves.length) reviewPly = null;
    renderMoves();
    renderResult();
    renderIncidents();
    showBoard();
  };

  backToLive.onclick = () => {
    reviewPly = null;
    showBoard();
  };
  document.addEventListener('keydown', (e) => {
    if (!game) return;
    const cur = reviewPly ?? game.moves.length;
    if (e.key === 'ArrowLeft') reviewPly = Math.max(0, cur - 1);
    else if (e.key === 'ArrowRight') reviewPly = cur + 1 >= game.moves.length ? null : cur + 1;
    else if (e.key === 'End') reviewPly = null;
    else return;
    showBoard();
  });

  /** Subscribing again (same scope) replaces the subscription and brings a fresh snapshot. */
  const follow = (): void =>
    void feed.subscribe(
      { kind: 'game', gameId },
      {
        snapshot(body) {
          if (body.kind !== 'game') return;
          game = body.game;
          renderAll();
        },
        delta(change) {
          if (!game) return;
          applyToGame(game, change);
          // The game derived again (an undo, colours swapped): everything may have changed, the
          // result and the moves included, with nothing else to follow.
          if (change.kind === 'game') {
            renderAll();
            return;
          }
          if (reviewPly !== null && reviewPly > game.moves.length) reviewPly = null;
          if (change.kind === 'move' || change.kind === 'amendment' || change.kind === 'takeback') {
            renderMoves();
            showBoard();
          }
          if (change.kind === 'board') showBoard();
          if (change.kind === 'result' || change.kind === 'move') renderResult();
          if (change.kind === 'incident') renderIncidents();
        },
      },
    );
  follow();
  void fetch(`/api/games/${encodeURIComponent(gameId)}`).then((r) => {
    if (r.status === 404) root.append(h('p', { class: 'error' }, i18n.t('unknownGame')));
  });
  setInterval(() => {
    if (!game) return;
    const live = game.result === '*' && game.status === 'live';
    const turn = turnOf(game.moves.length ? game.moves[game.moves.length - 1]!.fenAfter : game.startFen);
    const now = feed.serverNow();
    white.setClock(game.clock, now, live && turn === 'white', game.result !== '*');
    black.setClock(game.clock, now, live && turn === 'black', game.result !== '*');
  }, 100);
  window.addEventListener('resize', () => board.redraw());
}
