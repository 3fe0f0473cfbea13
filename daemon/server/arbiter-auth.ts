import { createHash, timingSafeEqual } from 'node:crypto';

export type TokenCheck = (token: string) => boolean;

/** Environment variable holding the arbiter token when the config does not set one. */
export const ARBITER_TOKEN_ENV = 'BOARDCAST_ARBITER_TOKEN';

/**
 * Arbiter clients prove themselves with a shared token (config `arbiterToken`, else the
 * BOARDCAST_ARBITER_TOKEN environment variable). No token configured means nobody is an arbiter.
 * Compared through SHA-256 digests in constant time so the comparison leaks neither content nor
 * length.
 */
export function arbiterTokenCheck(configured: string | null | undefined): TokenCheck {
  const secret = configured ?? process.env[ARBITER_TOKEN_ENV] ?? null;
  if (!secret) return () => false;
  const want = createHash('sha256').update(secret).digest();
  return (token) => timingSafeEqual(createHash('sha256').update(token).digest(), want);
}
