/**
 * Bearer JWT authentication of `/v1/me/...`: the token's profile claim is the caller's profile ID
 * as a canonical decimal string, and the routes act on that profile. How a token is verified is a
 * `TokenRules`: HS256 with AUTH_JWT_SECRET (rules in ./jwt.ts; `sub` is the profile, and a token
 * with a `scope` claim, a service token of http/service-auth.ts, is refused), or the identity
 * provider's key set (./jwks-tokens.ts). Anything else is a 401; a key set that cannot be fetched
 * is a 503 with Retry-After.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { DomainError } from '../domain/errors.js';
import { parseId } from '../domain/ids.js';
import { headerOf, type AppEnv } from './env.js';
import { KeySetUnavailable } from './jwks.js';
import { DEFAULT_TOKEN_POLICY, TokenRejected, signHs256, verifyHs256 } from './jwt.js';
import type { TokenPolicy } from './jwt.js';

export type Claims = Readonly<Record<string, unknown>>;

/** How one kind of token (user or service) is checked. */
export interface TokenRules {
  /**
   * Signature, header, time rules and whatever tells the kinds apart; throws TokenRejected (401)
   * or KeySetUnavailable (503).
   */
  readonly verify: (token: string, nowS: number) => Claims | Promise<Claims>;
  /** The claim that names the caller: the profile ID, or the service name. */
  readonly subjectClaim: string;
}

/** User tokens signed with the shared secret (development and small deployments). */
export function hs256UserTokens(secret: string, policy: TokenPolicy): TokenRules {
  return {
    subjectClaim: 'sub',
    verify(token, nowS) {
      const claims = verifyHs256(token, secret, policy, nowS);
      // A service token never acts as a user, even if someone signed it with the user secret.
      if (claims['scope'] !== undefined)
        throw new TokenRejected('a scoped (service) token cannot act as a profile');
      return claims;
    },
  };
}

const nowSeconds = () => Date.now() / 1000;

/** `tokens`: the rules, or the HS256 secret of user tokens. */
export function requireProfile(
  tokens: string | TokenRules,
  policy: TokenPolicy = DEFAULT_TOKEN_POLICY,
  now: () => number = nowSeconds,
): MiddlewareHandler<AppEnv> {
  const rules = typeof tokens === 'string' ? hs256UserTokens(tokens, policy) : tokens;
  const claim = rules.subjectClaim;
  return async function authenticate(c, next) {
    const claims = await bearerClaims(c, rules, now());
    const sub = claims[claim];
    if (typeof sub !== 'string')
      throw new DomainError('unauthorized', `token has no profile claim (${claim})`);
    try {
      c.set('profileId', parseId(sub, claim));
    } catch {
      throw new DomainError('unauthorized', `token claim ${claim} is not a profile ID`);
    }
    await next();
  };
}

/**
 * The verified claims of the request's `Authorization: Bearer <JWT>` (user and service tokens
 * alike, http/service-auth.ts); a 401 for anything else, a 503 when the key set is unavailable.
 */
export async function bearerClaims(c: Context, rules: TokenRules, nowS: number): Promise<Claims> {
  const header = headerOf(c, 'authorization') ?? '';
  const match = /^Bearer\s+([A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+)\s*$/i.exec(header);
  if (!match) throw new DomainError('unauthorized', 'missing or malformed bearer token');
  try {
    return await rules.verify(match[1]!, nowS);
  } catch (err) {
    if (err instanceof TokenRejected) throw new DomainError('unauthorized', err.message);
    if (err instanceof KeySetUnavailable) {
      const details = { retry_after_s: err.retryAfterS };
      throw new DomainError('unavailable', err.message, details, { cause: err });
    }
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
