import { describe, expect, it } from 'vitest';
import { silentClockGame } from './clock-silence.ts';

// Clock readings that stop telling the presses, on a board read on (clock-silence.ts): the clock's
// cable out of the board and put back, its battery flat, a reading lost on the line; and a flag
// down with play going on. Games of the matrix's 'mixed' noise through the emulated board and the
// real session; each failed on the engine before the change that made it pass (session 20).

describe('clock readings that stop telling the presses', () => {
  const games: [string, number, number, number][] = [
    [
      "nothing unread, but Black's flag down at move 51 and play going on (nobody claimed it): the count of presses at a board's return took Black's clock at zero for one that ran, and searched the jump again at five plies where three were played",
      257,
      0,
      0,
    ],
    [
      "the reading at Black's press lost (one press unread): White's a4 was on the board when the next reading showed the press, and Black's clock had run since White's last press, in which Black moved Bb7; it was held to be Black pressing without moving (7.5.3)",
      30,
      38,
      1,
    ],
    [
      "the reading at Black's press lost, after two plies that were not the game's were taken back and the arbiter reinstated the position: Black's Qa5 since White's last press, then White's e5 before the next reading; the press was held against Black as one without a move",
      185,
      34,
      1,
    ],
    [
      "silent for 3 presses, Black's e5 pressed in the silence: the first reading after it shows Black's press 3 s late, after White's fxg5 is made; it was held to be Black pressing without moving (7.5.3)",
      91,
      17,
      3,
    ],
    ['silent for 3 presses: the same, a press read late after the next move, held against the presser', 140, 32, 3],
    [
      'silent for 6 presses, the board link lost in the silence: the count of presses at the return started from the last reading, before the moves made in the silence, and read two plies more than were played',
      148,
      24,
      6,
    ],
    [
      'silent for 6 presses, the board link lost in the silence, then a move taken back and played again with the clock pressed back and forth: the count of presses across the silence read two plies more, and the jump was searched again to a wrong length',
      191,
      99,
      6,
    ],
    [
      'silent for 6 presses, the board back from a lost link just after the silence began: the count of presses ran from before the link was lost to the first reading after the silence, across a move taken back and pressed again, and the jump was searched again at nine plies, with moves nobody made',
      205,
      97,
      6,
    ],
    [
      "silent for 6 presses, the board link lost in the silence, then two plies that were not the game's, pressed, and the arbiter reinstating the position: the count across the silence sent the search back over the jump",
      26,
      34,
      6,
    ],
  ];
  for (const [what, seed, from, presses] of games) {
    it(`${what} (seed ${seed})`, async () => {
      const r = await silentClockGame(seed, from, presses);
      expect(r, 'the seed gives a game').not.toBeNull();
      expect(r!.falseIncidents, 'incidents against a player').toBe(0);
      expect(r!.sans, 'the game as played').toEqual(r!.want);
    });
  }
});
