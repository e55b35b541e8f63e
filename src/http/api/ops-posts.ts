/** The registry's post, archive, invitation and media routes (routes/posts, post-states, inbox, media). */
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
import type { OperationSpec } from './operation.js';

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
const version = (v: string) =>
  ({
    status: 200,
    description: 'the grid version after the write',
    schema: VersionJson,
    example: { grid_version: v },
  }) as const;

export const postOperations = {
  createPost: {
    method: 'post',
    path: '/v1/me/posts',
    tag: 'posts',
    summary: 'Create a post',
    description:
      "Joins the top of the author's grid (right after the pins). Named collaborators are invited: the post shows on their grid once they accept. An invitation past a limit or to a profile that blocks the author is not sent: `not_invited` says whom, with `daily_limit` (the author's 100 a day) or `not_delivered` (the invitee's side: their 50 pending, 3 pending from this author, or a block, not told apart); the post is created all the same. `post.collaborators` in this answer lists whom it invited.",
    auth: 'user',
    body: CreatePostBody,
    bodyOptional: true,
    requestExample: { caption: 'duet', collaborators: [OTHER] },
    idempotent: true,
    ok: {
      status: 201,
      description: 'the post and the grid version',
      schema: CreatedPostJson,
      example: { post: { ...post, collaborators: [OTHER] }, grid_version: '2', not_invited: [] },
    },
    problems: ['contention'],
  },
  getPost: {
    method: 'get',
    path: '/v1/posts/:post_id',
    tag: 'posts',
    summary: 'Read one post',
    description:
      "Readable by anyone while a grid shows it. An archived post (on no grid) is a 404 exactly like a post that does not exist, except with the token of the profile whose archive holds it; a deleted or taken-down post is a 404 for everyone. `collaborators` lists only those whose grid shows the post (none who has not accepted); with the author's token, `pending_collaborators` lists the invitations still waiting. The bearer token is optional; one that is not valid is a 401.",
    auth: 'none',
    params: { post_id: IdString },
    ok: { status: 200, description: 'the post', schema: PostJson, example: post },
    problems: ['unauthorized', 'post_not_found'],
  },
  deletePost: {
    method: 'delete',
    path: '/v1/me/posts/:post_id',
    tag: 'posts',
    summary: 'Delete a post (author only)',
    description:
      "Removes it from the author's grid and from every collaborator's grid, archive and invitations. The version is the author's grid's.",
    auth: 'user',
    params: { post_id: IdString },
    idempotent: true,
    ok: version('11'),
    problems: ['forbidden', 'post_not_found', 'contention'],
  },
  archivePost: {
    method: 'post',
    path: '/v1/me/posts/:post_id/archive',
    tag: 'posts',
    summary: 'Archive a post',
    description:
      'Takes it off the grid, keeping its key. Archiving an archived post changes nothing.',
    auth: 'user',
    params: { post_id: IdString },
    idempotent: true,
    ok: version('7'),
    problems: ['post_not_found', 'post_not_on_grid', 'contention'],
  },
  unarchivePost: {
    method: 'post',
    path: '/v1/me/posts/:post_id/unarchive',
    tag: 'posts',
    summary: 'Unarchive a post',
    description:
      '`previous` (default) puts it back at the key it had (or right next to the row that took it); `chronological` at its creation-time place.',
    auth: 'user',
    params: { post_id: IdString },
    body: UnarchiveBody,
    bodyOptional: true,
    requestExample: { position: 'previous' },
    idempotent: true,
    ok: version('8'),
    problems: ['post_not_found', 'post_not_on_grid', 'contention'],
  },
  removeCollaborator: {
    method: 'delete',
    path: '/v1/me/posts/:post_id/collaborators/:profile_id',
    tag: 'posts',
    summary: 'Remove a collaborator, or leave a post',
    description: "By the author or that collaborator; the version is the collaborator's grid's.",
    auth: 'user',
    params: { post_id: IdString, profile_id: IdString },
    idempotent: true,
    ok: version('2'),
    problems: ['forbidden', 'post_not_found', 'post_not_on_grid', 'contention'],
  },
  listArchive: {
    method: 'get',
    path: '/v1/me/archive',
    tag: 'profile',
    summary: "The caller's archive, newest archived first",
    description: 'Pass `paging.next_before` as `before` for the next page.',
    auth: 'user',
    query: ArchiveQuery,
    ok: {
      status: 200,
      description: 'a page of archived posts',
      schema: ArchivePageJson,
      example: {
        data: [{ post, archived_at: '2026-11-30T19:40:02.118Z' }],
        paging: { next_before: null },
      },
    },
    problems: [],
  },
  listInvites: {
    method: 'get',
    path: '/v1/me/invites',
    tag: 'profile',
    summary: 'Pending collaborator invitations, newest post first',
    auth: 'user',
    ok: {
      status: 200,
      description: 'the invitations',
      schema: InvitesJson,
      example: { data: [{ post: { ...post, collaborators: [OTHER] }, author_id: AUTHOR }] },
    },
    problems: [],
  },
  acceptInvite: {
    method: 'post',
    path: '/v1/me/invites/:post_id/accept',
    tag: 'profile',
    summary: "Accept an invitation: the post joins the caller's grid",
    auth: 'user',
    params: { post_id: IdString },
    idempotent: true,
    ok: version('3'),
    problems: ['post_not_found', 'post_not_on_grid', 'conflict', 'contention'],
  },
  declineInvite: {
    method: 'post',
    path: '/v1/me/invites/:post_id/decline',
    tag: 'profile',
    summary: 'Decline an invitation',
    description: "The caller's grid is not written: `grid_version` is its current version.",
    auth: 'user',
    params: { post_id: IdString },
    idempotent: true,
    ok: version('3'),
    problems: ['post_not_found', 'contention'],
  },
  blockAuthor: {
    method: 'put',
    path: '/v1/me/blocks/:profile_id',
    tag: 'profile',
    summary: 'Take no invitations from this author',
    description:
      "Drops the author's pending invitations to the caller; later ones are not sent (the author sees `not_delivered`, as for a full inbox). Blocking again changes nothing.",
    auth: 'user',
    params: { profile_id: IdString },
    idempotent: true,
    ok: {
      status: 200,
      description: 'blocked',
      schema: BlockJson,
      example: { profile_id: AUTHOR, blocked: true, invites_dropped: 2 },
    },
    problems: [],
  },
  unblockAuthor: {
    method: 'delete',
    path: '/v1/me/blocks/:profile_id',
    tag: 'profile',
    summary: 'Take invitations from this author again',
    auth: 'user',
    params: { profile_id: IdString },
    idempotent: true,
    ok: {
      status: 200,
      description: 'not blocked',
      schema: BlockJson,
      example: { profile_id: AUTHOR, blocked: false },
    },
    problems: [],
  },
  listMedia: {
    method: 'get',
    path: '/v1/profiles/:profile_id/media',
    tag: 'posts',
    summary: 'Posts by creation time, newest first, whatever the display order',
    description:
      "`since` (inclusive) and `until` (exclusive) are Unix seconds (fractions = ms); `paging.next` is the next page's URL.",
    auth: 'none',
    params: { profile_id: IdString },
    query: MediaQuery,
    ok: {
      status: 200,
      description: 'a page of posts',
      schema: MediaPageJson,
      example: {
        data: [post],
        paging: { next: `/v1/profiles/${AUTHOR}/media?before=${POST}&limit=1` },
      },
    },
    problems: [],
  },
} as const satisfies Record<string, OperationSpec>;
