import { UsageError } from './command.ts';
import { pathOption } from './args.ts';
import { loadConfig } from '../tournament/config.ts';

/**
 * The data directory a tool works on: `--data DIR`, else the `--config` file's dataDir (the
 * embedded one's without either). Config problems are printed; null then (the caller exits 1).
 */
export function dataDirFrom(v: { data?: string | undefined; config?: string | undefined }): string | null {
  if (v.data !== undefined && v.config !== undefined) throw new UsageError('give --data or --config, not both');
  if (v.data !== undefined) return pathOption(v.data);
  const cfg = loadConfig(v.config);
  if (!cfg.ok) {
    for (const m of cfg.error.messages) console.error(m);
    return null;
  }
  return cfg.value.dataDir;
}
