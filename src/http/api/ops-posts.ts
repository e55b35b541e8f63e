/** The post, archive, invitation and media routes (routes/posts, post-states, inbox, media). */
import { z } from '@hono/zod-openapi';
import { ArchiveQuery, MediaQuery, UnarchiveBody } from '../edit-schemas.js';
import { CreatePostBody, IdString } from '../schemas.js';
import {
  ArchivePageJson,
  BlockJson,
  CreatedPostJson,
  InvitesJson,
  MediaPageJson,
  PostJson,
  VersionJson,
} from './responses.js';
import { idempotencyKey, json, ok, route, user } from './route.js';

const POST = '4212987700266891264';
const AUTHOR = '4212987699721631744';
const OTHER = '4197170219582813190';
const post = {
  id: POST,
  author_id: AUTHOR,
  caption: 'sunset',
  media_url: 'https://cdn.example/a.jpg',
  created_at: '2026-11-30T19:34:30.634Z',
};
const version = (v: string) => ({
  200: ok('the grid version after the write', VersionJson, { grid_version: v }),
});
const postId = { params: z.object({ post_id: IdString }) };
const profileId = { params: z.object({ profile_id: IdString }) };

export const createPost = route('createPost', {
  method: 'post',
  path: '/v1/me/posts',
  tags: ['posts'],
  summary: 'Create a post',
  description:
    "Joins the top of the author's grid (right after the pins). Named collaborators are invited: the post shows on their grid once they accept. An invitation past a limit or to a profile that blocks the author is not sent: `not_invited` says whom, with `daily_limit` (the author's 100 a day) or `not_delivered` (the invitee's side: their 50 pending, 3 pending from this author, or a block, not told apart); the post is created all the same. `post.collaborators` in this answer lists whom it invited.",
  security: user,
  parameters: [idempotencyKey],
  request: { body: json(CreatePostBody, { caption: 'duet', collaborators: [OTHER] }, false) },
  responses: {
    201: ok('the post and the grid version', CreatedPostJson, {
      post: { ...post, collaborators: [OTHER] },
      grid_version: '2',
      not_invited: [],
    }),
  },
  problems: ['contention'],
});

export const getPost = route('getPost', {
  method: 'get',
  path: '/v1/posts/{post_id}',
  tags: ['posts'],
  summary: 'Read one post',
  description:
    "Readable by anyone while a grid shows it. An archived post (on no grid) is a 404 exactly like a post that does not exist, except with the token of the profile whose archive holds it; a deleted or taken-down post is a 404 for everyone. `collaborators` lists only those whose grid shows the post (none who has not accepted); with the author's token, `pending_collaborators` lists the invitations still waiting. The bearer token is optional; one that is not valid is a 401.",
  security: [],
  request: postId,
  responses: { 200: ok('the post', PostJson, post) },
  problems: ['unauthorized', 'post_not_found'],
});

export const deletePost = route('deletePost', {
  method: 'delete',
  path: '/v1/me/posts/{post_id}',
  tags: ['posts'],
  summary: 'Delete a post (author only)',
  description:
    "Removes it from the author's grid and from every collaborator's grid, archive and invitations. The version is the author's grid's.",
  security: user,
  parameters: [idempotencyKey],
  request: postId,
  responses: version('11'),
  problems: ['forbidden', 'post_not_found', 'contention'],
});

export const archivePost = route('archivePost', {
  method: 'post',
  path: '/v1/me/posts/{post_id}/archive',
  tags: ['posts'],
  summary: 'Archive a post',
  description:
    'Takes it off the grid, keeping its key. Archiving an archived post changes nothing.',
  security: user,
  parameters: [idempotencyKey],
  request: postId,
  responses: version('7'),
  problems: ['post_not_found', 'post_not_on_grid', 'contention'],
});

export const unarchivePost = route('unarchivePost', {
  method: 'post',
  path: '/v1/me/posts/{post_id}/unarchive',
  tags: ['posts'],
  summary: 'Unarchive a post',
  description:
    '`previous` (default) puts it back at the key it had (or right next to the row that took it); `chronological` at its creation-time place.',
  security: user,
  parameters: [idempotencyKey],
  request: { ...postId, body: json(UnarchiveBody, { position: 'previous' }, false) },
  responses: version('8'),
  problems: ['post_not_found', 'post_not_on_grid', 'contention'],
});

export const removeCollaborator = route('removeCollaborator', {
  method: 'delete',
  path: '/v1/me/posts/{post_id}/collaborators/{profile_id}',
  tags: ['posts'],
  summary: 'Remove a collaborator, or leave a post',
  description: "By the author or that collaborator; the version is the collaborator's grid's.",
  security: user,
  parameters: [idempotencyKey],
  request: { params: z.object({ post_id: IdString, profile_id: IdString }) },
  responses: version('2'),
  problems: ['forbidden', 'post_not_found', 'post_not_on_grid', 'contention'],
});

export const listArchive = route('listArchive', {
  method: 'get',
  path: '/v1/me/archive',
  tags: ['profile'],
  summary: "The caller's archive, newest archived first",
  description: 'Pass `paging.next_before` as `before` for the next page.',
  security: user,
  request: { query: ArchiveQuery },
  responses: {
    200: ok('a page of archived posts', ArchivePageJson, {
      data: [{ post, archived_at: '2026-11-30T19:40:02.118Z' }],
      paging: { next_before: null },
    }),
  },
  problems: [],
});

export const listInvites = route('listInvites', {
  method: 'get',
  path: '/v1/me/invites',
  tags: ['profile'],
  summary: 'Pending collaborator invitations, newest post first',
  security: user,
  responses: {
    200: ok('the invitations', InvitesJson, {
      data: [{ post: { ...post, collaborators: [OTHER] }, author_id: AUTHOR }],
    }),
  },
  problems: [],
});

export const acceptInvite = route('acceptInvite', {
  method: 'post',
  path: '/v1/me/invites/{post_id}/accept',
  tags: ['profile'],
  summary: "Accept an invitation: the post joins the caller's grid",
  security: user,
  parameters: [idempotencyKey],
  request: postId,
  responses: version('3'),
  problems: ['post_not_found', 'post_not_on_grid', 'conflict', 'contention'],
});

export const declineInvite = route('declineInvite', {
  method: 'post',
  path: '/v1/me/invites/{post_id}/decline',
  tags: ['profile'],
  summary: 'Decline an invitation',
  description: "The caller's grid is not written: `grid_version` is its current version.",
  security: user,
  parameters: [idempotencyKey],
  request: postId,
  responses: version('3'),
  problems: ['post_not_found', 'contention'],
});

export const blockAuthor = route('blockAuthor', {
  method: 'put',
  path: '/v1/me/blocks/{profile_id}',
  tags: ['profile'],
  summary: 'Take no invitations from this author',
  description:
    "Drops the author's pending invitations to the caller; later ones are not sent (the author sees `not_delivered`, as for a full inbox). Blocking again changes nothing.",
  security: user,
  parameters: [idempotencyKey],
  request: profileId,
  responses: {
    200: ok('blocked', BlockJson, { profile_id: AUTHOR, blocked: true, invites_dropped: 2 }),
  },
  problems: [],
});

export const unblockAuthor = route('unblockAuthor', {
  method: 'delete',
  path: '/v1/me/blocks/{profile_id}',
  tags: ['profile'],
  summary: 'Take invitations from this author again',
  security: user,
  parameters: [idempotencyKey],
  request: profileId,
  responses: { 200: ok('not blocked', BlockJson, { profile_id: AUTHOR, blocked: false }) },
  problems: [],
});

export const listMedia = route('listMedia', {
  method: 'get',
  path: '/v1/profiles/{profile_id}/media',
  tags: ['posts'],
  summary: 'Posts by creation time, newest first, whatever the display order',
  description:
    "`since` (inclusive) and `until` (exclusive) are Unix seconds (fractions = ms); `paging.next` is the next page's URL.",
  security: [],
  request: { ...profileId, query: MediaQuery },
  responses: {
    200: ok('a page of posts', MediaPageJson, {
      data: [post],
      paging: { next: `/v1/profiles/${AUTHOR}/media?before=${POST}&limit=1` },
    }),
  },
  problems: [],
});
