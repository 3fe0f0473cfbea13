import type { Logger } from '../log/logger.ts';
import type { BoardSources } from '../runtime/board-sources.ts';
import { isSerialNumber } from '../runtime/board-sources.ts';
import type { TableLinkEvent } from '../runtime/bus-tables.ts';
import { FramePairing } from '../runtime/frame-pairing.ts';
import type { TableWatch } from './table-watch.ts';
import type { Store } from '../store/store.ts';

/**
 * Listens to one table's board link: frames and board events become raw event rows (through the
 * frame pairing, committed before anything is derived from them); connection states, the board's
 * serial number (recorded in board_serials), lost updates, problems and catch-ups are logged.
 */
export function tableEventHandler(
  t: { number: number; board: string; serial: () => string | null },
  deps: { store: Store; sources: BoardSources; pairing: FramePairing; watch: TableWatch; log: Logger },
): (e: TableLinkEvent) => void {
  const { store, sources, pairing, watch, log } = deps;
  return (se) => {
    const seen = watch.see(se);
    switch (se.type) {
      case 'frame':
        pairing.frame({ at: se.at, raw: se.raw, ...('message' in se ? { messageType: se.message.type } : {}) });
        return;
      case 'board':
        pairing.event(se.event);
        return;
      case 'state': {
        if (se.state === 'retrying' && sources.has(t.number)) sources.linkLost();
        const fields = { board: t.board, ...(se.detail ? { detail: se.detail } : {}), ...(se.retryInMs !== undefined ? { retryInMs: se.retryInMs } : {}) };
        // A board that is away is said once, loudly; its retries after that are quiet.
        if (seen === 'first-retry') log.warn('board not reachable: retrying', fields);
        else if (se.state === 'retrying') log.debug('board retrying', fields);
        else log.info(`board ${se.state}`, fields);
        return;
      }
      case 'serial': {
        log.debug('board serial', { serial: se.serial });
        // Which board stood at which table, and since when (board_serials), for the record.
        const noted = store.assignBoardSerial(se.serial, t.number, Date.now());
        if (!noted.ok) log.warn('board serial not recorded', { serial: se.serial, problem: noted.error });
        // The probe matched this port, but a different board may have been plugged in there since.
        if (isSerialNumber(t.board) && !se.serial.endsWith(t.board))
          log.warn('the board on this port is not the configured one', { configured: t.board, reported: se.serial, device: sources.pathOf(t.number) });
        return;
      }
      case 'drift':
        log.warn('board dump differs from tracked board (lost update, or the board went idle): handshaking again', { fields: se.fields });
        return;
      case 'problem':
        log.warn(se.detail);
        return;
      case 'catch-up':
        if (se.outcome === 'caught-up' && se.how === 'from-start') log.info('game already under way: read from its start in the EEPROM log', { fieldChanges: se.fields });
        else if (se.outcome === 'caught-up') log.info('moves made while the board was away caught up from its EEPROM log', { fieldChanges: se.fields, how: se.how, matched: se.matched });
        else log.warn(`EEPROM catch-up ${se.outcome}`, { detail: se.detail });
        return;
      default:
        return;
    }
  };
}
