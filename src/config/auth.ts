/**
 * Who may call (config.ts): the secrets of user tokens (http/auth.ts), service tokens
 * (http/service-auth.ts) and the admin API, the cursor key, and the token rules (which apply to
 * an identity provider's tokens too, idp.ts). In development a user-token secret and a
 * cursor key are generated and printed when none is configured; a production server refuses to
 * start without AUTH_JWT_SECRET (or AUTH_JWKS_URL and CURSOR_SECRET).
 */
import { z } from 'zod';
import { intFrom } from './kinds.js';

const secret = () => z.string().min(16).optional();

export const AuthConfig = {
  AUTH_JWT_SECRET: secret().meta({
    description:
      'HS256 secret of user tokens (`sub` = the profile ID); required in production unless ' +
      '`AUTH_JWKS_URL` is set (then no HS256 token is accepted)',
    unset: 'generated in development',
  }),
  ADMIN_TOKEN: secret().describe('bearer token of `/v1/admin/*`; unset = the admin API is off'),
  AUTH_SERVICE_JWT_SECRET: secret().describe(
    'HS256 secret of service tokens (docs/integration.md); unset = the service routes are off; ' +
      'must differ from `AUTH_JWT_SECRET`',
  ),
  CURSOR_SECRET: secret().meta({
    description: 'HMAC key of page cursors; set it explicitly when several processes serve one API',
    unset: 'generated (development), `AUTH_JWT_SECRET` (production; required without it)',
  }),
};

/** Constants, not read from the environment (config.ts `loadConfig`'s second argument sets them). */
export const AuthTuning = {
  AUTH_MAX_TOKEN_LIFETIME_S: intFrom(24 * 3600, 60)
    .describe(
      'longest accepted user token: `exp - iat` above this is a 401 (tokens must carry `exp` and `iat`)',
    )
    .meta({ why: 'product policy fixed at a day; tests lower it' }),
  AUTH_CLOCK_SKEW_S: intFrom(30, 0, 600)
    .describe(
      'leeway for clocks that differ between the token issuer and this process: `iat` in the ' +
        'future, `exp` just past and `nbf`',
    )
    .meta({ why: 'the usual leeway; tests change it' }),
};
