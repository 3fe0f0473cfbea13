import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';

/**
 * Sends a body with a strong ETag and answers a matching If-None-Match with 304: relay platforms
 * poll every few seconds, and most polls find nothing new, so they cost headers only.
 */
export function sendCached(req: Request, res: Response, body: string, contentType: string, cacheControl: string): void {
  const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
  res.set('ETag', etag);
  res.set('Cache-Control', cacheControl);
  res.type(contentType);
  const inm = req.get('If-None-Match');
  if (inm && inm.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}`)) {
    res.status(304).end();
    return;
  }
  res.send(body);
}

/** Live data is revalidated on every poll (cheap thanks to the ETag); finished data may be cached. */
export const LIVE_CACHE = 'public, max-age=1, must-revalidate';
export const SETTLED_CACHE = 'public, max-age=60';
