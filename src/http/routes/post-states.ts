/**
 * Per-post writes on the caller's grid (api/ops-posts.ts): archive, unarchive, and remove a
 * collaborator, by the author or by that collaborator (leave). Every write accepts Idempotency-Key.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { GridService } from '../../service/grid-service.js';
import type { IdempotencyService } from '../../service/idempotency/idempotency.js';
import type { AppEnv } from '../env.js';
import { UnarchiveBody } from '../edit-schemas.js';
import { readBody } from '../request.js';
import { versionOnly } from '../views.js';
import { archivePost, removeCollaborator, unarchivePost } from '../api/ops-posts.js';
import { serve } from '../api/route.js';
import { gridWrite } from './grid-write.js';

export function postFeatureRoutes(features: GridService, idem?: IdempotencyService) {
  const app = new OpenAPIHono<AppEnv>();

  serve(app, archivePost, async (c) => {
    const profileId = c.get('profileId');
    const postId = c.req.valid('param').post_id;
    return gridWrite(c, idem, versionOnly, (opts) => features.archivePost(profileId, postId, opts));
  });

  serve(app, unarchivePost, async (c) => {
    const profileId = c.get('profileId');
    const postId = c.req.valid('param').post_id;
    const body = await readBody(c, UnarchiveBody, { emptyAsObject: true });
    return gridWrite(c, idem, versionOnly, (opts) =>
      features.unarchivePost(profileId, postId, body.position, opts),
    );
  });

  serve(app, removeCollaborator, async (c) => {
    const actor = c.get('profileId');
    const { post_id: postId, profile_id: collaborator } = c.req.valid('param');
    // The grid that changes is the collaborator's: the key is recorded there.
    return gridWrite(
      c,
      idem,
      versionOnly,
      (opts) => features.removeCollaborator(actor, postId, collaborator, opts),
      collaborator,
    );
  });

  return app;
}
