import type { GameState, MoveRecord } from '../../protocols/feed/model.ts';
import { act, ActionMessage, arbiterPost, type ArbiterContext } from './arbiter-request.ts';
import { h } from './dom.ts';
import type { Lang } from './i18n.ts';

// The amendments of the arbiter's game page beyond result, reinstate and set position
// (docs/arbiter.md, "Amendments"): the moves at a break or of an inferred span, the board's
// position accepted, colours swapped, a clock reading corrected, a Chess960 start. Each is
// `POST /api/arbiter/games/:id/<action>` with a reason; the answer is the game as it is now.

const TEXT = {
  amend: { en: 'Amend the record' },
  reason: { en: 'Reason (required)' },
  breakAt: { en: 'Break in the record at ply' },
  fillBreak: { en: 'Fill the break with the moves played' },
  acceptBoard: { en: "Accept the board's position" },
  uncertainAt: { en: 'Inferred moves, several orders fit: plies' },
  pickOrder: { en: 'Pick this order' },
  movesFrom: { en: 'Moves after the selected ply (SAN, space-separated)' },
  replaces: { en: 'Plies replaced (empty: all after it)' },
  setMoves: { en: 'Set the moves' },
  swapColours: { en: 'Swap colours' },
  clock: { en: 'Correct a clock reading' },
  clockOfPly: { en: "of the selected ply's move (its %clk)" },
  clockNow: { en: 'as it stands now' },
  white: { en: 'White h:mm:ss' },
  black: { en: 'Black h:mm:ss' },
  correctClock: { en: 'Correct' },
  chess960: { en: 'Mark Chess960' },
  chess960Start: { en: 'Start position: number 0–959 or a FEN' },
  markChess960: { en: 'Mark' },
  done: { en: 'done' },
  badTime: { en: 'a time is h:mm:ss, m:ss or seconds' },
  noSans: { en: 'enter the moves in SAN' },
} as const satisfies Record<string, { en: string } & Partial<Record<Lang, string>>>;

type Key = keyof typeof TEXT;

/** "1:30:00", "45:10", "90" → ms; null when it is no time. */
export function parseClockText(text: string): number | null {
  const parts = text.trim().split(':');
  if (parts.length === 0 || parts.length > 3 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) return null;
  return Math.round(parts.reduce((acc, p) => acc * 60 + Number(p), 0) * 1000);
}

/** The amendment controls of one game; `update` shows the ones that apply to the game as it is. */
export class AmendControls {
  readonly el: HTMLElement;
  private game: GameState | null = null;
  private selectedPly: number | null = null;
  private readonly reason: HTMLInputElement;
  private readonly gapBox = h('div', { class: 'amend-gap' });
  private readonly uncertainBox = h('div', { class: 'amend-uncertain' });
  private readonly sans: HTMLInputElement;
  private readonly replaces: HTMLInputElement;
  private readonly movesWhat = h('span', { class: 'amend-moves-from' });
  private readonly clockPly: HTMLSelectElement;
  private readonly white: HTMLInputElement;
  private readonly black: HTMLInputElement;
  private readonly chess960: HTMLInputElement;
  private readonly msg = new ActionMessage();
  private readonly buttons: HTMLButtonElement[] = [];

  constructor(
    private readonly ctx: ArbiterContext,
    private readonly gameId: string,
    /** After any amendment: the audit trail is read again. */
    private readonly done: () => void,
  ) {
    const input = (cls: string, label: Key): HTMLInputElement =>
      h('input', { type: 'text', class: cls, placeholder: this.t(label), 'aria-label': this.t(label), autocomplete: 'off', spellcheck: 'false' });
    this.reason = input('amend-reason', 'reason');
    this.sans = input('amend-sans', 'movesFrom');
    this.replaces = input('amend-replaces', 'replaces');
    this.white = input('amend-white', 'white');
    this.black = input('amend-black', 'black');
    this.chess960 = input('amend-chess960', 'chess960Start');
    this.clockPly = h('select', { class: 'amend-clock-at', 'aria-label': this.t('clock') }, h('option', { value: 'ply' }, this.t('clockOfPly')), h('option', { value: 'now' }, this.t('clockNow')));
    const setMoves = this.button('amend-set-moves', 'setMoves', () => this.setMoves());
    const swap = this.button('amend-swap', 'swapColours', () => void this.post('swap-colours', {}));
    const clock = this.button('amend-clock', 'correctClock', () => this.correctClock());
    const mark = this.button('amend-mark-960', 'markChess960', () => this.markChess960());
    this.el = h(
      'section',
      { class: 'amend-controls' },
      h('h3', {}, this.t('amend')),
      this.reason,
      this.gapBox,
      this.uncertainBox,
      h('div', { class: 'amend-row' }, this.movesWhat, this.sans, this.replaces, setMoves),
      h('div', { class: 'amend-row' }, swap),
      h('div', { class: 'amend-row' }, h('span', {}, this.t('clock')), this.clockPly, this.white, this.black, clock),
      h('div', { class: 'amend-row' }, this.chess960, mark),
      this.msg.el,
    );
  }

  private t(key: Key): string {
    const text: Partial<Record<Lang, string>> & { en: string } = TEXT[key];
    return text[this.ctx.i18n.lang] ?? text.en;
  }

  /** `lasting`: one of the panel's own buttons (disabled while a request runs); the rows `update` redraws make theirs anew. */
  private button(cls: string, label: Key, run: () => void, lasting = true): HTMLButtonElement {
    const b = h('button', { type: 'button', class: cls }, this.t(label));
    b.onclick = run;
    if (lasting) this.buttons.push(b);
    return b;
  }

  /** The game as shown and the ply selected in its move list (null: the last). */
  update(game: GameState | null, selectedPly: number | null): void {
    this.game = game;
    this.selectedPly = selectedPly;
    const moves = game?.moves ?? [];
    // A break: fill it (the moves replace the "--" ply) or accept the board there.
    const gaps = moves.filter((m) => m.gap !== undefined && !m.gap.accepted);
    this.gapBox.replaceChildren(
      ...gaps.map((m) => {
        const fill = this.button('amend-fill-gap', 'fillBreak', () => this.fillGap(m), false);
        const accept = this.button('amend-accept-board', 'acceptBoard', () => void this.post('accept-board', { ply: m.ply }), false);
        return h('div', { class: 'amend-row', 'data-ply': String(m.ply) }, `${this.t('breakAt')} ${m.ply}: `, fill, accept);
      }),
    );
    // An inferred span several orders explain: each order one click.
    const spans = new Map<number, NonNullable<MoveRecord['uncertain']>>();
    for (const m of moves) if (m.uncertain) spans.set(m.uncertain.firstPly, m.uncertain);
    this.uncertainBox.replaceChildren(
      ...[...spans.values()].map((u) =>
        h(
          'div',
          { class: 'amend-row', 'data-first-ply': String(u.firstPly) },
          `${this.t('uncertainAt')} ${u.firstPly}–${u.firstPly + u.plies - 1}: `,
          ...u.candidates.map((c, i) =>
            h(
              'span',
              { class: 'amend-candidate' },
              `${c.join(' ')} `,
              i === 0 ? '✓ ' : this.button('amend-pick-order', 'pickOrder', () => void this.post('moves', { fromPly: u.firstPly - 1, sans: c, replaces: u.plies }), false),
              ' ',
            ),
          ),
        ),
      ),
    );
    this.movesWhat.textContent = `${this.fromPly()}: `;
  }

  private fromPly(): number {
    return this.selectedPly ?? this.game?.moves.length ?? 0;
  }

  private fillGap(m: MoveRecord): void {
    const sans = this.sans.value.trim().split(/\s+/).filter(Boolean);
    if (sans.length === 0) return this.msg.error(this.t('noSans'));
    void this.post('moves', { fromPly: m.ply - 1, sans, replaces: 1 });
  }

  private setMoves(): void {
    const sans = this.sans.value.trim().split(/\s+/).filter(Boolean);
    if (sans.length === 0) return this.msg.error(this.t('noSans'));
    const replaces = this.replaces.value.trim();
    void this.post('moves', { fromPly: this.fromPly(), sans, ...(replaces ? { replaces: Number(replaces) } : {}) });
  }

  private correctClock(): void {
    const body: Record<string, unknown> = {};
    for (const [field, el] of [
      ['whiteMs', this.white],
      ['blackMs', this.black],
    ] as const) {
      if (!el.value.trim()) continue;
      const ms = parseClockText(el.value);
      if (ms === null) return this.msg.error(this.t('badTime'));
      body[field] = ms;
    }
    const ply = this.selectedPly ?? this.game?.moves.length ?? 0;
    if (this.clockPly.value === 'ply' && ply > 0) body.ply = ply;
    void this.post('clock', body);
  }

  private markChess960(): void {
    const v = this.chess960.value.trim();
    void this.post('chess960', /^\d{1,3}$/.test(v) ? { position: Number(v) } : { fen: v });
  }

  private async post(action: string, body: Record<string, unknown>): Promise<void> {
    const reason = this.reason.value.trim();
    const done = await act(this.buttons, this.msg, this.ctx.i18n, () =>
      arbiterPost<GameState>(this.ctx, `games/${encodeURIComponent(this.gameId)}/${action}`, { ...body, ...(reason ? { reason } : {}) }),
    );
    if (!done) return;
    this.msg.done(`${action}: ${this.t('done')}`);
    this.done();
  }
}
