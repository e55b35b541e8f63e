/**
 * Per-post writes on the caller's grid:
 *   POST   /v1/me/posts/:post_id/archive                      → {grid_version}
 *   POST   /v1/me/posts/:post_id/unarchive  {position}        → {grid_version}
 *   DELETE /v1/me/posts/:post_id/collaborators/:profile_id    → {grid_version}  (of that grid)
 * The last one is for the author (remove a collaborator) or the collaborator (leave). Every
 * write accepts Idempotency-Key.
 */
import { Hono } from 'hono';
import type { GridService } from '../../service/grid-service.js';
import type { IdempotencyService } from '../../service/idempotency/idempotency.js';
import type { AppEnv } from '../env.js';
import { UnarchiveBody } from '../edit-schemas.js';
import { idempotentWrite } from '../idempotent.js';
import { readBody } from '../request.js';
import { parseIdParam } from '../schemas.js';
import { versionOnly } from '../views.js';

export function postFeatureRoutes(features: GridService, idem?: IdempotencyService) {
  const app = new Hono<AppEnv>();

  app.post('/me/posts/:post_id/archive', async (c) => {
    const profileId = c.get('profileId');
    const postId = parseIdParam(c.req.param('post_id'), 'post_id');
    return idempotentWrite(
      c,
      idem,
      { scope: profileId, gridProfileId: profileId, render: versionOnly },
      async (opts) => {
        const out = await features.archivePost(profileId, postId, opts());
        return versionOnly(out.result, out.version);
      },
    );
  });

  app.post('/me/posts/:post_id/unarchive', async (c) => {
    const profileId = c.get('profileId');
    const postId = parseIdParam(c.req.param('post_id'), 'post_id');
    const body = await readBody(c, UnarchiveBody, { emptyAsObject: true });
    return idempotentWrite(
      c,
      idem,
      { scope: profileId, gridProfileId: profileId, render: versionOnly },
      async (opts) => {
        const out = await features.unarchivePost(profileId, postId, body.position, opts());
        return versionOnly(out.result, out.version);
      },
    );
  });

  app.delete('/me/posts/:post_id/collaborators/:profile_id', async (c) => {
    const actor = c.get('profileId');
    const postId = parseIdParam(c.req.param('post_id'), 'post_id');
    const collaborator = parseIdParam(c.req.param('profile_id'), 'profile_id');
    // The grid that changes is the collaborator's: the key is recorded there.
    return idempotentWrite(
      c,
      idem,
      { scope: actor, gridProfileId: collaborator, render: versionOnly },
      async (opts) => {
        const out = await features.removeCollaborator(actor, postId, collaborator, opts());
        return versionOnly(out.result, out.version);
      },
    );
  });

  return app;
}
