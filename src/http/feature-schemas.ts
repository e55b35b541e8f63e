/**
 * Request shapes of the issue-3 routes (pins, unarchive, order, media), parsed at the boundary
 * like schemas.ts: strict objects, IDs as decimal strings turned into bigint once.
 */
import { z } from 'zod';
import { IdString } from './schemas.js';

export const PinsBody = z.strictObject({
  /** 0–3 post IDs on the caller's grid, in pin order (the service checks the count too). */
  post_ids: z.array(IdString).max(3),
});

export const UnarchiveBody = z.strictObject({
  position: z.enum(['previous', 'chronological']).default('previous'),
});

/**
 * The new order of the whole main order (pins excluded), or of a contiguous range named by its
 * outside neighbours: `above` = the post right above the range's first post (null = the range
 * starts at the top), `below` = the post right below its last (null = it ends at the bottom).
 */
export const OrderPatchBody = z
  .strictObject({
    post_ids: z.array(IdString).max(10_000),
    above: IdString.nullable().optional(),
    below: IdString.nullable().optional(),
  })
  .refine((b) => (b.above === undefined) === (b.below === undefined), {
    message: 'give both `above` and `below` (a range) or neither (the whole order)',
  });

/** Unix time in seconds (fractions allowed: milliseconds). */
const UnixSeconds = z.coerce.number().min(0).max(1e11);

export const MediaQuery = z.strictObject({
  since: UnixSeconds.optional(),
  until: UnixSeconds.optional(),
  before: IdString.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
});

/** GET /v1/me/archive: newest archived first; `before` = the previous page's `next_before`. */
export const ArchiveQuery = z.strictObject({
  before: IdString.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(24),
});
