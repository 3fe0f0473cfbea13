export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger whose lines carry `component` (e.g. "table 3", "store"). */
  child(component: string): Logger;
}

export interface LoggerOptions {
  component?: string;
  /** Lowest level written; default info (BOARDCAST_LOG_LEVEL overrides). */
  level?: LogLevel;
  /** Human-readable lines instead of JSON; default: when stdout is a TTY. */
  pretty?: boolean;
  /** Where lines go; default warn/error to stderr, the rest to stdout. */
  write?: (level: LogLevel, line: string) => void;
  now?: () => number;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function defaultWrite(level: LogLevel, line: string): void {
  (level === 'warn' || level === 'error' ? process.stderr : process.stdout).write(line + '\n');
}

function envLevel(): LogLevel | undefined {
  const v = process.env.BOARDCAST_LOG_LEVEL;
  return v === 'debug' || v === 'info' || v === 'warn' || v === 'error' ? v : undefined;
}

/**
 * Structured logs: one JSON object per line ({level, time, component, message, ...fields}) so a
 * log shipper can index them; plain text when a person watches the terminal.
 */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const min = ORDER[opts.level ?? envLevel() ?? 'info'];
  const pretty = opts.pretty ?? process.stdout.isTTY === true;
  const write = opts.write ?? defaultWrite;
  const now = opts.now ?? Date.now;
  const make = (component: string): Logger => {
    const log = (level: LogLevel, message: string, fields: LogFields = {}): void => {
      if (ORDER[level] < min) return;
      const time = new Date(now()).toISOString();
      if (pretty) {
        const extra = Object.entries(fields)
          .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
          .join(' ');
        write(level, `${time.slice(11, 23)} ${level.toUpperCase().padEnd(5)} [${component}] ${message}${extra ? ' ' + extra : ''}`);
      } else {
        write(level, JSON.stringify({ level, time, component, message, ...fields }));
      }
    };
    return {
      debug: (m, f) => log('debug', m, f),
      info: (m, f) => log('info', m, f),
      warn: (m, f) => log('warn', m, f),
      error: (m, f) => log('error', m, f),
      child: (c) => make(component === '' ? c : `${component}/${c}`),
    };
  };
  return make(opts.component ?? 'boardcast');
}
