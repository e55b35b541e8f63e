/**
 * Request schemas of the service routes (http/routes/profile-posts.ts, http/routes/home-region.ts): the one source for
 * validation and for their OpenAPI entries (api/ops-service.ts). The body is the domain's
 * (domain/post-schema.ts), because `regrid import` checks every source row with it too.
 */
import { z } from 'zod';

export { RegisterPostBody } from '../domain/post-schema.js';

/** PUT /v1/profiles/:profile_id/home-region (http/routes/home-region.ts). */
export const HomeRegionBody = z.strictObject({
  region: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/)
    .meta({ description: 'a data center name, as Cassandra names it', examples: ['dc2'] }),
});
