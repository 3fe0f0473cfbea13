/**
 * Why a database file could not be opened. Every variant names the file; none of them ever leads
 * to the file being deleted, truncated or rewritten: a corrupt file is evidence of a tournament.
 */
export type StoreOpenError =
  /** Another process (or connection) holds a lock on the file; it is probably another daemon. */
  | { kind: 'locked'; file: string; message: string }
  /** The file exists but is not an SQLite database, or its pages are damaged. */
  | { kind: 'corrupt'; file: string; message: string }
  /** The file was written by a newer boardcast whose schema this one does not know. */
  | { kind: 'newer-schema'; file: string; message: string; fileVersion: number; knownVersion: number }
  /** The file or its directory cannot be read or written (permissions, missing directory, disk). */
  | { kind: 'unavailable'; file: string; message: string };

export type StoreOpenErrorKind = StoreOpenError['kind'];

/** One line for humans: `store error: /data/boardcast.sqlite is locked: …`. */
export function describeStoreOpenError(e: StoreOpenError): string {
  return `store error: ${e.file}: ${e.message}`;
}

interface SqliteLikeError {
  code?: unknown;
  message?: unknown;
}

/** Maps better-sqlite3's SqliteError codes to our kinds (codes per sqlite.org/rescode.html). */
export function classifySqliteError(file: string, e: unknown): StoreOpenError {
  const code = typeof (e as SqliteLikeError)?.code === 'string' ? ((e as SqliteLikeError).code as string) : '';
  const detail = String((e as SqliteLikeError)?.message ?? e);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return {
      kind: 'locked',
      file,
      message: `database is locked by another connection or process (${code}: ${detail}); is another boardcast running on this data directory?`,
    };
  }
  if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) {
    return {
      kind: 'corrupt',
      file,
      message: `file is not a valid SQLite database or is damaged (${code}: ${detail}); it was left untouched — move it aside or restore a backup (boardcast restore)`,
    };
  }
  return { kind: 'unavailable', file, message: `cannot open database (${code || 'error'}: ${detail})` };
}
