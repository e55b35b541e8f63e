/**
 * HS256 JSON Web Tokens (RFC 7519) with node:crypto, stricter than a generic verifier:
 *
 * - The signature is compared as text against the one canonical (unpadded base64url) encoding of
 *   the expected HMAC, in constant time. Decoding first would accept several spellings of one
 *   signature (the last character carries 2 unused bits), so a token would not be one string.
 * - Header: `alg` HS256 only, `typ` absent or JWT, no `crit` extensions we would have to honour.
 * - Claims: `exp` and `iat` are required numbers; the token must be current (`iat` not in the
 *   future, `exp` not past, `nbf` reached, each with `clockSkewS` of leeway) and its lifetime
 *   `exp - iat` at most `maxLifetimeS`, so a leaked token is useful for a bounded time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigSchema, type Config } from '../config/config.js';

export interface TokenPolicy {
  readonly maxLifetimeS: number;
  readonly clockSkewS: number;
}

export const tokenPolicyOf = (
  c: Pick<Config, 'AUTH_MAX_TOKEN_LIFETIME_S' | 'AUTH_CLOCK_SKEW_S'>,
): TokenPolicy => ({ maxLifetimeS: c.AUTH_MAX_TOKEN_LIFETIME_S, clockSkewS: c.AUTH_CLOCK_SKEW_S });

/** The configuration's defaults (for callers that build an app without a Config). */
export const DEFAULT_TOKEN_POLICY: TokenPolicy = tokenPolicyOf(
  ConfigSchema.pick({ AUTH_MAX_TOKEN_LIFETIME_S: true, AUTH_CLOCK_SKEW_S: true }).parse({}),
);

/** Why a token was refused; the message is safe to show the client. */
export class TokenRejected extends Error {
  override readonly name = 'TokenRejected';
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
/** A longer bearer token is refused unread (any kind: ./jwks-tokens.ts too). */
export const MAX_TOKEN_CHARS = 8192;

const mac = (secret: string, signingInput: string) =>
  createHmac('sha256', secret).update(signingInput).digest('base64url');

export function signHs256(claims: Record<string, unknown>, secret: string): string {
  const input = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${mac(secret, input)}`;
}

function decodeObject(part: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new TokenRejected(`token ${what} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TokenRejected(`token ${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

const numericDate = (claims: Record<string, unknown>, name: string): number | undefined => {
  const v = claims[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new TokenRejected(`token claim ${name} must be a number`);
  }
  return v;
};

/** Verifies `token` at `nowS` (Unix seconds) and returns its claims, or throws TokenRejected. */
export function verifyHs256(
  token: string,
  secret: string,
  policy: TokenPolicy,
  nowS: number,
): Record<string, unknown> {
  const parts = token.length <= MAX_TOKEN_CHARS ? token.split('.') : [];
  if (parts.length !== 3) throw new TokenRejected('malformed token');
  const [header, payload, signature] = parts as [string, string, string];
  const expected = Buffer.from(mac(secret, `${header}.${payload}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new TokenRejected('invalid token signature');
  }
  const h = decodeObject(header, 'header');
  if (h['alg'] !== 'HS256') throw new TokenRejected('token algorithm must be HS256');
  if (h['typ'] !== undefined && String(h['typ']).toUpperCase() !== 'JWT') {
    throw new TokenRejected('token type must be JWT');
  }
  if (h['crit'] !== undefined) throw new TokenRejected('token has critical extensions');

  const claims = decodeObject(payload, 'payload');
  checkTimes(claims, policy, nowS);
  return claims;
}

/** The time rules, apart: ./jwks-tokens.ts runs them after jose's own checks (lifetime cap). */
export function checkTimes(
  claims: Record<string, unknown>,
  policy: TokenPolicy,
  nowS: number,
): void {
  const exp = numericDate(claims, 'exp');
  const iat = numericDate(claims, 'iat');
  const nbf = numericDate(claims, 'nbf');
  if (exp === undefined || iat === undefined) throw new TokenRejected('token needs exp and iat');
  const skew = policy.clockSkewS;
  if (iat > nowS + skew) throw new TokenRejected('token issued in the future');
  if (exp <= nowS - skew) throw new TokenRejected('token expired');
  if (nbf !== undefined && nbf > nowS + skew) throw new TokenRejected('token not valid yet');
  if (exp <= iat || exp - iat > policy.maxLifetimeS) {
    throw new TokenRejected(`token lifetime must be at most ${policy.maxLifetimeS} s`);
  }
}
