/**
 * Who may call (config.ts): the secrets of user tokens (http/auth.ts), service tokens
 * (http/service-auth.ts) and the admin API, the cursor key, and the token rules. In development a
 * user-token secret and a cursor key are generated and printed when none is configured; a
 * production server refuses to start without AUTH_JWT_SECRET.
 */
import { z } from 'zod';

const secret = () => z.string().min(16).optional();
const seconds = (def: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(def);

export const AuthConfig = {
  /** HS256 secret of user tokens (`sub` = the profile ID). */
  AUTH_JWT_SECRET: secret(),
  /** Bearer token of /v1/admin/*; unset = the admin API is off. */
  ADMIN_TOKEN: secret(),
  /** HS256 secret of service tokens; unset = the service routes are off. Never AUTH_JWT_SECRET. */
  AUTH_SERVICE_JWT_SECRET: secret(),
  /** HMAC key of page cursors; set it explicitly when several processes serve one API. */
  CURSOR_SECRET: secret(),
  /** Longest accepted token lifetime (`exp - iat`); tokens must carry both claims. */
  AUTH_MAX_TOKEN_LIFETIME_S: seconds(24 * 3600, 60, Number.MAX_SAFE_INTEGER),
  /** Leeway for clocks that differ between the token issuer and this process (iat, exp, nbf). */
  AUTH_CLOCK_SKEW_S: seconds(30, 0, 600),
};
