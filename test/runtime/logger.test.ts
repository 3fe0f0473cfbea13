import { describe, expect, it } from 'vitest';
import { createLogger, type LogLevel } from '../../daemon/log/logger.ts';

function capture(pretty: boolean, level: LogLevel = 'info') {
  const lines: { level: LogLevel; line: string }[] = [];
  const log = createLogger({ component: 'serve', pretty, level, now: () => Date.UTC(2026, 6, 4, 12, 0, 0), write: (l, line) => lines.push({ level: l, line }) });
  return { log, lines };
}

describe('structured logger', () => {
  it('writes one JSON object per line with level, time, component, message and fields', () => {
    const { log, lines } = capture(false);
    log.child('table 3').warn('board retrying', { retryInMs: 500, board: '/dev/ttyUSB0' });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe('warn');
    expect(JSON.parse(lines[0]!.line)).toEqual({
      level: 'warn',
      time: '2026-07-04T12:00:00.000Z',
      component: 'serve/table 3',
      message: 'board retrying',
      retryInMs: 500,
      board: '/dev/ttyUSB0',
    });
  });

  it('drops lines below the level and writes readable text for a terminal', () => {
    const { log, lines } = capture(true, 'info');
    log.debug('not shown');
    log.info('serving', { url: 'http://127.0.0.1:8080', tables: 8 });
    expect(lines.map((l) => l.line)).toEqual(['12:00:00.000 INFO  [serve] serving url=http://127.0.0.1:8080 tables=8']);
  });
});
