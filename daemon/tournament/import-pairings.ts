import { extname } from 'node:path';
import { err, ok, type Result } from '../store/result.ts';
import type { Store } from '../store/store.ts';
import type { PairingInput } from '../store/types.ts';
import { parseCsvPairings } from './csv-pairings.ts';
import type { LineError } from './players.ts';
import { parseTrf, trfRoundPairings } from './trf.ts';

export type PairingsFormat = 'trf' | 'csv';

/** By extension: .csv is CSV; .trf, .trfx and .txt (Swiss-Manager's TRF export) are TRF. */
export function pairingsFormatOf(path: string): PairingsFormat | undefined {
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.trf' || ext === '.trfx' || ext === '.txt') return 'trf';
  return undefined;
}

export interface ParsedPairings {
  pairings: PairingInput[];
  /** The source line of each pairing. */
  lines: number[];
  /** Players without a game this round (TRF only: byes and absences). */
  unpaired: string[];
}

/** Parses and checks a pairings file for one round; every bad line is reported. */
export function parsePairings(text: string, format: PairingsFormat, round: number): Result<ParsedPairings, LineError[]> {
  if (format === 'csv') {
    const r = parseCsvPairings(text);
    return r.ok ? ok({ ...r.value, unpaired: [] }) : r;
  }
  const file = parseTrf(text);
  if (!file.ok) return file;
  return trfRoundPairings(file.value, round);
}

export interface ImportSummary {
  roundId: number;
  games: number;
  players: number;
  unpaired: string[];
}

/**
 * Writes a round's pairings and their players in one transaction, after checking them against the
 * tournament and the hall: either all of it is imported or nothing is.
 */
export function importPairings(store: Store, tournamentId: number, round: number, parsed: ParsedPairings): Result<ImportSummary, string[]> {
  const tournament = store.tournament(tournamentId);
  if (!tournament) return err([`no tournament with id ${tournamentId}`]);
  let r = store.round(tournamentId, round);
  if (!r) {
    // The hall played on past rounds.count (each new game at a table is the next round): the
    // rounds it reached get their rows and games, so their pairings (players) can be imported.
    const reached = store.rounds(tournamentId).length + store.roundsPlayedBeyond();
    if (round > reached)
      return err([
        `round ${round}: ${tournament.name} has ${tournament.roundCount} rounds (rounds.count)${reached > tournament.roundCount ? ` and the boards have played up to round ${reached}` : ''}`,
      ]);
    store.adoptRounds(tournamentId, round);
    r = store.round(tournamentId, round)!;
  }
  if (r.status !== 'upcoming') return err([`round ${round} is ${r.status}: its pairings can no longer change`]);
  const hall = new Set(store.hallTables().map((t) => t.number));
  const errors: string[] = [];
  if (hall.size > 0) {
    parsed.pairings.forEach((p, i) => {
      if (!hall.has(p.table)) {
        errors.push(`line ${parsed.lines[i]}: table ${p.table} is not in the hall (tables ${[...hall].sort((a, b) => a - b).join(', ')})`);
      }
    });
  }
  if (errors.length > 0) return err(errors);
  try {
    store.replacePairings(r.id, parsed.pairings);
    // Games already on the boards take their players now, with or without a daemon running
    // (a running one also re-reads them for its live games: daemon/app/pairings-watch.ts).
    store.linkGamesToPairings();
  } catch (e) {
    return err([`the database refused the pairings, nothing was imported: ${(e as Error).message}`]);
  }
  return ok({
    roundId: r.id,
    games: parsed.pairings.length,
    players: parsed.pairings.length * 2,
    unpaired: parsed.unpaired,
  });
}
