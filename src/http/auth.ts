/**
 * Bearer JWT authentication (HS256, `AUTH_JWT_SECRET`, rules in ./jwt.ts). The `sub` claim is the
 * caller's profile ID as a canonical decimal string; `/v1/me/...` routes act on that profile.
 * A token with a `scope` claim (a service token, http/service-auth.ts) is refused. Anything else
 * is a 401.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { DomainError } from '../domain/errors.js';
import { parseId } from '../domain/ids.js';
import { headerOf, type AppEnv } from './env.js';
import { DEFAULT_TOKEN_POLICY, TokenRejected, signHs256, verifierOf } from './jwt.js';
import type { TokenPolicy } from './jwt.js';

const nowSeconds = () => Date.now() / 1000;

export function requireProfile(
  secret: string,
  policy: TokenPolicy = DEFAULT_TOKEN_POLICY,
  now: () => number = nowSeconds,
): MiddlewareHandler<AppEnv> {
  const verify = verifierOf(secret, policy);
  return async function authenticate(c, next) {
    const claims = bearerClaims(c, verify, now());
    // A service token never acts as a user, even if someone signed it with the user secret.
    if (claims['scope'] !== undefined)
      throw new DomainError('unauthorized', 'a scoped (service) token cannot act as a profile');
    const sub = claims['sub'];
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

/**
 * The verified claims of the request's `Authorization: Bearer <JWT>` (user and service tokens
 * alike, http/service-auth.ts); a 401 for anything else.
 */
export function bearerClaims(
  c: Context,
  verify: (token: string, nowS: number) => Record<string, unknown>,
  nowS: number,
): Record<string, unknown> {
  const header = headerOf(c, 'authorization') ?? '';
  const match = /^Bearer\s+([A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+)\s*$/i.exec(header);
  if (!match) throw new DomainError('unauthorized', 'missing or malformed bearer token');
  try {
    return verify(match[1]!, nowS);
  } catch (err) {
    if (err instanceof TokenRejected) throw new DomainError('unauthorized', err.message);
    throw err;
  }
}

/**
 * Issues a token for a profile (development banner, tests, load tester). The lifetime must fit
 * the server's AUTH_MAX_TOKEN_LIFETIME_S, or the server refuses the token.
 */
export function issueToken(secret: string, profileId: bigint, ttlSeconds = 3600): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return Promise.resolve(
    signHs256({ sub: profileId.toString(), iat: now, exp: now + ttlSeconds }, secret),
  );
}
