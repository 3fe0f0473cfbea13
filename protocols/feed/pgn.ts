import type { GameState, LiveSource, PlayerInfo, RoundInfo, TournamentInfo } from './model.ts';

const STANDARD_START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

/** PGN tag values escape backslash and quote (PGN standard §8.1.1). */
function tag(name: string, value: string): string {
  return `[${name} "${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`;
}

/** %clk h:mm:ss as broadcast formats expect (whole seconds, rounded down like the DGT display). */
export function formatClk(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return `${h}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}`;
}

function pgnDate(iso: string | null): string {
  if (!iso) return '????.??.??';
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  return m ? `${m[1]}.${m[2]}.${m[3]}` : '????.??.??';
}

function playerTags(side: 'White' | 'Black', p: PlayerInfo): string[] {
  const out = [];
  if (p.title) out.push(tag(`${side}Title`, p.title));
  if (p.rating !== null) out.push(tag(`${side}Elo`, String(p.rating)));
  if (p.federation) out.push(tag(`${side}Fed`, p.federation));
  if (p.fideId !== null) out.push(tag(`${side}FideId`, String(p.fideId)));
  return out;
}

/** Move number and side to move from the start FEN's last two fields. */
function startCounters(fen: string): { fullmove: number; blackFirst: boolean } {
  const parts = fen.split(' ');
  const fullmove = Number.parseInt(parts[5] ?? '1', 10);
  return { fullmove: Number.isFinite(fullmove) && fullmove > 0 ? fullmove : 1, blackFirst: parts[1] === 'b' };
}

/**
 * One game as PGN: the seven-tag roster first (PGN §8.1.1), then players' titles, ratings,
 * federations and FIDE ids, the time control, FEN/SetUp for non-standard starts, Termination,
 * and `{[%clk h:mm:ss]}` after every move that has a clock reading (as Lichess/ChessBase read it).
 */
export function gameToPgn(t: TournamentInfo, round: RoundInfo | undefined, g: GameState): string {
  const tags = [
    tag('Event', t.name),
    tag('Site', t.site ?? '?'),
    tag('Date', pgnDate(round?.date ?? t.startDate)),
    tag('Round', `${g.round}.${g.table}`),
    tag('White', g.white.name),
    tag('Black', g.black.name),
    tag('Result', g.result),
    ...playerTags('White', g.white),
    ...playerTags('Black', g.black),
  ];
  if (t.timeControl) tags.push(tag('TimeControl', t.timeControl));
  if (t.variant === 'chess960') tags.push(tag('Variant', 'Chess960'));
  if (t.variant === 'chess960' || g.startFen !== STANDARD_START) {
    tags.push(tag('SetUp', '1'), tag('FEN', g.startFen));
  }
  if (g.termination) tags.push(tag('Termination', g.termination));
  tags.push(tag('Board', String(g.table)));

  const { fullmove, blackFirst } = startCounters(g.startFen);
  const tokens: string[] = [];
  g.moves.forEach((m, i) => {
    const blackToMove = (i % 2 === 1) !== blackFirst;
    const moveNo = fullmove + Math.floor((i + (blackFirst ? 1 : 0)) / 2);
    if (!blackToMove) tokens.push(`${moveNo}.`);
    else if (i === 0) tokens.push(`${moveNo}...`);
    tokens.push(m.san);
    if (m.clockMs !== null) tokens.push(`{ [%clk ${formatClk(m.clockMs)}] }`);
  });
  tokens.push(g.result);

  // Movetext lines are kept under 80 characters (PGN §8.2.1).
  const lines: string[] = [];
  let line = '';
  for (const tok of tokens) {
    if (line.length > 0 && line.length + 1 + tok.length > 79) {
      lines.push(line);
      line = tok;
    } else line = line.length > 0 ? `${line} ${tok}` : tok;
  }
  if (line) lines.push(line);
  return `${tags.join('\n')}\n\n${lines.join('\n')}\n`;
}

/** `pgn()` for sources that keep no PGN of their own. */
export function pgnFromReadModel(source: Pick<LiveSource, 'game' | 'tournament' | 'rounds'>, id: string): string | undefined {
  const g = source.game(id);
  if (!g) return undefined;
  return gameToPgn(source.tournament(), source.rounds().find((r) => r.round === g.round), g);
}
