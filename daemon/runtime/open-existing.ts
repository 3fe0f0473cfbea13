import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describeStoreOpenError } from '../store/errors.ts';
import { err, type Result } from '../store/result.ts';
import { openStore, STORE_FILE, type Store } from '../store/store.ts';

/** Opens the store of a data directory that must already hold one (tools never create a store). */
export function openExistingStore(dataDir: string): Result<Store, string> {
  const file = join(dataDir, STORE_FILE);
  if (!existsSync(file)) return err(`no boardcast store at ${file}`);
  const r = openStore(file);
  return r.ok ? r : err(describeStoreOpenError(r.error));
}
