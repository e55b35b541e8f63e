/**
 * The catch-up route's shapes and route definition (routes/changes.ts, docs/http-api.md "Changes"):
 * the query the route parses with, the answer the client is typed from.
 */
import { z } from '@hono/zod-openapi';
import { CHANGE_KINDS } from '../../domain/change-log.js';
import { PUBLIC_ONLY_KINDS } from '../../domain/change-visibility.js';
import { IdString, pageLimit } from '../schemas.js';
import { Id, Instant, Version } from './responses.js';
import { ok, route } from './route.js';

export const MAX_CHANGES_LIMIT = 100;
export const DEFAULT_CHANGES_LIMIT = 50;

const VersionParam = z
  .string()
  .regex(/^(?:0|[1-9][0-9]{0,18})$/, 'must be a version: a decimal string')
  .transform((s) => BigInt(s))
  .refine((v) => v < 2n ** 63n, 'out of range (at most 2^63-1)');

export const ChangesQuery = z.strictObject({
  after_version: VersionParam,
  limit: pageLimit(MAX_CHANGES_LIMIT, DEFAULT_CHANGES_LIMIT),
});

export const ChangeJson = z.object({
  version: Version,
  generation: Version,
  at: Instant,
  kind: z.enum([...CHANGE_KINDS, ...PUBLIC_ONLY_KINDS]).meta({
    description:
      "the owner's and a service's read: the stream's kinds; anyone else's: `added`, `removed` (naming no post), the order changes, `changed` (docs/http-api.md)",
  }),
  post_ids: z.array(Id).meta({
    description:
      'the posts this version changed (not relabelled neighbours); none on a public `removed` or `changed`',
  }),
});

export const ChangesJson = z.object({
  changes: z.array(ChangeJson),
  grid_version: Version,
  next_after_version: Version.optional().meta({
    description: 'more changes follow: pass it as after_version',
  }),
});

const P = '4212987700266891264';

export const readChanges = route('readChanges', {
  method: 'get',
  path: '/v1/profiles/{profile_id}/grid/changes',
  tags: ['grid'],
  summary: 'The grid changes since a version (catch-up)',
  description:
    "The changes after `after_version`, oldest first, one per version, from the bounded change log (CHANGE_LOG_VERSIONS). 410 `history_gone` with the current `grid_version` when the log no longer reaches back to `after_version`: read the grid again. With the grid owner's token or a service token the records are the change stream's (docs/integration.md); anyone else (no token, another profile's) reads their public form, which tells nothing a grid read would not: posts that joined read `added`, anything that took a post off the grid (an archive, a deletion, a takedown, a collaborator leaving) reads `removed` naming no post, order changes keep their kind, the rest reads `changed`. A bearer token that is neither is a 401.",
  security: [],
  request: { params: z.object({ profile_id: IdString }), query: ChangesQuery },
  responses: {
    200: ok('the changes, oldest first', ChangesJson, {
      changes: [
        {
          version: '8',
          generation: '1',
          at: '2026-12-02T13:00:00.000Z',
          kind: 'moved',
          post_ids: [P],
        },
      ],
      grid_version: '9',
      next_after_version: '8',
    }),
  },
  problems: ['unauthorized', 'history_gone'],
});
