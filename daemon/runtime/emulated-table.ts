import { BoardEmulator, type EmulatorAction, type TimedBytes } from '../simulation/emulator/board-emulator.ts';
import { ScriptCursor, concatBytes, type EmulatedDevice } from '../simulation/emulator/script.ts';
import type { PieceCode } from '../../protocols/dgt/squares.ts';
import type { TimeControl } from '../simulation/emulator/tabletop.ts';
import { HANDSHAKE_BYTES } from '../board/wire.ts';

/** One game to be played at an emulated table: set-up and the people's physical actions. */
export interface TableGame {
  board: PieceCode[];
  clock: TimeControl | null;
  actions: EmulatorAction[];
}

export interface EmulatedTableOptions {
  serial: string;
  /** The next game to play at this table (called at start and after each game); null: stop. */
  nextGame(index: number): TableGame | null;
  /** Emulated ms between games (the arbiter sets the next board up). Default 5 s. */
  pauseMs?: number;
  /**
   * Pick the table up where a previous run of the daemon left it: game `gameIndex`, `atMs`
   * emulated ms into its script (the people kept playing the moves the store already has).
   */
  resume?: { gameIndex: number; atMs: number };
}

/**
 * An emulated board and clock at a table that plays one scripted game after another, so the demo
 * hall never goes quiet. Each game runs on a fresh BoardEmulator (new pieces set up, clock reset);
 * the host's last start-up commands are repeated to it, as the board stays in the mode the driver
 * put it in when the arbiter only resets the pieces and the clock. Time is the caller's (emulated) ms.
 */
export class EmulatedTable implements EmulatedDevice {
  private board: BoardEmulator;
  private cursor: ScriptCursor;
  private offset = 0;
  private gameIndex = 0;
  private nextStartAt: number | null = null;
  private finished = false;
  private hostSpoke = false;

  constructor(private readonly opts: EmulatedTableOptions) {
    this.gameIndex = opts.resume?.gameIndex ?? 0;
    const g = opts.nextGame(this.gameIndex);
    this.board = this.emulatorFor(g);
    this.cursor = new ScriptCursor(g?.actions ?? []);
    this.finished = g === null;
    const atMs = opts.resume?.atMs ?? 0;
    if (atMs > 0) {
      // Played before the driver connects: the board is idle and reports nothing until the
      // handshake, whose dump then shows the position reached.
      for (const action of this.cursor.due(atMs)) this.board.act(action);
      this.board.advanceTo(atMs);
      this.board.takeOutput();
      this.offset = -atMs;
    }
  }

  get serial(): string {
    return this.board.serial;
  }

  get gamesStarted(): number {
    return this.gameIndex + 1;
  }

  private emulatorFor(g: TableGame | null): BoardEmulator {
    return new BoardEmulator({ serial: this.opts.serial, ...(g ? { board: g.board, clock: g.clock } : {}) });
  }

  receive(hostBytes: Uint8Array, at: number): void {
    this.hostSpoke = true;
    this.advanceTo(at);
    this.board.receive(hostBytes, at - this.offset);
  }

  advanceTo(at: number): void {
    if (this.nextStartAt !== null && at >= this.nextStartAt) {
      this.startNext(this.nextStartAt);
    }
    for (const action of this.cursor.due(at - this.offset)) this.board.act(action);
    this.board.advanceTo(Math.max(this.board.time, at - this.offset));
    if (!this.finished && this.nextStartAt === null && this.cursor.next === null) {
      this.nextStartAt = at + (this.opts.pauseMs ?? 5000);
    }
  }

  private startNext(at: number): void {
    // Output of the old board is delivered before it is replaced.
    this.pendingOutput.push(...this.board.takeTimedOutput().map((t) => ({ ...t, at: t.at + this.offset })));
    this.nextStartAt = null;
    this.gameIndex++;
    const g = this.opts.nextGame(this.gameIndex);
    if (g === null) {
      this.finished = true;
      return;
    }
    this.offset = at;
    this.board = this.emulatorFor(g);
    this.cursor = new ScriptCursor(g.actions);
    if (this.hostSpoke) this.board.receive(HANDSHAKE_BYTES, 0);
  }

  private pendingOutput: TimedBytes[] = [];

  takeOutput(): Uint8Array {
    return concatBytes(this.takeTimedOutput());
  }

  takeTimedOutput(): TimedBytes[] {
    const out = this.pendingOutput;
    this.pendingOutput = [];
    for (const t of this.board.takeTimedOutput()) out.push({ ...t, at: t.at + this.offset });
    return out;
  }

  nextWakeup(): number | null {
    const w = this.board.nextWakeup();
    const a = this.cursor.next;
    const cands = [w, a].filter((x): x is number => x !== null).map((x) => x + this.offset);
    if (this.nextStartAt !== null) cands.push(this.nextStartAt);
    return cands.length === 0 ? null : Math.min(...cands);
  }
}
