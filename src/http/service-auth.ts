/**
 * Service credentials: how a platform's own services (its post service, an importer) call the
 * service routes (`/v1/profiles/:profile_id/posts/:post_id`, docs/integration.md).
 *
 * With the shared secret, a service token is an HS256 JWT `{sub: <service name>, scope:
 * "service", iat, exp}` signed with AUTH_SERVICE_JWT_SECRET, checked by the same rules as user
 * tokens (./jwt.ts). The two kinds can never stand in for each other, for two independent
 * reasons: they are signed with different secrets (the config refuses equal ones), and each
 * middleware checks the `scope` claim (`requireService` demands "service"; `requireProfile`
 * refuses any token that carries a scope). With an identity provider (AUTH_SERVICE_JWT_AUDIENCE,
 * ./jwks-tokens.ts) the audience tells them apart instead. Without either the service routes are
 * off (403), like the admin API.
 */
import type { MiddlewareHandler } from 'hono';
import { DomainError } from '../domain/errors.js';
import { bearerClaims, type TokenRules } from './auth.js';
import type { AppEnv } from './env.js';
import { DEFAULT_TOKEN_POLICY, TokenRejected, signHs256, verifyHs256 } from './jwt.js';
import type { TokenPolicy } from './jwt.js';

export const SERVICE_SCOPE = 'service';
/** A service name: what the logs and metrics call the caller. */
const SERVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const nowSeconds = () => Date.now() / 1000;

/** Service tokens signed with the shared secret: `scope` must be "service". */
export function hs256ServiceTokens(secret: string, policy: TokenPolicy): TokenRules {
  return {
    subjectClaim: 'sub',
    verify(token, nowS) {
      const claims = verifyHs256(token, secret, policy, nowS);
      if (claims['scope'] !== SERVICE_SCOPE)
        throw new TokenRejected('not a service token (scope must be "service")');
      return claims;
    },
  };
}

/** `tokens`: the rules, or the HS256 secret of service tokens; unset = the routes are off. */
export function requireService(
  tokens: string | TokenRules | undefined,
  policy: TokenPolicy = DEFAULT_TOKEN_POLICY,
  now: () => number = nowSeconds,
): MiddlewareHandler<AppEnv> {
  const rules =
    typeof tokens === 'string' ? (tokens ? hs256ServiceTokens(tokens, policy) : undefined) : tokens;
  return async function authenticateService(c, next) {
    if (!rules) {
      throw new DomainError(
        'forbidden',
        'the service API is disabled (no AUTH_SERVICE_JWT_SECRET or AUTH_SERVICE_JWT_AUDIENCE)',
      );
    }
    const claims = await bearerClaims(c, rules, now());
    const sub = claims[rules.subjectClaim];
    if (typeof sub !== 'string' || !SERVICE_NAME.test(sub)) {
      throw new DomainError(
        'unauthorized',
        `service token claim ${rules.subjectClaim} must be a service name`,
      );
    }
    c.set('serviceName', sub);
    await next();
  };
}

/** Issues a service token (tests, `regrid import`, an adopter's post service in development). */
export function issueServiceToken(secret: string, service: string, ttlSeconds = 3600): string {
  if (!SERVICE_NAME.test(service)) throw new RangeError(`bad service name: ${service}`);
  const now = Math.floor(Date.now() / 1000);
  return signHs256({ sub: service, scope: SERVICE_SCOPE, iat: now, exp: now + ttlSeconds }, secret);
}
