/**
 * Service routes: a platform's post service registers and unregisters its own posts, by its own
 * IDs, on a profile's grid (service tokens only, http/service-auth.ts; docs/integration.md).
 *   PUT    /v1/profiles/:profile_id/posts/:post_id  {created_at?, caption?, media_url?, collaborators?}
 *          → 201 {post, grid_version} the first time, 200 (nothing written) when already registered
 *          the same way, 409 when registered with another body
 *   DELETE /v1/profiles/:profile_id/posts/:post_id  → 200 {grid_version}, also when already gone
 * Both are idempotent by their meaning, so they take no Idempotency-Key: a retry after a 503 is
 * the same request again.
 */
import { Hono } from 'hono';
import { registeredCreatedAt } from '../../domain/ids.js';
import type { GridService } from '../../service/grid-service.js';
import type { AppEnv } from '../env.js';
import { readBody } from '../request.js';
import { parseIdParam } from '../schemas.js';
import { RegisterPostBody } from '../service-schemas.js';
import { postView, versionView } from '../views.js';
import type { Body, CreatedPostJson, VersionJson } from '../api/responses.js';

export function profilePostsRoutes(service: GridService) {
  const app = new Hono<AppEnv>();

  app.put('/profiles/:profile_id/posts/:post_id', async (c) => {
    const profileId = parseIdParam(c.req.param('profile_id'), 'profile_id');
    const postId = parseIdParam(c.req.param('post_id'), 'post_id');
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

  app.delete('/profiles/:profile_id/posts/:post_id', async (c) => {
    const profileId = parseIdParam(c.req.param('profile_id'), 'profile_id');
    const postId = parseIdParam(c.req.param('post_id'), 'post_id');
    const out = await service.platform.unregister(profileId, postId, { scope: c.get('scope') });
    return c.json({ grid_version: versionView(out.version) } satisfies Body<typeof VersionJson>);
  });

  return app;
}
