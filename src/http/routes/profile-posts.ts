/**
 * Service routes (api/ops-service.ts): a platform's post service registers and unregisters its
 * own posts, by its own IDs, on a profile's grid (service tokens only, http/service-auth.ts;
 * docs/integration.md). Both are idempotent by their meaning, so they take no Idempotency-Key: a retry after a 503 is
 * the same request again.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { registeredCreatedAt } from '../../domain/ids.js';
import type { GridService } from '../../service/grid-service.js';
import type { AppEnv } from '../env.js';
import { readBody } from '../request.js';
import { RegisterPostBody } from '../service-schemas.js';
import { postView, versionView } from '../views.js';
import type { Body, CreatedPostJson, VersionJson } from '../api/responses.js';
import { serve } from '../api/route.js';
import { registerPost, unregisterPost } from '../api/ops-service.js';

export function profilePostsRoutes(service: GridService) {
  const app = new OpenAPIHono<AppEnv>();

  serve(app, registerPost, async (c) => {
    const { profile_id: profileId, post_id: postId } = c.req.valid('param');
    const body = await readBody(c, RegisterPostBody, { emptyAsObject: true });
    const given = body.created_at === undefined ? undefined : new Date(body.created_at);
    const collaborators = (body.collaborators ?? []).map((s) => BigInt(s));
    const out = await service.platform.register(
      {
        postId,
        authorId: profileId,
        caption: body.caption,
        mediaUrl: body.media_url,
        createdAt: registeredCreatedAt(postId, given),
        collaborators,
      },
      { scope: c.get('scope') },
    );
    const json = {
      post: postView(out.post),
      grid_version: versionView(out.version),
      not_invited: out.notInvited.map((n) => ({
        profile_id: String(n.profileId),
        reason: n.reason,
      })),
    };
    return c.json(json satisfies Body<typeof CreatedPostJson>, out.created ? 201 : 200);
  });

  serve(app, unregisterPost, async (c) => {
    const { profile_id: profileId, post_id: postId } = c.req.valid('param');
    const out = await service.platform.unregister(profileId, postId, { scope: c.get('scope') });
    return c.json({ grid_version: versionView(out.version) } satisfies Body<typeof VersionJson>);
  });

  return app;
}
