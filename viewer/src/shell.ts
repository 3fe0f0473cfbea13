import type { FeedClient, FeedStatus } from './feed-client.ts';
import { h } from './dom.ts';
import { LANGS, saveI18n, type I18n, type Lang } from './i18n.ts';

/** Page header: title, navigation, language and notation switches, connection status. */
export function header(i18n: I18n, feed: FeedClient, title: HTMLElement): HTMLElement {
  const lang = h('select', { 'aria-label': i18n.t('language'), class: 'lang' });
  for (const l of LANGS) {
    const o = h('option', { value: l.code }, l.name);
    if (l.code === i18n.lang) o.selected = true;
    lang.append(o);
  }
  const notation = h('select', { 'aria-label': i18n.t('notation'), class: 'notation' });
  for (const [v, label] of [
    ['letters', i18n.t('letters')],
    ['figurines', i18n.t('figurines')],
  ] as const) {
    const o = h('option', { value: v }, label);
    if (v === i18n.notation) o.selected = true;
    notation.append(o);
  }
  // Texts are rendered once per page: a switch saves the choice and reloads, which also shows
  // that a reload resumes without losing anything.
  const apply = (): void => {
    i18n.lang = lang.value as Lang;
    i18n.notation = notation.value === 'figurines' ? 'figurines' : 'letters';
    saveI18n(i18n);
    const url = new URL(location.href);
    url.searchParams.delete('lang');
    url.searchParams.delete('notation');
    location.replace(url.toString());
  };
  lang.onchange = apply;
  notation.onchange = apply;
  const status = h('span', { class: 'status', 'data-status': feed.status });
  const showStatus = (s: FeedStatus): void => {
    status.dataset.status = s;
    status.textContent = s === 'live' ? `● ${i18n.t('live')}` : i18n.t('reconnecting');
  };
  feed.onStatus = showStatus;
  showStatus(feed.status);
  return h('header', { class: 'top' }, h('a', { href: '/', class: 'home' }, 'boardcast'), title, h('span', { class: 'spacer' }), status, lang, notation);
}
