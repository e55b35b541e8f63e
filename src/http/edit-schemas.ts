/**
 * Request shapes of the grid-editing routes (pins, unarchive, order, media, archive), parsed at the boundary
 * like schemas.ts: strict objects, IDs as decimal strings turned into bigint once.
 */
import { z } from 'zod';
import { MAX_TIMESTAMP_MS, REGRID_EPOCH_MS } from '../domain/ids.js';
import { IdString, pageLimit } from './schemas.js';

export const PinsBody = z.strictObject({
  /** 0–3 post IDs on the caller's grid, in pin order (the service checks the count too). */
  post_ids: z.array(IdString).max(3),
});

/** A move's undo handle (`move_id` of POST /v1/me/grid/moves): a UUID. */
export const MoveIdParam = z
  .string()
  // No `i` flag: the OpenAPI document copies the pattern, and JSON Schema patterns have no flags.
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/)
  .meta({ examples: ['0f7d3c1e-5b0a-4d3e-9a55-2f1c9e8b7a61'] });

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

const FIRST_MS = REGRID_EPOCH_MS;
const LAST_MS = REGRID_EPOCH_MS + Number(MAX_TIMESTAMP_MS);
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Unix time in seconds, up to 3 decimals (milliseconds), parsed to integer milliseconds. Only the
 * instants a post ID can encode are accepted: a bound becomes the lowest ID of its millisecond.
 */
const UnixSeconds = z
  .string()
  .regex(/^(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,3})?$/, 'must be Unix seconds such as 1700000000.5')
  .transform((s, ctx) => {
    const [whole = '', frac = ''] = s.split('.');
    const ms = Number(whole) * 1000 + Number(frac.padEnd(3, '0'));
    if (ms < FIRST_MS || ms > LAST_MS) {
      ctx.addIssue({ code: 'custom', message: `must be within ${iso(FIRST_MS)}..${iso(LAST_MS)}` });
      return z.NEVER;
    }
    return ms;
  });

/** Integer milliseconds as the Unix seconds UnixSeconds accepts (for `paging.next`). */
export const formatUnixSeconds = (ms: number): string => {
  const rest = ms % 1000;
  const whole = (ms - rest) / 1000;
  return rest === 0 ? String(whole) : `${whole}.${String(rest).padStart(3, '0')}`;
};

/** `since`/`until` come out in milliseconds. */
export const MediaQuery = z.strictObject({
  since: UnixSeconds.optional(),
  until: UnixSeconds.optional(),
  before: IdString.optional(),
  limit: pageLimit(100, 25),
});

/** GET /v1/me/archive: newest archived first; `before` = the previous page's `next_before`. */
export const ArchiveQuery = z.strictObject({
  before: IdString.optional(),
  limit: pageLimit(100, 24),
});
