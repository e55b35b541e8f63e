/**
 * Development sign-in for the web editor (api/ops-ops.ts `devToken`): a token for the demo
 * profile. Mounted only when the JWT secret was generated for this run (no AUTH_JWT_SECRET configured,
 * never in production: src/bootstrap.ts), so a deployment with real secrets has no such route.
 * The token is the same one `npm start` prints; the editor just saves the copy-paste.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { issueToken } from '../auth.js';
import type { AppEnv } from '../env.js';
import { devToken } from '../api/ops-ops.js';
import { serve } from '../api/route.js';

export interface DevTokens {
  readonly profileId: bigint;
  readonly ttlS: number;
}

export function devTokenRoutes(secret: string, dev: DevTokens) {
  const app = new OpenAPIHono<AppEnv>();
  serve(app, devToken, async (c) =>
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
