/**
 * What waits on the caller's own profile, off the grid:
 *   GET  /v1/me/archive?before=&limit=        → {data: [{post, archived_at}], paging: {next_before}}
 *   GET  /v1/me/invites                       → {data: [{post, author_id}]}
 *   POST /v1/me/invites/:post_id/accept       → {grid_version}  (the post joins the caller's grid)
 *   POST /v1/me/invites/:post_id/decline      → {grid_version}  (unchanged: the grid is only read)
 *   PUT  /v1/me/blocks/:profile_id            → {profile_id, blocked: true, invites_dropped}
 *   DELETE /v1/me/blocks/:profile_id          → {profile_id, blocked: false}
 * Invitations are not part of the caller's grid (service/operations/invitations.ts); only accepting
 * writes it. Accept and decline go through the caller's grid and accept Idempotency-Key.
 * Accepting an invitation already accepted is a 200 that changes nothing; no invitation is a
 * 404. Blocking and unblocking are idempotent by themselves.
 */
import { Hono } from 'hono';
import type { GridService } from '../../service/grid-service.js';
import type { IdempotencyService } from '../../service/idempotency/idempotency.js';
import type { AppEnv } from '../env.js';
import { ArchiveQuery } from '../edit-schemas.js';
import { idempotentWrite } from '../idempotent.js';
import { readQuery } from '../request.js';
import { parseIdParam } from '../schemas.js';
import { shownPostView, versionOnly } from '../views.js';
import type { Body, ArchivePageJson, BlockJson, InvitesJson } from '../api/responses.js';

export function inboxRoutes(features: GridService, idem?: IdempotencyService) {
  const app = new Hono<AppEnv>();

  app.get('/me/archive', async (c) => {
    const q = readQuery(c, ArchiveQuery);
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

  app.get('/me/invites', async (c) => {
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
    app.post(`/me/invites/:post_id/${answer}`, async (c) => {
      const profileId = c.get('profileId');
      const postId = parseIdParam(c.req.param('post_id'), 'post_id');
      return idempotentWrite(
        c,
        idem,
        { scope: profileId, gridProfileId: profileId, render: versionOnly },
        async (opts) => {
          const out =
            answer === 'accept'
              ? await features.acceptInvite(profileId, postId, opts())
              : await features.declineInvite(profileId, postId, opts());
          return versionOnly(out.result, out.version);
        },
      );
    });
  }

  app.put('/me/blocks/:profile_id', async (c) => {
    const profileId = c.get('profileId');
    const author = parseIdParam(c.req.param('profile_id'), 'profile_id');
    return idempotentWrite(c, idem, { scope: profileId }, async () => {
      const { dropped } = await features.blockAuthor(profileId, author, c.get('scope'));
      const body = { profile_id: author.toString(), blocked: true, invites_dropped: dropped };
      return { status: 200, body: body satisfies Body<typeof BlockJson> };
    });
  });

  app.delete('/me/blocks/:profile_id', async (c) => {
    const profileId = c.get('profileId');
    const author = parseIdParam(c.req.param('profile_id'), 'profile_id');
    return idempotentWrite(c, idem, { scope: profileId }, async () => {
      await features.unblockAuthor(profileId, author, c.get('scope'));
      const body = { profile_id: author.toString(), blocked: false };
      return { status: 200, body: body satisfies Body<typeof BlockJson> };
    });
  });

  return app;
}
