import type { PlayerInfo } from '../../protocols/feed/model.ts';
import type { Store } from '../store/store.ts';
import type { BoardcastConfig } from '../tournament/config.ts';
import { demoPairings, type GameSource } from './demo-games.ts';
import type { PairingLookup } from './hall-router.ts';

/** Pairings of a tournament in the store (boardcast import-pairings writes them). */
export function storePairings(store: Store, tournamentId: number): PairingLookup {
  return (round, table) => {
    const r = store.round(tournamentId, round);
    const p = r ? store.pairings(r.id).find((x) => x.table === table) : undefined;
    if (!p) return undefined;
    const strip = ({ id: _id, ...info }: PlayerInfo & { id: number }): PlayerInfo => info;
    return { white: strip(p.white), black: strip(p.black) };
  };
}

/**
 * Who plays at each table in each round: the pairings imported into the store first; for an
 * emulated hall, the players its game scores name. The daemon, `export` and `replay` use the same
 * lookup, so a game carries the same PGN tags wherever it is read.
 */
export function hallPairings(store: Store, config: BoardcastConfig, demoSource: GameSource | null): PairingLookup {
  const tournament = store.tournamentByName(config.event.name);
  const imported: PairingLookup = tournament ? storePairings(store, tournament.id) : () => undefined;
  const e = config.emulate;
  const firstEmulated = config.tables.reduce((m, t) => Math.max(m, t.number), 0) + 1;
  const demo = e && demoSource ? demoPairings(demoSource, e.count, firstEmulated) : undefined;
  return (round, table) => imported(round, table) ?? demo?.(round, table);
}
