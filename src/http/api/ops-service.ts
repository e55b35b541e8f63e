/** The service routes (routes/profile-posts.ts): a platform's own posts by its IDs. */
import { z } from '@hono/zod-openapi';
import { HomeRegionBody, RegisterPostBody } from '../service-schemas.js';
import { IdString } from '../schemas.js';
import { CreatedPostJson, HomeRegionJson, VersionJson } from './responses.js';
import { json, ok, route, service } from './route.js';

const PROFILE = '4212987699721631744';
const POST = '4212987700266891264';
const params = z.object({ profile_id: IdString, post_id: IdString });
const registered = {
  post: {
    id: POST,
    author_id: PROFILE,
    caption: 'sunset',
    media_url: null,
    created_at: '2026-11-30T19:34:30.634Z',
  },
  grid_version: '7',
};

export const registerPost = route('registerPost', {
  method: 'put',
  path: '/v1/profiles/{profile_id}/posts/{post_id}',
  tags: ['service'],
  summary: "Register a platform's existing post under its own ID",
  description:
    "The post joins the profile's grid at its creation position (under the pins; an old post is not put on top). `post_id` must be a 64-bit ID in regrid's layout (40 bits of milliseconds since 2011-01-01, 13 worker bits, 10 sequence bits) whose time is not in the future; `created_at`, when given, must equal that time to the millisecond. The same request again is a 200 that writes nothing; another body for a registered ID is 409. A post that was deleted (by its author, or unregistered) or taken down is never registered again: 410 `post_removed` with `reason` (`deleted` or `taken_down`), also for a late retry of the request that first registered it; a re-published post needs a new ID. Named collaborators are invited as for a created post.",
  security: service,
  request: {
    params,
    body: json(
      RegisterPostBody,
      { created_at: '2026-11-30T19:34:30.634Z', caption: 'sunset' },
      false,
    ),
  },
  responses: {
    201: ok('registered', CreatedPostJson, registered),
    200: ok('already registered with this body: nothing written', CreatedPostJson, registered),
  },
  problems: ['conflict', 'post_removed', 'contention', 'wrong_region'],
});

export const unregisterPost = route('unregisterPost', {
  method: 'delete',
  path: '/v1/profiles/{profile_id}/posts/{post_id}',
  tags: ['service'],
  summary: 'Unregister (delete) a post',
  description:
    "Removes it from the profile's grid and every collaborator's, as the author's delete does. Idempotent: a post that is not there is a 200 with the grid's version. 409 when the post belongs to another profile. The ID is spent: registering it again answers 410 `post_removed`.",
  security: service,
  request: { params },
  responses: {
    200: ok('the grid version after the write', VersionJson, { grid_version: '8' }),
  },
  problems: ['conflict', 'contention', 'wrong_region'],
});

export const setHomeRegion = route('setHomeRegion', {
  method: 'put',
  path: '/v1/profiles/{profile_id}/home-region',
  tags: ['service'],
  summary: "Set the region that serializes a profile's grid writes",
  description:
    'Re-homes the grid (docs/regions.md "Home regions"): one write of its own, decided in the grid\'s compare-and-set and committed at SERIAL (a quorum of every region), so a write planned on the old home loses its compare-and-set. Any region may take it. The same region again is a 200 that writes nothing (`changed: false`).',
  security: service,
  request: {
    params: z.object({ profile_id: IdString }),
    body: json(HomeRegionBody, { region: 'dc2' }),
  },
  responses: {
    200: ok('the home region after the write', HomeRegionJson, {
      profile_id: PROFILE,
      home_region: 'dc2',
      previous_home_region: 'dc1',
      changed: true,
      grid_version: '9',
    }),
  },
  problems: ['contention'],
});
