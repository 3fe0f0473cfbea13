import { UsageError, type Command } from '../command.ts';
import { hashPassword } from '../../server/passwords.ts';

const usage = `usage: boardcast hash-password [--stdin]

Prints the hash of a password for an official's account in the config file
(access.accounts[i].password; config/README.md, "Accounts"). The password is asked for twice
without being shown; with --stdin (or when the input is not a terminal) it is read from the first
line of the standard input instead, for scripts. The password itself is never stored.

The hash is scrypt (Node's built-in crypto) with a random salt, written with its parameters:
scrypt$N$r$p$salt$hash. Paste it into the config:

  "access": { "accounts": [ { "name": "IA Mojca Novak", "role": "arbiter", "password": "scrypt$32768$8$1$…" } ] }

Passwords of fewer than 8 characters are refused. Exit code 0 when a hash was printed, 1 when the
two entries differ or the password is too short, 2 on usage errors.`;

const MIN_LENGTH = 8;

/** One line from a terminal with echo off (raw mode), the prompt on stderr so stdout holds only the hash. */
function askHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const input = process.stdin;
    // Echo off before the prompt shows: whatever is typed after it is never displayed.
    input.setRawMode(true);
    process.stderr.write(prompt);
    input.resume();
    input.setEncoding('utf8');
    let text = '';
    const done = (value: string | null): void => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (value === null) reject(new Error('cancelled'));
      else resolve(value);
    };
    const onData = (chunk: string): void => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done(text);
        if (ch === '\u0003' || ch === '\u0004') return done(null);
        if (ch === '\u007f' || ch === '\b') text = text.slice(0, -1);
        else if (ch >= ' ') text += ch;
      }
    };
    input.on('data', onData);
  });
}

/** The first line of standard input (without its line end). */
async function firstLine(): Promise<string> {
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    text += chunk as string;
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

const hashPasswordCommand: Command = {
  summary: "print a password hash for an official's account in the config",
  usage,
  async run(argv) {
    const unknown = argv.find((a) => a !== '--stdin');
    if (unknown !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(unknown)}`);
    let password: string;
    if (argv.includes('--stdin') || !process.stdin.isTTY) {
      password = await firstLine();
    } else {
      try {
        password = await askHidden('Password: ');
        const again = await askHidden('Again: ');
        if (again !== password) {
          console.error('hash-password: the two entries differ; nothing printed');
          return 1;
        }
      } catch {
        console.error('hash-password: cancelled');
        return 1;
      }
    }
    if ([...password].length < MIN_LENGTH) {
      console.error(`hash-password: a password needs at least ${MIN_LENGTH} characters`);
      return 1;
    }
    console.log(await hashPassword(password));
    return 0;
  },
};

export default hashPasswordCommand;
