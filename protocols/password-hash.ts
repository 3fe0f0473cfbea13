import { err, ok, type Result } from './result.ts';

/**
 * The text form of an official's password hash in the config file (`access.accounts[i].password`):
 *
 *   scrypt$N$r$p$<salt, base64url>$<hash, base64url>
 *
 * It carries its own scrypt parameters, so the cost can be raised later without breaking the hashes
 * already in a config. Only the format lives here; hashing is the daemon's (daemon/server/passwords.ts).
 */
export interface PasswordHashText {
  N: number;
  r: number;
  p: number;
  /** base64url */
  salt: string;
  /** base64url */
  hash: string;
}

export const PASSWORD_HASH_PREFIX = 'scrypt';

const isPowerOfTwo = (n: number): boolean => Number.isInteger(n) && n > 1 && (n & (n - 1)) === 0;
const B64URL = /^[A-Za-z0-9_-]+$/;

export function formatPasswordHash(h: PasswordHashText): string {
  return [PASSWORD_HASH_PREFIX, h.N, h.r, h.p, h.salt, h.hash].join('$');
}

/** Reads a stored hash; the error says what is wrong with it, for the config's error message. */
export function parsePasswordHashText(text: string): Result<PasswordHashText, string> {
  const parts = text.split('$');
  if (parts.length !== 6 || parts[0] !== PASSWORD_HASH_PREFIX) return err('must be a hash printed by `boardcast hash-password` (scrypt$N$r$p$salt$hash), never the password itself');
  const [N, r, p] = parts.slice(1, 4).map((x) => (/^\d{1,8}$/.test(x) ? Number(x) : NaN)) as [number, number, number];
  if (!isPowerOfTwo(N) || N < 2 ** 10 || N > 2 ** 20) return err('has a scrypt N that is not a power of two from 2^10 to 2^20');
  if (!(r >= 1 && r <= 32) || !(p >= 1 && p <= 16)) return err('has scrypt r or p out of range (r 1–32, p 1–16)');
  const [salt, hash] = [parts[4]!, parts[5]!];
  // base64url without padding: 11 characters hold 8 bytes, 22 hold 16.
  if (!B64URL.test(salt) || salt.length < 11) return err('has a salt that is not base64url of at least 8 bytes');
  if (!B64URL.test(hash) || hash.length < 22) return err('has a hash that is not base64url of at least 16 bytes');
  return ok({ N, r, p, salt, hash });
}
