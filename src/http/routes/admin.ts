/**
 * Moderation, authorised by ADMIN_TOKEN (a bearer token of its own, never a user JWT): a takedown
 * (api/ops-ops.ts) removes the post from every grid it is on, each through the grid's version path. Without a
 * configured ADMIN_TOKEN every admin request is refused. Accepts Idempotency-Key (scope 0).
 * The operational flags live under /v1/admin/flags (flags.ts), behind the same token.
 */
import { timingSafeEqual } from 'node:crypto';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { DomainError } from '../../domain/errors.js';
import type { GridService } from '../../service/grid-service.js';
import type { IdempotencyService } from '../../service/idempotency/idempotency.js';
import { headerOf, type AppEnv } from '../env.js';
import { idempotentWrite } from '../idempotent.js';
import { versionView } from '../views.js';
import { flagRoutes } from './flags.js';
import { takedown } from '../api/ops-ops.js';
import type { Body, TakedownJson } from '../api/responses.js';
import { serve } from '../api/route.js';

export function requireAdmin(token: string | undefined): MiddlewareHandler<AppEnv> {
  const expected = token ? Buffer.from(token) : undefined;
  return async function authenticateAdmin(c, next) {
    if (!expected) throw new DomainError('forbidden', 'the admin API is disabled (no ADMIN_TOKEN)');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(headerOf(c, 'authorization') ?? '');
    const given = m ? Buffer.from(m[1]!) : Buffer.alloc(0);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new DomainError('unauthorized', 'missing or wrong admin token');
    }
    await next();
  };
}

/** Behind `requireAdmin`, which app.ts mounts on /v1/admin/* (after the body limit). */
export function adminRoutes(features: GridService, idem?: IdempotencyService) {
  const app = new OpenAPIHono<AppEnv>();

  serve(app, takedown, async (c) => {
    const postId = c.req.valid('param').post_id;
    // No grid anchors the key: a takedown is idempotent by itself (re-running it skips done grids).
    return idempotentWrite(c, idem, { scope: 0n }, async () => {
      const out = await features.takedown(postId, c.get('scope'));
      return {
        status: 200,
        body: {
          post_id: postId.toString(),
          grids: out.grids.map((g) => ({
            profile_id: g.profileId.toString(),
            grid_version: versionView(g.version),
          })),
        } satisfies Body<typeof TakedownJson>,
      };
    });
  });

  app.route('/', flagRoutes(features));

  return app;
}
