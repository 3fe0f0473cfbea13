#!/usr/bin/env node
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UsageError, type Command } from './command.ts';

const commandsDir = fileURLToPath(new URL('./commands/', import.meta.url));
/** Commands are .ts files from the sources and .js files once built (dist/). */
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

function commandNames(): string[] {
  return readdirSync(commandsDir)
    .filter((f) => f.endsWith(ext) && !f.endsWith('.d.ts'))
    .map((f) => f.slice(0, -ext.length))
    .sort();
}

async function load(name: string): Promise<Command | undefined> {
  if (!commandNames().includes(name)) return undefined;
  const mod = (await import(`./commands/${name}${ext}`)) as { default: Command };
  return mod.default;
}

async function help(): Promise<string> {
  const lines = ['usage: boardcast <command> [options]', '', 'commands:'];
  for (const name of commandNames()) {
    const cmd = await load(name);
    lines.push(`  ${name.padEnd(16)} ${cmd?.summary ?? ''}`);
  }
  lines.push('', "Run `boardcast <command> --help` for a command's options.");
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(await help());
    return name ? 0 : 2;
  }
  const cmd = await load(name);
  if (!cmd) {
    console.error(`boardcast: unknown command "${name}"\n\n${await help()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(cmd.usage);
    return 0;
  }
  try {
    return await cmd.run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`boardcast ${name}: ${err.message}\n\n${cmd.usage}`);
      return 2;
    }
    throw err;
  }
}

const code = await main(process.argv.slice(2));
// Long-running commands (serve, emulate) resolve only when they are done; then exit with their code.
process.exitCode = code;
