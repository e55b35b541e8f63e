/**
 * Response shapes (zod) of every JSON route: the OpenAPI document's response schemas, the
 * typed client's result types, and the views' return types (views.ts), so the three cannot
 * drift apart. IDs and versions are decimal strings, times ISO 8601.
 */
import { z } from 'zod';
import { CANONICAL_ID } from '../../domain/ids.js';
import { NOT_INVITED_REASONS } from '../../domain/invite-limits.js';
import { PROBLEM_BASE } from '../problem.js';

const ID_EXAMPLE = '4212987700266891264';

export const Id = z
  .string()
  .regex(CANONICAL_ID)
  .meta({ description: 'A 64-bit ID as a canonical decimal string', examples: [ID_EXAMPLE] });

/** Grid versions count from 0; a decimal string like every 64-bit value. */
export const Version = z
  .string()
  .regex(/^(?:0|[1-9][0-9]{0,18})$/)
  .meta({ description: 'The grid version (decimal string)', examples: ['42'] });

export const Instant = z.iso
  .datetime()
  .meta({ id: 'Instant', examples: ['2026-11-30T19:34:30.634Z'] });

export const PostJson = z
  .object({
    id: Id,
    author_id: Id,
    caption: z.string().nullable(),
    media_url: z.string().nullable(),
    created_at: Instant,
    collaborators: z.array(Id).optional().meta({
      description:
        'the collaborators whose grid shows the post (absent: none); one who has not accepted is not listed',
    }),
    pending_collaborators: z.array(Id).optional().meta({
      description:
        "the author's own read only: named collaborators whose invitation still waits (absent: none)",
    }),
  })
  .meta({ id: 'Post' });

export const GridItemJson = z
  .object({
    id: Id,
    caption: z.string().nullable(),
    media_url: z.string().nullable(),
    created_at: Instant,
  })
  .meta({ id: 'GridItem' });

export const GridPageJson = z.object({
  items: z.array(GridItemJson),
  next_cursor: z
    .string()
    .nullable()
    .meta({ description: 'Opaque signed cursor of the next page; null on the last page' }),
  grid_version: Version,
  grid_changed: z.boolean().meta({ description: 'the grid changed since the cursor was issued' }),
  post_count: Version.optional().meta({ description: 'posts on the grid as of grid_version' }),
});

export const VersionJson = z.strictObject({ grid_version: Version }).meta({ id: 'GridVersion' });

export const HomeRegionJson = z.strictObject({
  profile_id: Id,
  home_region: z.string(),
  previous_home_region: z.string().nullable(),
  changed: z.boolean(),
  grid_version: Version,
});

export const CreatedPostJson = z.strictObject({
  post: PostJson,
  grid_version: Version,
  not_invited: z
    .array(
      z.strictObject({
        profile_id: Id,
        reason: z.enum(NOT_INVITED_REASONS),
      }),
    )
    .optional()
    .meta({
      description:
        'named collaborators that were not invited, and why (empty: all were); always sent by POST /v1/me/posts',
    }),
});
export const MovedJson = z.strictObject({ grid_version: Version, move_id: z.uuid() });
export const UndoneJson = z.strictObject({
  grid_version: Version,
  restored: z.enum(['exact', 'anchor']),
});
export const PinsJson = z.strictObject({ grid_version: Version, pins: z.array(Id).max(3) });
export const ResetJson = z.strictObject({
  grid_version: Version,
  overrides_dropped: z.number().int(),
});
export const OrderJson = z.object({ post_ids: z.array(Id), pinned: z.array(Id).max(3) });
export const OrderPatchedJson = z.strictObject({
  grid_version: Version,
  rows_written: z.number().int(),
});

export const MediaPageJson = z.strictObject({
  data: z.array(PostJson),
  paging: z.strictObject({ next: z.string().nullable() }),
});
export const ArchivePageJson = z.strictObject({
  data: z.array(z.strictObject({ post: PostJson, archived_at: Instant })),
  paging: z.strictObject({ next_before: Id.nullable() }),
});
export const InvitesJson = z.strictObject({
  data: z.array(z.strictObject({ post: PostJson, author_id: Id })),
});
export const BlockJson = z.strictObject({
  profile_id: Id,
  blocked: z.boolean(),
  invites_dropped: z
    .number()
    .int()
    .optional()
    .meta({ description: "that author's pending invitations this block dropped" }),
});

export const TakedownJson = z.strictObject({
  post_id: Id,
  grids: z.array(z.strictObject({ profile_id: Id, grid_version: Version })),
});
export const FlagJson = z
  .object({ name: z.string(), enabled: z.boolean(), stored: z.boolean() })
  .meta({ id: 'Flag' });
export const FlagsJson = z.strictObject({ flags: z.array(FlagJson), refresh_bound_ms: z.number() });

export const HealthJson = z.strictObject({ status: z.literal('ok') });
export const DevTokenJson = z.strictObject({
  token: z.string(),
  profile_id: z.string().regex(/^[0-9]{1,19}$/),
  expires_in: z.number().int().positive(),
});
const CheckState = z.enum(['ok', 'degraded', 'down']);
export const ReadyJson = z.strictObject({
  /** `draining`: shutting down (SIGTERM); `unavailable`: a check below is `down`. */
  status: z.enum(['ready', 'draining', 'unavailable']),
  checks: z.record(z.string(), CheckState),
  /** Why, in words: e.g. how many token ranges lack the replicas a consistency level needs. */
  detail: z.string().optional(),
});

/** RFC 9457 problem details; `type` is `https://regrid.dev/problems/<code>`. */
export const ProblemJson = z
  .looseObject({
    type: z.string().regex(new RegExp(`^${PROBLEM_BASE.replaceAll('.', '\\.')}[a-z_]+$`)),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    code: z.string(),
  })
  .meta({
    id: 'Problem',
    description: 'application/problem+json (RFC 9457); extension members per code',
  });

/** The JSON a route sends for a response schema (routes check theirs with `satisfies`). */
export type Body<S extends z.ZodType> = z.output<S>;
export type PostJson = z.infer<typeof PostJson>;
export type GridItemJson = z.infer<typeof GridItemJson>;
