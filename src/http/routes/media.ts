/**
 * The chronological media list (design §7.2; api/ops-posts.ts `listMedia`), unaffected by any
 * reorder. Newest first; only posts the profile's grid holds (an archived post is not among them). `since` (inclusive) / `until` (exclusive) are Unix times in seconds (fractions =
 * milliseconds) within the range IDs encode (400 outside); `before` is the last post ID of the
 * previous page. Display order is a separate resource (/grid).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { GridService } from '../../service/grid-service.js';
import type { AppEnv } from '../env.js';
import { formatUnixSeconds } from '../edit-schemas.js';
import { shownPostView } from '../views.js';
import { listMedia } from '../api/ops-posts.js';
import type { Body, MediaPageJson } from '../api/responses.js';
import { serve } from '../api/route.js';

export function mediaRoutes(features: GridService) {
  const app = new OpenAPIHono<AppEnv>();

  serve(app, listMedia, async (c) => {
    const profileId = c.req.valid('param').profile_id;
    const q = c.req.valid('query');
    const page = await features.listMedia({
      profileId,
      sinceMs: q.since,
      untilMs: q.until,
      before: q.before,
      limit: q.limit,
    });
    let next: string | null = null;
    if (page.nextBefore !== null) {
      const qs = new URLSearchParams({
        before: page.nextBefore.toString(),
        limit: String(q.limit),
      });
      if (q.since !== undefined) qs.set('since', formatUnixSeconds(q.since));
      next = `/v1/profiles/${profileId}/media?${qs}`;
    }
    // Collaborators as the grids show them: none who has not accepted (read/post-view.ts).
    const data = (await features.showPosts(page.items)).map(shownPostView);
    return c.json({ data, paging: { next } } satisfies Body<typeof MediaPageJson>);
  });

  return app;
}
