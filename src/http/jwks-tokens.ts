/**
 * User and service tokens from an identity provider (AUTH_JWKS_URL, docs/operating.md "Identity
 * provider"): verified by jose's `jwtVerify` against the provider's key set (./jwks.ts), then by
 * the same time rules as HS256 tokens (./jwt.ts `checkTimes`: `exp` and `iat` required, lifetime
 * capped, clock skew).
 *
 * - Algorithms: only the configured asymmetric ones (config/idp.ts). The allow-list is checked
 *   against the token's `alg` before a key is chosen, so `none` and an HS256 token "signed" with
 *   the provider's public key as an HMAC secret (the `alg` confusion) are refused outright; jose
 *   also never uses a key set member as an HMAC secret.
 * - `iss` must be AUTH_JWT_ISSUER, `aud` must contain the kind's audience (AUTH_JWT_AUDIENCE for
 *   users, AUTH_SERVICE_JWT_AUDIENCE for services), and must not contain the other kind's: a
 *   token issued for both would otherwise act as either.
 */
import { errors, jwtVerify } from 'jose';
import type { Config } from '../config/config.js';
import type { Claims, TokenRules } from './auth.js';
import { KeySet, KeySetUnavailable } from './jwks.js';
import {
  MAX_TOKEN_CHARS,
  TokenRejected,
  checkTimes,
  tokenPolicyOf,
  type TokenPolicy,
} from './jwt.js';

export interface KeySetTokenOptions {
  readonly issuer: string;
  readonly audience: string;
  /** The other kind's audience, refused in this kind's tokens. */
  readonly otherAudience?: string | undefined;
  readonly algorithms: readonly string[];
  readonly subjectClaim: string;
}

/** jose's refusals, said as a client may read them. */
function rejection(err: errors.JOSEError): TokenRejected {
  if (err instanceof errors.JWTExpired) return new TokenRejected('token expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    return new TokenRejected(`token claim ${err.claim} is not accepted (${err.reason})`);
  }
  if (err instanceof errors.JOSEAlgNotAllowed) {
    return new TokenRejected('token algorithm is not accepted');
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return new TokenRejected('invalid token signature');
  }
  if (err instanceof errors.JWKSNoMatchingKey) {
    return new TokenRejected('no key of the identity provider matches the token (kid)');
  }
  if (err instanceof errors.JWKSMultipleMatchingKeys) {
    return new TokenRejected('token has no kid and several keys match');
  }
  return new TokenRejected(`token refused (${err.code})`);
}

const audiencesOf = (claims: Claims): unknown[] => {
  const aud = claims['aud'];
  return Array.isArray(aud) ? aud : [aud];
};

export function keySetTokens(
  keys: KeySet,
  options: KeySetTokenOptions,
  policy: TokenPolicy,
): TokenRules {
  const { issuer, audience, otherAudience, subjectClaim } = options;
  const algorithms = [...options.algorithms];
  return {
    subjectClaim,
    async verify(token, nowS) {
      if (token.length > MAX_TOKEN_CHARS) throw new TokenRejected('malformed token');
      let claims: Claims;
      try {
        const result = await jwtVerify(token, keys.keyFor, {
          algorithms,
          issuer,
          audience,
          clockTolerance: policy.clockSkewS,
          currentDate: new Date(nowS * 1000),
          requiredClaims: ['exp', 'iat'],
        });
        claims = result.payload;
      } catch (err) {
        if (err instanceof KeySetUnavailable) throw err;
        if (err instanceof errors.JOSEError) throw rejection(err);
        throw err;
      }
      if (otherAudience !== undefined && audiencesOf(claims).includes(otherAudience)) {
        throw new TokenRejected('token is issued for both user and service audiences');
      }
      checkTimes(claims, policy, nowS);
      return claims;
    },
  };
}

/** The configured key-set rules, if AUTH_JWKS_URL is set (app.ts `appSettingsOf`). */
export function keySetRulesOf(
  config: Config,
  log?: (msg: string, err: unknown) => void,
): { userTokens?: TokenRules; serviceTokens?: TokenRules } {
  const url = config.AUTH_JWKS_URL;
  const issuer = config.AUTH_JWT_ISSUER;
  const userAudience = config.AUTH_JWT_AUDIENCE;
  // config.ts refuses a key set URL without issuer and audience.
  if (!url || !issuer || !userAudience) return {};
  const keys = new KeySet({
    url,
    maxAgeMs: config.AUTH_JWKS_MAX_AGE_S * 1000,
    maxStaleMs: config.AUTH_JWKS_MAX_STALE_S * 1000,
    cooldownMs: config.AUTH_JWKS_COOLDOWN_MS,
    timeoutMs: config.AUTH_JWKS_TIMEOUT_MS,
    ...(log ? { log } : {}),
  });
  const policy = tokenPolicyOf(config);
  const serviceAudience = config.AUTH_SERVICE_JWT_AUDIENCE;
  const algorithms = config.AUTH_JWT_ALGORITHMS;
  const userTokens = keySetTokens(
    keys,
    {
      issuer,
      audience: userAudience,
      otherAudience: serviceAudience,
      algorithms,
      subjectClaim: config.AUTH_PROFILE_CLAIM,
    },
    policy,
  );
  if (!serviceAudience) return { userTokens };
  const serviceTokens = keySetTokens(
    keys,
    {
      issuer,
      audience: serviceAudience,
      otherAudience: userAudience,
      algorithms,
      subjectClaim: config.AUTH_SERVICE_NAME_CLAIM,
    },
    policy,
  );
  return { userTokens, serviceTokens };
}
