/** A time control in seconds, normalised from either config form. */
export interface TimeControl {
  baseSeconds: number;
  incrementSeconds: number;
  /** Classical two-period controls, e.g. 40 moves in 90 min, then 30 min (+30 s each move). */
  movesToSecondPeriod: number | null;
  secondPeriodSeconds: number | null;
}

export type TimeControlConfig = string | { baseMinutes: number; incrementSeconds?: number; movesToSecondPeriod?: number; secondPeriodMinutes?: number };

/** "90+30" (FIDE style: minutes + seconds per move) or the structured form; the schema checked the syntax. */
export function normaliseTimeControl(tc: TimeControlConfig): TimeControl {
  if (typeof tc === 'string') {
    const [base, inc] = tc.split('+');
    return {
      baseSeconds: Math.round(Number(base) * 60),
      incrementSeconds: Number(inc),
      movesToSecondPeriod: null,
      secondPeriodSeconds: null,
    };
  }
  return {
    baseSeconds: Math.round(tc.baseMinutes * 60),
    incrementSeconds: tc.incrementSeconds ?? 0,
    movesToSecondPeriod: tc.movesToSecondPeriod ?? null,
    secondPeriodSeconds: tc.secondPeriodMinutes === undefined ? null : Math.round(tc.secondPeriodMinutes * 60),
  };
}

/** The PGN TimeControl tag value (PGN standard 9.6.1): "5400+30", or "40/5400+30:1800+30". */
export function pgnTimeControl(tc: TimeControl): string {
  const inc = tc.incrementSeconds > 0 ? `+${tc.incrementSeconds}` : '';
  if (tc.movesToSecondPeriod !== null && tc.secondPeriodSeconds !== null) {
    return `${tc.movesToSecondPeriod}/${tc.baseSeconds}${inc}:${tc.secondPeriodSeconds}${inc}`;
  }
  return `${tc.baseSeconds}${inc}`;
}
