/**
 * Request schemas of the service routes (http/routes/profile-posts.ts): the one source for
 * validation and for their OpenAPI entries (api/ops-service.ts). The body is the domain's
 * (domain/post-schema.ts), because `regrid import` checks every source row with it too.
 */
export { RegisterPostBody } from '../domain/post-schema.js';
