import { h } from './dom.ts';
import type { I18n } from './i18n.ts';

// The arbiter's requests from any official page: the POST, its outcome, and the inline message
// beside the control that made it.

/** An arbiter request's answer: the value, or the server's error (status 0: no answer at all). */
export type ArbiterOutcome<T> = { ok: true; value: T } | { ok: false; status: number; code: string; message: string };

/** What every arbiter control needs: the texts, and what to do when the session is gone. */
export interface ArbiterContext {
  i18n: I18n;
  /** Called on every 401, so the page can say loudly that nobody is logged in any more. */
  onUnauthorized(message: string): void;
}

/**
 * `POST /api/arbiter/…`; never throws. The session cookie goes with it (same origin): no secret
 * in the page, and the server records the logged-in account as the one who acted.
 */
export async function arbiterPost<T>(ctx: ArbiterContext, path: string, body: Record<string, unknown>): Promise<ArbiterOutcome<T>> {
  let res: Response;
  try {
    res = await fetch(`/api/arbiter/${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (e) {
    return { ok: false, status: 0, code: 'network', message: `${ctx.i18n.t('networkError')} (${(e as Error).message})` };
  }
  let json: unknown = null;
  try {
    json = await res.json();
  } catch {
    json = null;
  }
  if (res.ok) return { ok: true, value: json as T };
  const err = (json as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const message = typeof err?.message === 'string' ? err.message : `HTTP ${res.status} ${res.statusText}`;
  const code = typeof err?.code === 'string' ? err.code : 'http';
  if (res.status === 401) ctx.onUnauthorized(message);
  return { ok: false, status: res.status, code, message };
}

/** The text shown for a failed request: the server's own message, prefixed when nobody is logged in. */
export function failureText(i18n: I18n, o: { status: number; message: string }): string {
  return o.status === 401 ? `${i18n.t('sessionEnded')}: ${o.message}` : o.status === 0 ? o.message : `${o.status} · ${o.message}`;
}

/** An inline message area next to a control: errors, confirmations, and a short "done". */
export class ActionMessage {
  readonly el = h('div', { class: 'action-msg', role: 'status' });

  clear(): void {
    this.el.replaceChildren();
    delete this.el.dataset.kind;
  }

  error(text: string): void {
    this.el.dataset.kind = 'error';
    this.el.replaceChildren(h('span', { class: 'msg-text' }, text));
  }

  done(text: string): void {
    this.el.dataset.kind = 'ok';
    this.el.replaceChildren(h('span', { class: 'msg-text' }, `✓ ${text}`));
  }

  /** Asks before a consequential action; the question stays until answered or replaced. */
  confirm(text: string, yesLabel: string, cancelLabel: string, yes: () => void): void {
    this.el.dataset.kind = 'confirm';
    const ok = h('button', { type: 'button', class: 'confirm-yes' }, yesLabel);
    const no = h('button', { type: 'button', class: 'confirm-no' }, cancelLabel);
    ok.onclick = () => {
      this.clear();
      yes();
    };
    no.onclick = () => this.clear();
    this.el.replaceChildren(h('span', { class: 'msg-text' }, text), ok, no);
  }
}

/** Runs one request with its buttons disabled, showing a failure in `msg`. */
export async function act<T>(buttons: HTMLButtonElement[], msg: ActionMessage, i18n: I18n, run: () => Promise<ArbiterOutcome<T>>): Promise<T | null> {
  for (const b of buttons) b.disabled = true;
  msg.clear();
  try {
    const o = await run();
    if (!o.ok) {
      msg.error(failureText(i18n, o));
      return null;
    }
    return o.value;
  } finally {
    for (const b of buttons) b.disabled = false;
  }
}
