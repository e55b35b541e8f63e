/**
 * Tokens from an identity provider (config.ts; http/jwks.ts, http/jwks-tokens.ts, docs/operating.md
 * "Identity provider"): user and service tokens signed by the provider's rotating keys, published
 * as a JSON Web Key Set at AUTH_JWKS_URL. Unset AUTH_JWKS_URL = HS256 with the shared secrets
 * (auth.ts), for development and small deployments.
 */
import { z } from 'zod';
import { csv, intFrom } from './kinds.js';

/**
 * The asymmetric JWS algorithms (RFC 7518, RFC 8037, RFC 9864) a key set can verify. No HMAC
 * algorithm is among them: a public key used as an HMAC secret (the `alg` confusion) is refused
 * before any key is looked at, and `none` is never a signature.
 */
export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

const algorithms = csv(ASYMMETRIC_ALGORITHMS.join(','))
  .pipe(z.array(z.enum(ASYMMETRIC_ALGORITHMS)).min(1))
  .meta({ allowed: `comma-separated, of ${ASYMMETRIC_ALGORITHMS.join(', ')}` });

const claimName = (def: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_:.\-/]{1,64}$/)
    .default(def);

export const IdpConfig = {
  AUTH_JWKS_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .meta({
      description:
        "the identity provider's JSON Web Key Set (its `jwks_uri`); set = user tokens are " +
        'verified against it (`AUTH_JWT_ALGORITHMS`) instead of `AUTH_JWT_SECRET`; needs ' +
        '`AUTH_JWT_ISSUER` and `AUTH_JWT_AUDIENCE`',
      unset: 'HS256 with `AUTH_JWT_SECRET`',
      allowed: '`http://` or `https://` URL',
    }),
  AUTH_JWT_ISSUER: z
    .string()
    .min(1)
    .optional()
    .describe('required `iss` of every token verified against `AUTH_JWKS_URL`'),
  AUTH_JWT_AUDIENCE: z
    .string()
    .min(1)
    .optional()
    .describe('required `aud` of a user token verified against `AUTH_JWKS_URL`'),
  AUTH_SERVICE_JWT_AUDIENCE: z
    .string()
    .min(1)
    .optional()
    .meta({
      description:
        'required `aud` of a service token verified against `AUTH_JWKS_URL` (docs/integration.md); ' +
        'must differ from `AUTH_JWT_AUDIENCE`; excludes `AUTH_SERVICE_JWT_SECRET`',
      unset: 'service tokens as `AUTH_SERVICE_JWT_SECRET` says',
    }),
  AUTH_PROFILE_CLAIM: claimName('sub').describe(
    'claim of a key-set user token that holds the profile ID (a decimal string)',
  ),
  AUTH_SERVICE_NAME_CLAIM: claimName('sub').describe(
    'claim of a key-set service token that names the service (e.g. `azp` or `client_id`)',
  ),
};

/** Constants, not read from the environment (config.ts `loadConfig`'s second argument sets them). */
export const IdpTuning = {
  AUTH_JWT_ALGORITHMS: algorithms
    .describe(
      'the signature algorithms accepted from the key set; HMAC and `none` are never accepted',
    )
    .meta({ why: "every asymmetric algorithm: the provider's key fixes which one verifies" }),
  AUTH_JWKS_MAX_AGE_S: intFrom(300, 1, 86_400)
    .describe(
      'how long a fetched key set is used before it is fetched again; a key the provider ' +
        'removed stops verifying at the latest this long after',
    )
    .meta({ why: 'a key-set cache detail; tests shorten it' }),
  AUTH_JWKS_MAX_STALE_S: intFrom(3600, 0, 7 * 86_400)
    .describe(
      'while the provider is down, how long past `AUTH_JWKS_MAX_AGE_S` the last key set is ' +
        'still used; after that, and before any key set was fetched, user requests are 503',
    )
    .meta({ why: 'a key-set cache detail; tests shorten it' }),
  AUTH_JWKS_COOLDOWN_MS: intFrom(30_000, 0, 3_600_000)
    .describe(
      'least time between two fetches of the key set: a token with an unknown `kid` or a failed ' +
        'fetch fetches it again at most this often',
    )
    .meta({ why: 'a key-set cache detail; tests shorten it' }),
  AUTH_JWKS_TIMEOUT_MS: intFrom(5000, 100, 60_000)
    .describe('how long one fetch of the key set may take (connect, headers and body)')
    .meta({ why: 'a key-set cache detail; tests shorten it' }),
};

type Idp = Partial<Record<keyof typeof IdpConfig | 'AUTH_SERVICE_JWT_SECRET', unknown>>;

/** The cross-field rules of the settings above (config.ts runs them). */
export function idpProblems(c: Idp): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  if (c.AUTH_JWKS_URL) {
    if (!c.AUTH_JWT_ISSUER) out.push({ path: 'AUTH_JWT_ISSUER', message: 'required with AUTH_JWKS_URL' }); // prettier-ignore
    if (!c.AUTH_JWT_AUDIENCE) out.push({ path: 'AUTH_JWT_AUDIENCE', message: 'required with AUTH_JWKS_URL' }); // prettier-ignore
  }
  if (c.AUTH_SERVICE_JWT_AUDIENCE) {
    const path = 'AUTH_SERVICE_JWT_AUDIENCE';
    if (!c.AUTH_JWKS_URL) out.push({ path, message: 'needs AUTH_JWKS_URL' });
    // One audience for both kinds would let a user token pass as a service token.
    if (c.AUTH_SERVICE_JWT_AUDIENCE === c.AUTH_JWT_AUDIENCE)
      out.push({ path, message: 'must differ from AUTH_JWT_AUDIENCE' });
    if (c.AUTH_SERVICE_JWT_SECRET)
      out.push({ path, message: 'set either it or AUTH_SERVICE_JWT_SECRET, not both' });
  }
  return out;
}
