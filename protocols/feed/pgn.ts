import type { GameState, LiveSource, MoveRecord, PlayerInfo, RoundInfo, TournamentInfo, UncertainSpan } from './model.ts';
import { INITIAL_FEN } from 'chessops/fen';
import { ChildNode, makePgn, Node, type PgnNodeData } from 'chessops/pgn';

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

/**
 * The Date tag: the day the game was played (its first move on the board, UTC), else the round's
 * date, else the event's first day; "????.??.??" only when none is known.
 */
export function gameDate(t: TournamentInfo, round: RoundInfo | undefined, g: Pick<GameState, 'moves'>): string {
  const first = g.moves[0];
  if (first && first.at > 0) return pgnDate(new Date(first.at).toISOString());
  return pgnDate(round?.date ?? t.startDate);
}

/** The PGN standard's Termination values (§9.8.1), the only ones lichess and PGN tools know. */
export type PgnTermination = 'normal' | 'time forfeit' | 'rules infraction' | 'adjudication' | 'unterminated' | 'abandoned' | 'death' | 'emergency';
const STANDARD_TERMINATIONS: ReadonlySet<string> = new Set<PgnTermination>(['normal', 'time forfeit', 'rules infraction', 'adjudication', 'unterminated', 'abandoned', 'death', 'emergency']);

/**
 * Our finer reason (the read model's text: "checkmate", "result set on the board", "arbiter
 * decision", …) as a standard Termination value: a flag is a time forfeit, an arbiter's decision
 * an adjudication, anything that ended over the board (mate, stalemate, a draw by rule, a result
 * the players set with the pieces or kings, resignation, agreement) normal.
 */
export function pgnTermination(reason: string): PgnTermination {
  const r = reason.trim().toLowerCase();
  if (STANDARD_TERMINATIONS.has(r)) return r as PgnTermination;
  if (/\b(time|flag)\b/.test(r)) return 'time forfeit';
  if (/\b(arbiter|adjudicat)/.test(r)) return 'adjudication';
  if (/\b(forfeit|infraction|illegal|default)\b/.test(r)) return 'rules infraction';
  return 'normal';
}

/**
 * The TimeControl tag as lichess reads it: its parser takes `seconds` or `seconds+increment` and
 * nothing else (a `40/5400+30:1800+30` leaves the broadcast without a clock). A multi-period control
 * is written as its first period: the clock the players start with, which is what lichess shows.
 */
export function lichessTimeControl(tc: string): string {
  const first = tc.split(':')[0]!;
  const m = /^(?:\d+\/)?(\d+)(?:\+(\d+))?$/.exec(first.trim());
  if (!m) return tc;
  return m[2] !== undefined && m[2] !== '0' ? `${m[1]}+${m[2]}` : m[1]!;
}

/**
 * The GameId tag: the event (its name, which is what the store knows it by, as a slug) and the
 * game's round and table. Nothing of the board or the moment is in it, so a restart or a board
 * swapped at the table writes the same id, and two events' games never share one.
 */
export function pgnGameId(t: Pick<TournamentInfo, 'id' | 'name'>, g: Pick<GameState, 'id'>): string {
  const slug = t.name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${slug || t.id}/${g.id}`;
}

/** WhiteClock/BlackClock tag value, hh:mm:ss as lichess's relay reads it. */
export function clockTag(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

/**
 * `%emt` of a move: the time from the previous move (the opponent's, which started this player's
 * clock) to this one, both as the board saw them. None for the first ply of the record (nothing
 * observed tells when that player's clock started), and none where either move was inferred
 * from a jump several sequences explain (the board never showed when it was made).
 */
function elapsedMs(moves: GameState['moves'], i: number): number | null {
  if (i === 0 || moves[i]!.uncertain || moves[i - 1]!.uncertain) return null;
  const before = moves[i - 1]!.at;
  const at = moves[i]!.at;
  return before > 0 && at >= before ? at - before : null;
}

function playerTags(side: 'White' | 'Black', p: PlayerInfo): [string, string][] {
  const out: [string, string][] = [];
  if (p.title) out.push([`${side}Title`, p.title]);
  if (p.rating !== null) out.push([`${side}Elo`, String(p.rating)]);
  if (p.federation) out.push([`${side}Fed`, p.federation]);
  if (p.fideId !== null) out.push([`${side}FideId`, String(p.fideId)]);
  return out;
}

/** Movetext lines are kept under 80 characters (PGN §8.2.1), breaking between tokens, never inside a comment. */
function wrapMovetext(line: string): string {
  const units = line.match(/\{[^}]*\}|\S+/g) ?? [];
  const lines: string[] = [];
  let current = '';
  for (const unit of units) {
    if (current.length > 0 && current.length + 1 + unit.length > 79) {
      lines.push(current);
      current = unit;
    } else current = current.length > 0 ? `${current} ${unit}` : unit;
  }
  if (current) lines.push(current);
  return lines.join('\n');
}

/**
 * One game as PGN: the seven-tag roster first (PGN §8.1.1), then players' titles, ratings,
 * federations and FIDE ids, the time control, FEN/SetUp for non-standard starts, Termination
 * (a standard value, our finer reason in TerminationDetail), Board, GameId (round and table,
 * never the board's serial: stable across restarts and board swaps), the clocks as last read
 * (WhiteClock/BlackClock, so a platform shows them between moves), and `{[%clk h:mm:ss] [%emt
 * h:mm:ss]}` after every move that has a clock reading (as lichess/ChessBase read it).
 */
export function gameToPgn(t: TournamentInfo, round: RoundInfo | undefined, g: GameState): string {
  const headers = new Map<string, string>([
    ['Event', t.name],
    ['Site', t.site ?? '?'],
    ['Date', gameDate(t, round, g)],
    ['Round', `${g.round}.${g.table}`],
    ['White', g.white.name],
    ['Black', g.black.name],
    ['Result', g.result],
    ...playerTags('White', g.white),
    ...playerTags('Black', g.black),
  ]);
  if (t.timeControl) headers.set('TimeControl', lichessTimeControl(t.timeControl));
  const chess960 = t.variant === 'chess960' || g.variant === 'chess960';
  if (chess960) headers.set('Variant', 'Chess960');
  if (chess960 || g.startFen !== INITIAL_FEN) {
    headers.set('SetUp', '1');
    headers.set('FEN', g.startFen);
  }
  if (g.termination) {
    const standard = pgnTermination(g.termination);
    headers.set('Termination', standard);
    if (g.termination !== standard) headers.set('TerminationDetail', g.termination);
  }
  headers.set('Board', String(g.table));
  headers.set('GameId', pgnGameId(t, g));
  if (g.clock && g.status !== 'finished') {
    headers.set('WhiteClock', clockTag(g.clock.whiteMs));
    headers.set('BlackClock', clockTag(g.clock.blackMs));
  }

  // chessops writes the tags (escaped), the move numbers (from the FEN's counters) and the comments.
  const moves = new Node<PgnNodeData>();
  let at: Node<PgnNodeData> = moves;
  let gameComments: string[] | undefined;
  for (const [i, m] of g.moves.entries()) {
    if (m.gap) {
      // Platforms replay the moves and stop at one that does not follow (lichess's relay keeps a
      // chapter's root and adds moves by their path): the record up to the break stays valid
      // PGN, and the break, the board the game went on from and the moves since are said here.
      const note = breakComment(m, g.moves.slice(i + 1));
      if (at === moves) gameComments = [note];
      else (at as ChildNode<PgnNodeData>).data.comments = [...((at as ChildNode<PgnNodeData>).data.comments ?? []), note];
      break;
    }
    const emt = m.clockMs !== null ? elapsedMs(g.moves, i) : null;
    const clk = m.clockMs !== null ? [`[%clk ${formatClk(m.clockMs)}]${emt !== null ? ` [%emt ${formatClk(emt)}]` : ''}`] : [];
    const comments = [...clk, ...(m.uncertain?.firstPly === m.ply ? [uncertainComment(m.uncertain)] : [])];
    const node = new ChildNode<PgnNodeData>({ san: m.san, ...(comments.length > 0 ? { comments } : {}) });
    at.children.push(node);
    at = node;
  }
  const text = makePgn({ headers, moves, ...(gameComments ? { comments: gameComments } : {}) });
  const blank = text.indexOf('\n\n');
  return `${text.slice(0, blank + 2)}${wrapMovetext(text.slice(blank + 2).trimEnd())}\n`;
}

/** The moves from a position as a reader writes them: numbers from the FEN, "..." when Black starts. */
function numberedLine(fen: string, moves: readonly MoveRecord[]): string {
  const fields = fen.split(' ');
  let white = fields[1] !== 'b';
  let number = Number(fields[5] ?? '1') || 1;
  const out: string[] = [];
  for (const [i, m] of moves.entries()) {
    if (m.gap) {
      out.push('--');
      const next = m.fenAfter.split(' ');
      white = next[1] !== 'b';
      number = Number(next[5] ?? number) || number;
      continue;
    }
    if (white) out.push(`${number}. ${m.san}`);
    else out.push(i === 0 || moves[i - 1]?.gap ? `${number}... ${m.san}` : m.san);
    if (!white) number++;
    white = !white;
  }
  return out.join(' ');
}

/**
 * The moves a reader that replays them can take: the record up to its first break (MoveRecord.gap).
 * PGN, LCC and the LiveChess API's move lists stop there; the position is still the board's.
 */
export function movesBeforeBreak(moves: readonly MoveRecord[]): MoveRecord[] {
  const i = moves.findIndex((m) => m.gap);
  return i < 0 ? [...moves] : moves.slice(0, i);
}

/** What a PGN reader is told at a break in the record (see MoveRecord.gap). */
export function breakComment(gap: MoveRecord, after: readonly MoveRecord[]): string {
  const why = gap.gap?.reason === 'illegal-move-stood' ? 'An illegal move stood and play went on' : 'The record breaks here: play went on from a board the moves recorded cannot reach';
  const decided = gap.gap?.accepted ? '; the arbiter accepted the board position' : '; the arbiter may still give the missing moves';
  const since = after.length > 0 ? ` Moves since: ${numberedLine(gap.fenAfter, after)}` : '';
  return `${why}${decided}. Position: ${gap.fenAfter}.${since}`;
}

/** Alternatives named in the comment; the arbiter's API lists them all. */
const COMMENT_ALTERNATIVES = 3;

/**
 * After the first move of an inferred span with several explanations: a reader of the PGN alone
 * (a platform, a database) learns that the order is a choice and what else fits.
 */
export function uncertainComment(u: UncertainSpan): string {
  const span = u.plies === 1 ? `Ply ${u.firstPly} was` : `Plies ${u.firstPly}-${u.firstPly + u.plies - 1} were`;
  const others = u.candidates.slice(1, 1 + COMMENT_ALTERNATIVES).map((c) => c.join(' '));
  const more = u.candidates.length - 1 - others.length;
  return `${span} not seen on the board; ${u.candidates.length} move orders fit, this one is a guess. Also possible: ${others.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}

/** `pgn()` for sources that keep no PGN of their own. */
export function pgnFromReadModel(source: Pick<LiveSource, 'game' | 'tournament' | 'rounds'>, id: string): string | undefined {
  const g = source.game(id);
  if (!g) return undefined;
  return gameToPgn(
    source.tournament(),
    source.rounds().find((r) => r.round === g.round),
    g,
  );
}
