import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { ok, type Result } from '../../protocols/result.ts';
import { formatPasswordHash, parsePasswordHashText } from '../../protocols/password-hash.ts';

/**
 * Password hashes for the accounts in the config file: scrypt (Node's built-in crypto, no extra
 * dependency) with a random salt, in the text form of protocols/password-hash.ts.
 * `boardcast hash-password` prints one.
 */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** 2^15 × 8 × 1: 32 MiB of memory and tens of milliseconds per check, for a login form. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 15, r: 8, p: 1 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;

export interface PasswordHash extends ScryptParams {
  salt: Buffer;
  hash: Buffer;
}

function derive(password: string, salt: Buffer, params: ScryptParams, keyBytes: number): Promise<Buffer> {
  // maxmem must exceed 128 × N × r bytes, or scrypt refuses the parameters.
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyBytes, options, (e, key) => (e ? reject(e) : resolve(key)));
  });
}

/** A new hash string for `password`, with a fresh random salt. */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, params, KEY_BYTES);
  return formatPasswordHash({ ...params, salt: salt.toString('base64url'), hash: hash.toString('base64url') });
}

/** Reads a stored hash string; the error says what is wrong with it. */
export function parsePasswordHash(text: string): Result<PasswordHash, string> {
  const t = parsePasswordHashText(text);
  if (!t.ok) return t;
  return ok({ N: t.value.N, r: t.value.r, p: t.value.p, salt: Buffer.from(t.value.salt, 'base64url'), hash: Buffer.from(t.value.hash, 'base64url') });
}

/** Whether `password` is the one `stored` was made from; constant time in the comparison. */
export async function verifyPassword(stored: PasswordHash, password: string): Promise<boolean> {
  const key = await derive(password, stored.salt, stored, stored.hash.length);
  return timingSafeEqual(key, stored.hash);
}
