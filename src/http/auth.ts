/**
 * Bearer JWT authentication (HS256, `AUTH_JWT_SECRET`). The `sub` claim is the caller's profile
 * ID as a decimal string; `/v1/me/...` routes act on that profile. Anything else is a 401.
 */
import type { MiddlewareHandler } from 'hono';
import { sign, verify } from 'hono/jwt';
import { DomainError } from '../domain/errors.js';
import { parseId } from '../domain/ids.js';
import type { AppEnv } from './env.js';

export function requireProfile(secret: string): MiddlewareHandler<AppEnv> {
  return async function authenticate(c, next) {
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+([A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+)\s*$/i.exec(header);
    if (!match) throw new DomainError('unauthorized', 'missing or malformed bearer token');
    let sub: unknown;
    try {
      sub = (await verify(match[1]!, secret, 'HS256')).sub;
    } catch {
      throw new DomainError('unauthorized', 'invalid or expired token');
    }
    if (typeof sub !== 'string')
      throw new DomainError('unauthorized', 'token has no profile subject');
    try {
      c.set('profileId', parseId(sub, 'sub'));
    } catch {
      throw new DomainError('unauthorized', 'token subject is not a profile ID');
    }
    await next();
  };
}

/** Issues a token for a profile (development helper, tests, seed script). */
export function issueToken(
  secret: string,
  profileId: bigint,
  ttlSeconds = 30 * 24 * 3600,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return sign({ sub: profileId.toString(), iat: now, exp: now + ttlSeconds }, secret, 'HS256');
}
