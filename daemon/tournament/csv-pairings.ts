import { err, ok, type Result } from '../store/result.ts';
import type { PairingInput, PlayerInfo } from '../store/types.ts';
import { parseCsv } from './csv.ts';
import { checkPairings, parseFederation, parseFideId, parseRating, parseTitle, type LineError } from './players.ts';

/**
 * Pairings as a spreadsheet: a header row, then one game per row. Columns (any order, case and
 * spaces/dashes/underscores ignored): board or table, white, black; optional
 * white_title, white_rating, white_fed, white_fideid and the same for black.
 */
const ALIASES: Record<string, string> = {
  board: 'table',
  table: 'table',
  tableno: 'table',
  boardno: 'table',
  white: 'white',
  whitename: 'white',
  black: 'black',
  blackname: 'black',
};
for (const side of ['white', 'black']) {
  ALIASES[`${side}title`] = `${side}_title`;
  ALIASES[`${side}rating`] = `${side}_rating`;
  ALIASES[`${side}elo`] = `${side}_rating`;
  ALIASES[`${side}fed`] = `${side}_fed`;
  ALIASES[`${side}federation`] = `${side}_fed`;
  ALIASES[`${side}fideid`] = `${side}_fideid`;
  ALIASES[`${side}fide`] = `${side}_fideid`;
}

export interface CsvPairings {
  pairings: PairingInput[];
  lines: number[];
}

export function parseCsvPairings(text: string): Result<CsvPairings, LineError[]> {
  const parsed = parseCsv(text);
  if (!parsed.ok) return parsed;
  const [head, ...rows] = parsed.value;
  if (!head) return err([{ line: 1, message: 'the file is empty (expected a header row: board,white,black,…)' }]);

  const errors: LineError[] = [];
  const column = new Map<string, number>();
  head.fields.forEach((name, i) => {
    const canonical =
      ALIASES[
        name
          .trim()
          .toLowerCase()
          .replace(/[\s_-]/g, '')
      ];
    if (canonical === undefined) errors.push({ line: head.line, message: `unknown column "${name.trim()}"` });
    else if (column.has(canonical)) errors.push({ line: head.line, message: `column "${name.trim()}" appears twice` });
    else column.set(canonical, i);
  });
  for (const required of ['table', 'white', 'black']) {
    if (!column.has(required)) {
      errors.push({ line: head.line, message: `missing column "${required === 'table' ? 'board' : required}"` });
    }
  }
  if (errors.length > 0) return err(errors);

  const pairings: PairingInput[] = [];
  const lines: number[] = [];
  for (const row of rows) {
    const before = errors.length;
    const bad = (message: string) => errors.push({ line: row.line, message });
    if (row.fields.length !== head.fields.length) {
      bad(`${row.fields.length} fields, the header has ${head.fields.length}`);
      continue;
    }
    const get = (key: string) => (column.has(key) ? row.fields[column.get(key)!]!.trim() : '');
    const tableText = get('table');
    if (!/^\d{1,3}$/.test(tableText) || Number(tableText) === 0) bad(`board "${tableText}" is not a table number from 1 to 999`);
    const player = (side: 'white' | 'black'): PlayerInfo | undefined => {
      const name = get(side);
      if (name === '') bad(`${side} name is empty`);
      const title = parseTitle(get(`${side}_title`));
      if (title === undefined) bad(`${side}_title "${get(`${side}_title`)}" is not a FIDE title`);
      const rating = parseRating(get(`${side}_rating`));
      if (rating === undefined) bad(`${side}_rating "${get(`${side}_rating`)}" is not a number up to 3500`);
      const federation = parseFederation(get(`${side}_fed`));
      if (federation === undefined) bad(`${side}_fed "${get(`${side}_fed`)}" is not a three-letter code`);
      const fideId = parseFideId(get(`${side}_fideid`));
      if (fideId === undefined) bad(`${side}_fideid "${get(`${side}_fideid`)}" is not a number`);
      if (name === '' || title === undefined || rating === undefined || federation === undefined || fideId === undefined) return undefined;
      return { name, title, rating, federation, fideId };
    };
    const white = player('white');
    const black = player('black');
    if (errors.length > before || !white || !black) continue;
    pairings.push({ table: Number(tableText), white, black });
    lines.push(row.line);
  }
  if (errors.length === 0 && pairings.length === 0) errors.push({ line: head.line, message: 'no pairings after the header row' });
  errors.push(...checkPairings(pairings, lines));
  if (errors.length > 0) return err(errors.sort((a, b) => a.line - b.line));
  return ok({ pairings, lines });
}
