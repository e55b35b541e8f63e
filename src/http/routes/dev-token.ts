/**
 * Development sign-in for the web editor:
 *   POST /dev/token → {token, profile_id, expires_in}   (a token for the demo profile)
 * Mounted only when the JWT secret was generated for this run (no AUTH_JWT_SECRET configured,
 * never in production: src/bootstrap.ts), so a deployment with real secrets has no such route.
 * The token is the same one `npm start` prints; the editor just saves the copy-paste.
 */
import { Hono } from 'hono';
import { issueToken } from '../auth.js';
import type { AppEnv } from '../env.js';

export interface DevTokens {
  readonly profileId: bigint;
  readonly ttlS: number;
}

export function devTokenRoutes(secret: string, dev: DevTokens) {
  const app = new Hono<AppEnv>();
  app.post('/dev/token', async (c) =>
    c.json(
      {
        token: await issueToken(secret, dev.profileId, dev.ttlS),
        profile_id: dev.profileId.toString(),
        expires_in: dev.ttlS,
      },
      200,
      { 'cache-control': 'no-store' },
    ),
  );
  return app;
}
