/** JSON views of domain records: IDs and versions as decimal strings, times as ISO 8601. */
import type { GridPage } from '../service/read/read-page.js';
import type { ShownPost } from '../service/read/post-view.js';
import type { PostRecord } from '../store/posts-store.js';
import type { Body, GridItemJson, GridPageJson, PostJson } from './api/responses.js';

/**
 * The post as its writer wrote it, collaborators named: only for the answer to that writer (the
 * create's author, the registering service). Reads use `shownPostView`.
 */
export const postView = (p: PostRecord): PostJson => ({
  id: p.postId.toString(),
  author_id: p.authorId.toString(),
  caption: p.caption ?? null,
  media_url: p.mediaUrl ?? null,
  created_at: p.createdAt.toISOString(),
  ...(p.collaborators.length > 0 ? { collaborators: p.collaborators.map(String) } : {}),
});

/** A post as one reader may see it (service/read/post-view.ts): no pending collaborator. */
export const shownPostView = ({ post, collaborators, pending }: ShownPost): PostJson => ({
  ...postView({ ...post, collaborators }),
  ...(pending && pending.length > 0 ? { pending_collaborators: pending.map(String) } : {}),
});

export const gridItemView = (p: PostRecord): GridItemJson => ({
  id: p.postId.toString(),
  caption: p.caption ?? null,
  media_url: p.mediaUrl ?? null,
  created_at: p.createdAt.toISOString(),
});

/** The JSON text of a grid page: what the rendered-page tiers keep (service/read/rendered-read.ts). */
export const renderGridPage = (page: GridPage): string =>
  JSON.stringify({
    items: page.items.map(gridItemView),
    next_cursor: page.nextCursor,
    grid_version: versionView(page.version),
    grid_changed: page.gridChanged,
    // Decimal string like every 64-bit value; left out for a grid not yet counted.
    ...(page.postCount !== undefined ? { post_count: page.postCount.toString() } : {}),
  } satisfies Body<typeof GridPageJson>);

/** grid_version is a decimal string: versions are 64-bit and JSON numbers are not. */
export const versionView = (v: bigint) => v.toString();

/** The stored response of a write that answers with the grid version alone. */
export const versionOnly = (_result: unknown, version: bigint) => ({
  status: 200 as const,
  body: { grid_version: versionView(version) },
});
