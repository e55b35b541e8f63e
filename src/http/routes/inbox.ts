/**
 * What waits on the caller's own profile, off the grid (api/ops-posts.ts): the archive, the
 * invitations (accept, decline), blocks. Invitations are not part of the caller's grid (service/operations/invitations.ts); only accepting
 * writes it. Accept and decline go through the caller's grid and accept Idempotency-Key.
 * Accepting an invitation already accepted is a 200 that changes nothing; no invitation is a
 * 404. Blocking and unblocking are idempotent by themselves.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { GridService } from '../../service/grid-service.js';
import type { IdempotencyService } from '../../service/idempotency/idempotency.js';
import type { AppEnv } from '../env.js';
import { idempotentWrite } from '../idempotent.js';
import { shownPostView, versionOnly } from '../views.js';
import * as ops from '../api/ops-posts.js';
import type { Body, ArchivePageJson, BlockJson, InvitesJson } from '../api/responses.js';
import { serve } from '../api/route.js';
import { gridWrite } from './grid-write.js';

export function inboxRoutes(features: GridService, idem?: IdempotencyService) {
  const app = new OpenAPIHono<AppEnv>();

  serve(app, ops.listArchive, async (c) => {
    const q = c.req.valid('query');
    const page = await features.listArchive(c.get('profileId'), q.limit, q.before);
    const shown = await features.showPosts(page.items.map((i) => i.post));
    return c.json({
      data: page.items.map((i, k) => ({
        post: shownPostView(shown[k]!),
        archived_at: i.archivedAt.toISOString(),
      })),
      paging: { next_before: page.nextBefore === null ? null : page.nextBefore.toString() },
    } satisfies Body<typeof ArchivePageJson>);
  });

  serve(app, ops.listInvites, async (c) => {
    const invites = await features.listInvites(c.get('profileId'));
    // Another invitee of the same post is not named until they accept (read/post-view.ts).
    const shown = await features.showPosts(invites.map((i) => i.post));
    return c.json({
      data: invites.map((i, k) => ({
        post: shownPostView(shown[k]!),
        author_id: i.authorId.toString(),
      })),
    } satisfies Body<typeof InvitesJson>);
  });

  for (const answer of ['accept', 'decline'] as const) {
    serve(app, answer === 'accept' ? ops.acceptInvite : ops.declineInvite, async (c) => {
      const profileId = c.get('profileId');
      const postId = c.req.valid('param').post_id;
      return gridWrite(c, idem, versionOnly, (opts) =>
        answer === 'accept'
          ? features.acceptInvite(profileId, postId, opts)
          : features.declineInvite(profileId, postId, opts),
      );
    });
  }

  serve(app, ops.blockAuthor, async (c) => {
    const profileId = c.get('profileId');
    const author = c.req.valid('param').profile_id;
    return idempotentWrite(c, idem, { scope: profileId }, async () => {
      const { dropped } = await features.blockAuthor(profileId, author, c.get('scope'));
      const body = { profile_id: author.toString(), blocked: true, invites_dropped: dropped };
      return { status: 200, body: body satisfies Body<typeof BlockJson> };
    });
  });

  serve(app, ops.unblockAuthor, async (c) => {
    const profileId = c.get('profileId');
    const author = c.req.valid('param').profile_id;
    return idempotentWrite(c, idem, { scope: profileId }, async () => {
      await features.unblockAuthor(profileId, author, c.get('scope'));
      const body = { profile_id: author.toString(), blocked: false };
      return { status: 200, body: body satisfies Body<typeof BlockJson> };
    });
  });

  return app;
}
