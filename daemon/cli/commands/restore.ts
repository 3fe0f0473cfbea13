import { copyFileSync, existsSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import { UsageError, type Command } from '../command.ts';
import { dataDirFrom } from '../data-dir.ts';
import { parseOptions, pathOption } from '../args.ts';
import { STORE_FILE } from '../../store/store.ts';
import { checkBeforeOpen } from '../../store/integrity.ts';
import { lockDataDir } from '../../runtime/data-lock.ts';
import { BACKUP_DIR, listBackups } from '../../app/backups.ts';

const usage = `usage: boardcast restore (--data DIR | --config FILE) (--latest | --from FILE | --list)

Puts a backup of the store back. The daemon takes backups into <dataDir>/${BACKUP_DIR}/ on a schedule
(config \`backup.everyMinutes\`, default 15) and whenever a round closes, keeping the newest
\`backup.keep\` (default 12).

  --data DIR     the data directory (default: the config's dataDir)
  --config FILE  the tournament config whose dataDir to restore (default: the embedded one)
  --latest       the newest backup in <dataDir>/${BACKUP_DIR}
  --from FILE    this backup file
  --list         list the backups, newest last, and change nothing

The backup is checked in full (integrity_check) before anything is touched, and the restore is
refused while a daemon runs on the data directory. The store it replaces is not deleted: it is moved
aside as boardcast.sqlite.replaced-<time> (with its -wal and -shm), and can be put back by hand.`;

const restore: Command = {
  summary: 'put a checked backup of the store back (the replaced store is kept aside)',
  usage,
  async run(argv) {
    const { values: v } = parseOptions(argv, { data: { type: 'string' }, config: { type: 'string' }, latest: { type: 'boolean' }, from: { type: 'string' }, list: { type: 'boolean' } });
    if ([v.latest, v.from !== undefined, v.list].filter(Boolean).length !== 1) throw new UsageError('give one of --latest, --from FILE, --list');
    const dir = dataDirFrom(v);
    if (dir === null) return 1;
    const backups = listBackups(dir);
    if (v.list) {
      if (backups.length === 0) console.log(`no backups in ${join(dir, BACKUP_DIR)}`);
      for (const b of backups) console.log(join(dir, BACKUP_DIR, b));
      return 0;
    }
    const source = v.from !== undefined ? pathOption(v.from) : backups.length > 0 ? join(dir, BACKUP_DIR, backups[backups.length - 1]!) : null;
    if (source === null) {
      console.error(`restore: no backups in ${join(dir, BACKUP_DIR)}`);
      return 1;
    }
    if (!existsSync(source)) {
      console.error(`restore: ${source} does not exist`);
      return 1;
    }
    const checked = checkBeforeOpen(source, 'full', false);
    if (!checked.ok) {
      console.error(`restore: the backup ${source} is not sound, nothing was changed: ${checked.error.message}`);
      return 1;
    }
    const lock = lockDataDir(dir);
    if (!lock.ok) {
      console.error(`restore: ${lock.error}`);
      return 1;
    }
    try {
      const file = join(dir, STORE_FILE);
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
      const aside = `${file}.replaced-${stamp}`;
      if (existsSync(file)) {
        renameSync(file, aside);
        for (const side of ['-wal', '-shm']) if (existsSync(file + side)) renameSync(file + side, aside + side);
      }
      copyFileSync(source, file);
      const again = checkBeforeOpen(file, 'quick', false);
      if (!again.ok) {
        console.error(`restore: the copy did not check out (${again.error.message}); the replaced store is at ${aside}`);
        return 1;
      }
      console.log(`restored ${basename(source)} into ${file}${existsSync(aside) ? `; the store it replaced is at ${aside}` : ''}`);
      return 0;
    } finally {
      lock.value.release();
    }
  },
};

export default restore;
