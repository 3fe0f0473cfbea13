import type { BoardEvent } from '../../protocols/board-events.ts';
import type { ArbiterCommand, EngineOptions, EngineSnapshot, GameEvent } from './game-events.ts';

/** Reconstructs one table's legal game from its board events (work in progress: API first). */
export class GameEngine {
  private readonly opts: EngineOptions;
  constructor(opts: EngineOptions) {
    this.opts = opts;
  }
  push(_ev: BoardEvent): GameEvent[] {
    return [];
  }
  arbiter(_cmd: ArbiterCommand): GameEvent[] {
    return [];
  }
  snapshot(): EngineSnapshot {
    void this.opts;
    return {
      started: false,
      fen: '',
      orientation: 'white',
      reversed: false,
      connected: true,
      moves: [],
      incidents: [],
      illegalCounts: { white: 0, black: 0 },
    };
  }
}
