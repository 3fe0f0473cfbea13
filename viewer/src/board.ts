import { Chessground } from '@lichess-org/chessground';
import type { Api } from '@lichess-org/chessground/api';
import type { Key } from '@lichess-org/chessground/types';
import type { Color } from 'chessops';
import { turnOf } from './players.ts';

/** UCI to the two squares chessground highlights (promotion letter dropped). */
export function uciSquares(uci: string | null | undefined): Key[] | undefined {
  // "0000" is a break in the record (no move): nothing to highlight.
  if (!uci || uci.length < 4 || uci === '0000') return undefined;
  return [uci.slice(0, 2) as Key, uci.slice(2, 4) as Key];
}

/** A view-only chessground board showing one position and its last move. */
export class BoardView {
  readonly el: HTMLElement;
  private readonly cg: Api;

  constructor(opts: { coordinates?: boolean; orientation?: Color } = {}) {
    this.el = document.createElement('div');
    this.el.className = 'board-wrap';
    const inner = document.createElement('div');
    inner.className = 'cg-wrap-host';
    this.el.append(inner);
    this.cg = Chessground(inner, {
      viewOnly: true,
      coordinates: opts.coordinates ?? true,
      orientation: opts.orientation ?? 'white',
      animation: { enabled: true, duration: 150 },
      highlight: { lastMove: true, check: true },
      drawable: { enabled: false, visible: false },
    });
  }

  show(fen: string, lastUci: string | null | undefined, check = false): void {
    const boardFen = fen.split(' ')[0] ?? fen;
    this.cg.set({ fen: boardFen, lastMove: uciSquares(lastUci), turnColor: turnOf(fen), check: check ? turnOf(fen) : false });
    this.el.dataset.fen = fen;
    this.el.dataset.lastMove = lastUci ?? '';
  }

  /** Chessground measures its container; call after layout changes. */
  redraw(): void {
    this.cg.redrawAll();
  }
}
