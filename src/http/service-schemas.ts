/**
 * Request schemas of the service routes (http/routes/profile-posts.ts): the one source for
 * validation and for their OpenAPI entries (api/ops-service.ts).
 */
import { z } from 'zod';
import { CreatePostBody } from './schemas.js';

/** A platform's existing post: what a create takes, plus the time its post service recorded. */
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
