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
import { requireProfile } from './auth.js';
import { headerOf, type AppEnv, type Viewer } from './env.js';
import { DEFAULT_TOKEN_POLICY, type TokenPolicy } from './jwt.js';
import { requireService } from './service-auth.js';

const ANYONE: Viewer = { kind: 'anyone' };
const checked = async () => {};

export function identifyViewer(
  userSecret: string,
  serviceSecret: string | undefined,
  policy: TokenPolicy = DEFAULT_TOKEN_POLICY,
): MiddlewareHandler<AppEnv> {
  const asProfile = requireProfile(userSecret, policy);
  const asService = requireService(serviceSecret, policy);
  return async function identifyViewer(c, next) {
    c.set('viewer', await viewerOf());
    await next();

    // Each check sets its variable or throws; neither does any I/O.
    async function viewerOf(): Promise<Viewer> {
      if (headerOf(c, 'authorization') === undefined) return ANYONE;
      try {
        await asProfile(c, checked);
        return { kind: 'profile', profileId: c.get('profileId') };
      } catch {
        // not a user token: perhaps a service's
      }
      try {
        await asService(c, checked);
        return { kind: 'service', name: c.get('serviceName') };
      } catch {
        throw new DomainError('unauthorized', 'not a valid user or service token');
      }
    }
  };
}

/** The viewer's profile, if a profile's token came with the request. */
export const viewerProfile = (v: Viewer): bigint | undefined =>
  v.kind === 'profile' ? v.profileId : undefined;
