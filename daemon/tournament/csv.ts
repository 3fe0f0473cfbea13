import { err, ok, type Result } from '../store/result.ts';
import type { LineError } from './players.ts';

export interface CsvRecord {
  /** Physical line the record starts on (1-based); quoted fields may span lines. */
  line: number;
  fields: string[];
}

/**
 * RFC 4180 CSV: comma separated (or semicolon when the header line has semicolons and no commas,
 * as spreadsheets in many European locales save), fields optionally in double quotes, quotes
 * doubled inside quotes, quoted fields may hold separators and line breaks. Blank lines are skipped.
 */
export function parseCsv(text: string): Result<CsvRecord[], LineError[]> {
  const src = text.replace(/^\uFEFF/, '');
  const firstLine = src.slice(0, src.search(/\r|\n|$/));
  const sep = firstLine.includes(';') && !firstLine.includes(',') ? ';' : ',';
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let quoted = false;
  let quoteLine = 0;
  let fieldWasQuoted = false;
  const endRecord = () => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === '' && !fieldWasQuoted)) records.push({ line: recordLine, fields });
    fields = [];
    field = '';
    fieldWasQuoted = false;
  };
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (quoted) {
      if (c === '"') {
        if (src[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === '\n' || (c === '\r' && src[i + 1] !== '\n')) line++;
        field += c;
      }
      continue;
    }
    if (c === '"') {
      if (field.trim() !== '') return err([{ line, message: 'a quote inside an unquoted field (quote the whole field and double the quote)' }]);
      field = '';
      quoted = true;
      fieldWasQuoted = true;
      quoteLine = line;
    } else if (c === sep) {
      fields.push(field);
      field = '';
      fieldWasQuoted = false;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && src[i + 1] === '\n') i++;
      endRecord();
      line++;
      recordLine = line;
    } else if (fieldWasQuoted) {
      if (c.trim() !== '') {
        return err([quoteLine === line ? { line, message: 'text after a closing quote' } : { line: quoteLine, message: `unbalanced quote: the quoted field opened here runs on to line ${line}` }]);
      }
    } else field += c;
  }
  if (quoted) return err([{ line: quoteLine, message: 'a quoted field is never closed' }]);
  if (field !== '' || fields.length > 0 || fieldWasQuoted) endRecord();
  return ok(records);
}
