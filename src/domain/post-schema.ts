/**
 * What a post must be, as zod schemas: the one rule set of every writer. The HTTP routes parse
 * their requests with these (http/schemas.ts and http/service-schemas.ts re-export them for the
 * routes and the OpenAPI document), and `regrid import` checks every source row with the service
 * route's own body schema (domain/import-plan.ts `checkRow`), so a post the API would refuse (a
 * caption over 2,200 characters, a media URL that is not http(s) or longer than 2,048, an ID
 * outside 1..2^63-1, a malformed `created_at`) reaches no grid by any path. The schemas live in
 * the domain because both the HTTP layer and the service layer need them and neither may import
 * the other's way (.dependency-cruiser.cjs).
 */
import { z } from 'zod';
import { CANONICAL_ID, MAX_ID } from './ids.js';

/**
 * A positive signed 64-bit ID as a canonical decimal string: the one ID schema of paths, query
 * strings, bodies and import rows (same grammar as `parseId`, which token subjects go through).
 */
export const IdString = z
  .string()
  .regex(CANONICAL_ID, 'must be a decimal string without sign, spaces or leading zeros')
  .meta({
    description: 'A 64-bit ID (1..2^63-1) as a canonical decimal string',
    examples: ['4212987700266891264'],
  })
  .transform((s, ctx) => {
    const v = BigInt(s);
    if (v > MAX_ID) {
      ctx.addIssue({ code: 'custom', message: 'out of range (1..2^63-1)' });
      return z.NEVER;
    }
    return v;
  });

export const CreatePostBody = z.strictObject({
  caption: z.string().max(2200).optional(),
  media_url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  /** Profiles whose grids also show the post (collaborative post), each ordered independently. */
  collaborators: z.array(IdString).max(5).optional(),
});
export type CreatePostBody = z.infer<typeof CreatePostBody>;

/** A platform's existing post (the service route's body): a create's fields and its time. */
export const RegisterPostBody = CreatePostBody.extend({
  /**
   * RFC 3339 with an offset (`2026-06-01T12:03:00.123Z`); when absent, the time the ID encodes.
   * When given it must be that time to the millisecond (400 otherwise).
   */
  created_at: z.iso
    .datetime({ offset: true })
    .meta({ description: 'RFC 3339; must equal the time post_id encodes, to the millisecond' })
    .optional(),
});
export type RegisterPostBody = z.infer<typeof RegisterPostBody>;

/**
 * One row of `regrid import`: the service route's path IDs and its body (collaborators aside: an
 * import brings a post onto its author's grid only). Strict like every body: an unknown field is
 * refused, so a misspelt `caption` is never silently dropped.
 */
export const ImportRow = RegisterPostBody.omit({ collaborators: true }).extend({
  profile_id: IdString,
  post_id: IdString,
});

/**
 * The issues of a failed parse as one line: `field: message; …`. zod's messages name the rule,
 * never the value, so a 1 MB caption does not come back in a report.
 */
export const describeIssues = (err: z.ZodError): string =>
  err.issues
    .map((i) => (i.path.length > 0 ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
