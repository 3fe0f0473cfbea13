import { mkdtempSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError, type Command } from '../command.ts';
import { intOption, parseOptions, pathOption } from '../args.ts';
import { BoardEmulator } from '../../simulation/emulator/board-emulator.ts';
import { EmulatedBus } from '../../simulation/emulator/emulated-bus.ts';
import { PtyDevice } from '../../simulation/pty-board.ts';
import { parseScriptFile, type TableScript } from '../../simulation/script-file.ts';

const usage = `usage: boardcast emulate [--boards N] [--dir DIR] [--bus] [--serial-base S]
                         [--script FILE | --pgn FILE [--game K] [--noise MODEL] [--seed N]]

Runs emulated DGT boards with DGT3000 clocks on pseudo-terminals (socat pairs) until SIGINT or
SIGTERM. Each board sends at 9600 baud, as over a real line (a full EEPROM log takes 8.3 s).
Prints one line per board, for the driver to open:
  board 1: /tmp/boardcast-emulate-XXXX/board1 serial 10001 address 10001

  --boards N        how many boards (default 1)
  --dir DIR         where the device links go (default: a new directory under the temp dir)
  --bus             all boards in bus mode on one line (one device, several addresses)
  --serial-base S   serial number of board 1; the others count up (default 10001)
  --script FILE     JSON: an array of physical actions, or {board, clock, actions}; played in real
                    time (ms from start) on every board. Actions: lift, place, knock, press,
                    clock-adjust (ms added to a side's time by hand), unplug, plug, link-down,
                    link-up, power-off, power-on, clock-cable-out, clock-cable-in (the clock
                    runs on unread), button (daemon/simulation/emulator/physical.ts)
  --pgn FILE        replay game K (default 1) of a PGN file as a person would play it at the board
                    (noisy player, noise MODEL default "clean", seed N default 1)`;

interface Args {
  boards: number;
  dir: string | null;
  bus: boolean;
  serialBase: number;
  script: string | null;
  pgn: string | null;
  game: number;
  noise: string;
  seed: number;
}

function parseEmulateArgs(argv: string[]): Args {
  const { values: v } = parseOptions(argv, {
    boards: { type: 'string' },
    dir: { type: 'string' },
    bus: { type: 'boolean' },
    'serial-base': { type: 'string' },
    script: { type: 'string' },
    pgn: { type: 'string' },
    game: { type: 'string' },
    noise: { type: 'string' },
    seed: { type: 'string' },
  });
  const a: Args = {
    boards: intOption(v.boards, '--boards', { min: 1 }) ?? 1,
    dir: pathOption(v.dir) ?? null,
    bus: v.bus ?? false,
    serialBase: intOption(v['serial-base'], '--serial-base', { min: 0 }) ?? 10001,
    script: v.script ?? null,
    pgn: v.pgn ?? null,
    game: intOption(v.game, '--game', { min: 1 }) ?? 1,
    noise: v.noise ?? 'clean',
    seed: intOption(v.seed, '--seed', { min: 0 }) ?? 1,
  };
  if (a.script && a.pgn) throw new UsageError('give --script or --pgn, not both');
  if (a.serialBase + a.boards - 1 > 99_999) throw new UsageError('serial numbers have five digits');
  return a;
}

/** A game replayed by the noisy player (loaded lazily: the emulator does not need it otherwise). */
async function pgnScript(file: string, game: number, noise: string, seed: number): Promise<TableScript | string> {
  const { loadPgn } = await import('../../simulation/games/pgn.ts');
  const { playNoisy, NOISE_MODELS } = await import('../../simulation/noisy-player/player.ts');
  if (!(NOISE_MODELS as readonly string[]).includes(noise)) return `unknown noise model "${noise}" (one of ${NOISE_MODELS.join(', ')})`;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return `cannot read ${file}: ${(err as Error).message}`;
  }
  const loaded = loadPgn(text, file);
  const g = loaded.games[game - 1];
  if (!g) return `${file} has ${loaded.games.length} playable games; no game ${game}`;
  const s = playNoisy(g, { model: noise as (typeof NOISE_MODELS)[number], seed });
  return { board: s.board, clock: s.clock, actions: s.actions };
}

async function loadScript(args: Args): Promise<TableScript | null | string> {
  if (args.pgn) return pgnScript(args.pgn, args.game, args.noise, args.seed);
  if (!args.script) return null;
  let text: string;
  try {
    text = readFileSync(args.script, 'utf8');
  } catch (err) {
    return `cannot read ${args.script}: ${(err as Error).message}`;
  }
  const r = parseScriptFile(text);
  if (!r.ok) return `${args.script}: ${r.error}`;
  for (const s of r.value.skipped) console.error(`emulate: ${args.script}: skipped ${s}`);
  return r.value.script;
}

const emulate: Command = {
  summary: 'run emulated DGT boards + clocks on pseudo-terminals (socat) for the driver to open',
  usage,
  async run(argv) {
    const args = parseEmulateArgs(argv);
    const script = await loadScript(args);
    if (typeof script === 'string') {
      console.error(`emulate: ${script}`);
      return 1;
    }
    const ownDir = args.dir === null;
    const dir = args.dir ?? mkdtempSync(join(tmpdir(), 'boardcast-emulate-'));
    mkdirSync(dir, { recursive: true });
    const serial = (i: number): string => String(args.serialBase + i).padStart(5, '0');
    const boards = Array.from(
      { length: args.boards },
      (_, i) =>
        new BoardEmulator({
          serial: serial(i),
          busMode: args.bus,
          ...(script?.board ? { board: script.board } : {}),
          ...(script && script.clock !== undefined ? { clock: script.clock } : {}),
        }),
    );
    const problem = (m: string): void => console.error(`emulate: ${m}`);
    const devices: PtyDevice[] = args.bus
      ? [new PtyDevice(new EmulatedBus(boards), join(dir, 'board1'), join(dir, 'board1.emu'), { onProblem: problem, ...(script ? { script: script.actions } : {}) })]
      : boards.map((b, i) => new PtyDevice(b, join(dir, `board${i + 1}`), join(dir, `board${i + 1}.emu`), { onProblem: problem, ...(script ? { script: script.actions } : {}) }));

    const cleanup = async (): Promise<void> => {
      await Promise.all(devices.map((d) => d.close()));
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    };
    for (const d of devices) {
      const r = await d.open();
      if (!r.ok) {
        console.error(`emulate: ${r.error}`);
        await cleanup();
        return 1;
      }
    }
    boards.forEach((b, i) => {
      const path = args.bus ? devices[0]!.hostPath : devices[i]!.hostPath;
      console.log(`board ${i + 1}: ${path} serial ${b.serial} address ${b.address}${args.bus ? ' bus' : ''}`);
    });
    console.log('ready');

    await new Promise<void>((done) => {
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        done();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await cleanup();
    return 0;
  },
};

export default emulate;
