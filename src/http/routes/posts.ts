/**
 * Posts (api/ops-posts.ts): create (joins the author's grid at the top), read one as the caller
 * may see it (optional bearer token: service/read/post-view.ts), delete (leaves the grid).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { idToDate } from '../../domain/ids.js';
import type { GridService, NotInvited } from '../../service/grid-service.js';
import type { IdempotencyService, StoredResponse } from '../../service/idempotency/idempotency.js';
import type { AppEnv } from '../env.js';
import { idempotentWrite } from '../idempotent.js';
import { readBody } from '../request.js';
import { CreatePostBody } from '../schemas.js';
import { postView, shownPostView, versionOnly, versionView } from '../views.js';
import { viewerProfile } from '../viewer.js';
import { createPost, deletePost, getPost } from '../api/ops-posts.js';
import type { Body, CreatedPostJson } from '../api/responses.js';
import { serve } from '../api/route.js';
import { gridWrite } from './grid-write.js';

export function postsRoutes(service: GridService, idempotency?: IdempotencyService) {
  const app = new OpenAPIHono<AppEnv>();

  serve(app, createPost, async (c) => {
    const profileId = c.get('profileId');
    const body = await readBody(c, CreatePostBody, { emptyAsObject: true });
    const collaborators = body.collaborators ?? [];
    const input = { caption: body.caption, mediaUrl: body.media_url };
    // The response is rebuilt from the planner result alone: the post ID and the collaborators
    // not invited (a replay after a crash has nothing else).
    const render = (r: unknown, v: bigint): StoredResponse => {
      const { postId, notInvited = [] } = r as { postId: bigint; notInvited?: NotInvited[] };
      const refused = new Set(notInvited.map((n) => n.profileId));
      const post = {
        postId,
        authorId: profileId,
        ...input,
        createdAt: idToDate(postId),
        collaborators: collaborators.filter((p) => !refused.has(p)),
      };
      const body = {
        post: postView(post),
        grid_version: versionView(v),
        not_invited: notInvited.map((n) => ({ profile_id: String(n.profileId), reason: n.reason })),
      };
      return { status: 201, body: body satisfies Body<typeof CreatedPostJson> };
    };
    const spec = { scope: profileId, gridProfileId: profileId, render };
    return idempotentWrite(c, idempotency, spec, async (opts) => {
      const out = await service.createPost(profileId, { ...input, collaborators }, opts());
      return render({ postId: out.value.postId, notInvited: out.notInvited }, out.version);
    });
  });

  serve(app, getPost, async (c) => {
    const postId = c.req.valid('param').post_id;
    const shown = await service.readPost(postId, viewerProfile(c.get('viewer')));
    return c.json(shownPostView(shown));
  });

  serve(app, deletePost, async (c) => {
    const profileId = c.get('profileId');
    const postId = c.req.valid('param').post_id;
    // A collaborative post also leaves every collaborator's grid (operations/delete.ts).
    return gridWrite(c, idempotency, versionOnly, (opts) =>
      service.deletePost(profileId, postId, opts),
    );
  });

  return app;
}
