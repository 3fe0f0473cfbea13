import type { PairingInput, PlayerInfo } from '../store/types.ts';

/** A problem on one line of an input file (1-based line number). */
export interface LineError {
  line: number;
  message: string;
}

export const formatLineError = (file: string, e: LineError): string => `${file}:${e.line}: ${e.message}`;

/** FIDE titles as PGN's WhiteTitle/BlackTitle tags write them. */
export const FIDE_TITLES = ['GM', 'IM', 'FM', 'CM', 'WGM', 'WIM', 'WFM', 'WCM'] as const;

/** TRF writes titles as g, m, f, c, wg, wm, wf, wc (TRF16 player section, columns 11–13). */
const TRF_TITLES: Record<string, string> = { g: 'GM', m: 'IM', f: 'FM', c: 'CM', wg: 'WGM', wm: 'WIM', wf: 'WFM', wc: 'WCM' };

/** Normalises a title from TRF or CSV; undefined when unrecognised, null when empty. */
export function parseTitle(raw: string): string | null | undefined {
  const t = raw.trim();
  if (t === '') return null;
  const up = t.toUpperCase();
  if ((FIDE_TITLES as readonly string[]).includes(up)) return up;
  return TRF_TITLES[t.toLowerCase()];
}

export function parseRating(raw: string): number | null | undefined {
  const t = raw.trim();
  if (t === '' || t === '0') return null;
  if (!/^\d{1,4}$/.test(t)) return undefined;
  const n = Number(t);
  return n > 3500 ? undefined : n;
}

export function parseFederation(raw: string): string | null | undefined {
  const t = raw.trim();
  if (t === '') return null;
  return /^[A-Za-z]{3}$/.test(t) ? t.toUpperCase() : undefined;
}

export function parseFideId(raw: string): number | null | undefined {
  const t = raw.trim();
  if (t === '' || /^0+$/.test(t)) return null;
  return /^\d{1,11}$/.test(t) ? Number(t) : undefined;
}

/**
 * Checks that play the same in every pairing format: no table twice, no player twice.
 * `lines[i]` is the line pairing i came from, for the message.
 */
export function checkPairings(pairings: readonly PairingInput[], lines: readonly number[]): LineError[] {
  const errors: LineError[] = [];
  const tables = new Map<number, number>();
  const players = new Map<string, number>();
  const key = (p: PlayerInfo) => (p.fideId !== null ? `id:${p.fideId}` : `name:${p.name.toLowerCase()}|${p.federation ?? ''}`);
  pairings.forEach((p, i) => {
    const line = lines[i]!;
    const t = tables.get(p.table);
    if (t !== undefined) errors.push({ line, message: `table ${p.table} is already paired on line ${t}` });
    else tables.set(p.table, line);
    for (const side of [p.white, p.black]) {
      const seen = players.get(key(side));
      if (seen !== undefined) errors.push({ line, message: `${side.name} is already paired on line ${seen}` });
      else players.set(key(side), line);
    }
  });
  return errors;
}
