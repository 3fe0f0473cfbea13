/** One `boardcast` subcommand. Each lives in daemon/cli/commands/<name>.ts as its default export. */
export interface Command {
  /** One line for `boardcast --help`. */
  summary: string;
  /** Full usage text for `boardcast <name> --help`. */
  usage: string;
  /** Runs the command; resolves to the process exit code. */
  run(argv: string[]): Promise<number>;
}

/** A usage error: printed with the command's usage, exit code 2. */
export class UsageError extends Error {}
