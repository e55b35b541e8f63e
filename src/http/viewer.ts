/**
 * Who reads a public route that answers an owner more than anyone else (docs/http-api.md "Who
 * sees what"): without an `Authorization` header, anyone; with a user token (http/auth.ts), that
 * profile; with a service token (http/service-auth.ts), the platform's own service. A header that
 * is neither is a 401, never a quiet anonymous read: a client whose token expired learns so
 * instead of seeing less. Mounted on `GET /v1/posts/:post_id` and the changes route only; the
 * other public reads answer everyone alike.
 */
import type { MiddlewareHandler } from 'hono';
import { DomainError } from '../domain/errors.js';
import { requireProfile, type TokenRules } from './auth.js';
import { headerOf, type AppEnv, type Viewer } from './env.js';
import { DEFAULT_TOKEN_POLICY, type TokenPolicy } from './jwt.js';
import { requireService } from './service-auth.js';

const ANYONE: Viewer = { kind: 'anyone' };
const checked = async () => {};

/** The same token rules as the routes that require a token (HS256 secrets or a JWKS key set). */
export function identifyViewer(
  userTokens: string | TokenRules,
  serviceTokens: string | TokenRules | undefined,
  policy: TokenPolicy = DEFAULT_TOKEN_POLICY,
): MiddlewareHandler<AppEnv> {
  const asProfile = requireProfile(userTokens, policy);
  const asService = requireService(serviceTokens, policy);
  return async function identifyViewer(c, next) {
    c.set('viewer', await viewerOf());
    await next();

    // Each check sets its variable or throws; neither does any I/O.
    async function viewerOf(): Promise<Viewer> {
      if (headerOf(c, 'authorization') === undefined) return ANYONE;
      try {
        await asProfile(c, checked);
        return { kind: 'profile', profileId: c.get('profileId') };
      } catch (err) {
        // Not a user token: perhaps a service's. A 503 (the key set unavailable) stays a 503.
        if (!refused(err)) throw err;
      }
      try {
        await asService(c, checked);
        return { kind: 'service', name: c.get('serviceName') };
      } catch (err) {
        if (!refused(err)) throw err;
        throw new DomainError('unauthorized', 'not a valid user or service token');
      }
    }
  };
}

const refused = (err: unknown) =>
  err instanceof DomainError && (err.code === 'unauthorized' || err.code === 'forbidden');

/** The viewer's profile, if a profile's token came with the request. */
export const viewerProfile = (v: Viewer): bigint | undefined =>
  v.kind === 'profile' ? v.profileId : undefined;
