/**
 * Issue 31 ("Owner-only data"), through the real HTTP app on the real Cassandra: what only the
 * owner may see (an archived post, the private kinds of the change log, pending invitations, a
 * block) is neither readable nor inferable by anyone else. Each rule is asked as anonymous, as a
 * stranger's token and as the owner's (docs/http-api.md "Who sees what").
 */
import { describe, expect, it } from 'vitest';
import { freshProfile, httpApi, openFeatures, type Call, type Features } from './harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
let call: Call;
openPerFile(openFeatures, (opened) => {
  f = opened;
  ({ call } = httpApi(f));
});

interface ChangeView {
  version: string;
  generation: string;
  at: string;
  kind: string;
  post_ids: string[];
}

/** Kinds the public form of the changes route may use: nothing that names private state. */
const PUBLIC_KINDS = [
  'added',
  'removed',
  'moved',
  'pinned',
  'unpinned',
  'reset',
  'batch_reordered',
  'undone',
  'changed',
];

async function post(as: bigint, body: Record<string, unknown> = {}) {
  const r = await call('POST', '/v1/me/posts', { as, body });
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return r.json as { post: { id: string }; not_invited: { profile_id: string; reason: string }[] };
}

/** A 404 problem without the member that echoes the asked ID: what a visitor compares. */
const notFoundShape = (json: Record<string, unknown>) => {
  const { post_id: _id, ...rest } = json;
  return rest;
};

async function changes(profile: bigint, as?: { as?: bigint; service?: string }) {
  const r = await call('GET', `/v1/profiles/${profile}/grid/changes?after_version=0`, as);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json.changes as ChangeView[];
}

describe('an archived post is its owner’s alone', () => {
  it('404 for anonymous and a stranger, exactly as a post that never existed; the owner still reads it', async () => {
    const owner = freshProfile(f);
    const stranger = freshProfile(f);
    const a = (await post(owner, { caption: 'private', media_url: 'https://cdn.example/a.jpg' }))
      .post.id;
    const kept = (await post(owner, { caption: 'public' })).post.id;
    expect((await call('GET', `/v1/posts/${a}`)).status).toBe(200);
    expect((await call('POST', `/v1/me/posts/${a}/archive`, { as: owner })).status).toBe(200);

    const never = (await call('GET', `/v1/posts/${f.ids.next()}`)).json;
    for (const as of [undefined, stranger]) {
      const r = await call('GET', `/v1/posts/${a}`, as === undefined ? {} : { as });
      expect(r.status, `as ${as}`).toBe(404);
      expect(notFoundShape(r.json)).toEqual(notFoundShape(never));
      expect(JSON.stringify(r.json)).not.toContain('private');
      // The other public reads of the profile do not show it either.
      const media = await call(
        'GET',
        `/v1/profiles/${owner}/media`,
        as === undefined ? {} : { as },
      );
      expect(media.status).toBe(200);
      expect(media.json.data.map((p: { id: string }) => p.id)).toEqual([kept]);
      const grid = await call('GET', `/v1/profiles/${owner}/grid`, as === undefined ? {} : { as });
      expect(grid.json.items.map((p: { id: string }) => p.id)).toEqual([kept]);
    }
    // The post that stays public is still readable by all.
    expect((await call('GET', `/v1/posts/${kept}`)).status).toBe(200);
    expect((await call('GET', `/v1/posts/${kept}`, { as: stranger })).status).toBe(200);

    // The owner: through the archive, and through the post route with their own token.
    const archive = await call('GET', '/v1/me/archive', { as: owner });
    expect(archive.json.data.map((i: { post: { id: string } }) => i.post.id)).toEqual([a]);
    const own = await call('GET', `/v1/posts/${a}`, { as: owner });
    expect(own.status).toBe(200);
    expect(own.json.caption).toBe('private');

    // Back on the grid, it is public again.
    expect((await call('POST', `/v1/me/posts/${a}/unarchive`, { as: owner })).status).toBe(200);
    expect((await call('GET', `/v1/posts/${a}`)).status).toBe(200);
    expect((await call('GET', `/v1/posts/${a}`, { as: stranger })).status).toBe(200);
  });

  it('a bad token on the post route is a 401, never a quiet anonymous read', async () => {
    const owner = freshProfile(f);
    const a = (await post(owner)).post.id;
    const r = await call('GET', `/v1/posts/${a}`, { headers: { authorization: 'Bearer a.b.c' } });
    expect(r.status).toBe(401);
  });

  it('a taken-down post stays 404 for everyone, its owner included', async () => {
    const owner = freshProfile(f);
    const a = (await post(owner)).post.id;
    expect((await call('POST', `/v1/admin/posts/${a}/takedown`, { admin: true })).status).toBe(200);
    for (const as of [undefined, freshProfile(f), owner]) {
      expect((await call('GET', `/v1/posts/${a}`, as === undefined ? {} : { as })).status).toBe(
        404,
      );
    }
  });
});

describe('the changes route', () => {
  it('shows non-owners an archive as a removal naming no post, like a deletion; the owner sees the archive', async () => {
    const owner = freshProfile(f);
    const stranger = freshProfile(f);
    const a = (await post(owner)).post.id; // v1
    const b = (await post(owner)).post.id; // v2
    const q = freshProfile(f);
    const duet = (await post(owner, { collaborators: [q.toString()] })).post.id; // v3
    expect((await call('POST', `/v1/me/posts/${a}/archive`, { as: owner })).status).toBe(200); // v4
    expect((await call('DELETE', `/v1/me/posts/${b}`, { as: owner })).status).toBe(200); // v5
    expect((await call('DELETE', `/v1/me/posts/${a}`, { as: owner })).status).toBe(200); // v6: archived, then deleted

    for (const as of [{}, { as: stranger }, { as: q }]) {
      const seen = await changes(owner, as);
      expect(seen.map((c) => c.version)).toEqual(['1', '2', '3', '4', '5', '6']);
      for (const c of seen) expect(PUBLIC_KINDS, JSON.stringify(c)).toContain(c.kind);
      const [archived, deleted, deletedFromArchive] = seen.slice(3);
      // An archive and a deletion read the same, and name nothing a visitor could not see.
      expect(archived).toMatchObject({ kind: 'removed', post_ids: [] });
      expect(deleted).toMatchObject({ kind: 'removed', post_ids: [] });
      expect(deletedFromArchive).toMatchObject({ kind: 'removed', post_ids: [] });
      expect(seen[2]).toMatchObject({ kind: 'added', post_ids: [duet] });
      expect(JSON.stringify(seen)).not.toContain('archived');
    }

    const mine = await changes(owner, { as: owner });
    expect(mine.slice(3).map((c) => [c.kind, c.post_ids])).toEqual([
      ['archived', [a]],
      ['deleted', [b]],
      ['deleted', [a]],
    ]);
    // The platform's own services (the feed consumer's repair) read what the stream carries.
    const platform = await changes(owner, { service: 'feed' });
    expect(platform.slice(3).map((c) => c.kind)).toEqual(['archived', 'deleted', 'deleted']);
  });

  it('a collaborator’s private answers read as plain changes or additions to everyone else', async () => {
    const author = freshProfile(f);
    const q = await (async () => {
      const p = freshProfile(f);
      await post(p); // v1 on q's grid
      return p;
    })();
    const x = (await post(author, { collaborators: [q.toString()] })).post.id;
    expect((await call('POST', `/v1/me/invites/${x}/accept`, { as: q })).status).toBe(200); // q v2
    expect((await call('POST', `/v1/me/posts/${x}/archive`, { as: q })).status).toBe(200); // q v3
    for (const as of [{}, { as: author }, { as: freshProfile(f) }]) {
      const seen = await changes(q, as);
      expect(seen.slice(1).map((c) => [c.kind, c.post_ids])).toEqual([
        ['added', [x]],
        ['removed', []],
      ]);
    }
    const mine = await changes(q, { as: q });
    expect(mine.slice(1).map((c) => c.kind)).toEqual(['collaborator_accepted', 'archived']);
  });
});

describe('pending collaborators', () => {
  it('are not in the public post view until they accept; the author sees them as pending', async () => {
    const author = freshProfile(f);
    const invitee = freshProfile(f);
    const stranger = freshProfile(f);
    const e = (await post(author, { caption: 'duet', collaborators: [invitee.toString()] })).post
      .id;

    for (const as of [undefined, stranger, invitee]) {
      const r = await call('GET', `/v1/posts/${e}`, as === undefined ? {} : { as });
      expect(r.status).toBe(200);
      expect(r.json.collaborators, `as ${as}`).toBeUndefined();
      expect(r.json.pending_collaborators, `as ${as}`).toBeUndefined();
      const media = await call(
        'GET',
        `/v1/profiles/${author}/media`,
        as === undefined ? {} : { as },
      );
      expect(JSON.stringify(media.json)).not.toContain(invitee.toString());
    }
    const own = await call('GET', `/v1/posts/${e}`, { as: author });
    expect(own.json.collaborators).toBeUndefined();
    expect(own.json.pending_collaborators).toEqual([invitee.toString()]);

    expect((await call('POST', `/v1/me/invites/${e}/accept`, { as: invitee })).status).toBe(200);
    for (const as of [undefined, stranger, author, invitee]) {
      const r = await call('GET', `/v1/posts/${e}`, as === undefined ? {} : { as });
      expect(r.json.collaborators, `as ${as}`).toEqual([invitee.toString()]);
      expect(r.json.pending_collaborators).toBeUndefined();
    }
    const media = await call('GET', `/v1/profiles/${author}/media`);
    expect(media.json.data[0].collaborators).toEqual([invitee.toString()]);
  });

  it('another invitee’s inbox does not name who else is still pending', async () => {
    const author = freshProfile(f);
    const [i1, i2] = [freshProfile(f), freshProfile(f)];
    const e = (await post(author, { collaborators: [i1.toString(), i2.toString()] })).post.id;
    const inbox = await call('GET', '/v1/me/invites', { as: i1 });
    expect(inbox.json.data.map((i: { post: { id: string } }) => i.post.id)).toEqual([e]);
    expect(JSON.stringify(inbox.json)).not.toContain(i2.toString());
  });

  it('an invitee’s inbox does not show a post its author archived, until it is unarchived', async () => {
    const author = freshProfile(f);
    const invitee = freshProfile(f);
    const e = (await post(author, { caption: 'private now', collaborators: [invitee.toString()] }))
      .post.id;
    const ids = async () =>
      (await call('GET', '/v1/me/invites', { as: invitee })).json.data.map(
        (i: { post: { id: string } }) => i.post.id,
      );
    expect(await ids()).toEqual([e]);
    expect((await call('POST', `/v1/me/posts/${e}/archive`, { as: author })).status).toBe(200);
    const inbox = await call('GET', '/v1/me/invites', { as: invitee });
    expect(inbox.json.data).toEqual([]);
    expect(JSON.stringify(inbox.json)).not.toContain('private now');
    expect((await call('POST', `/v1/me/posts/${e}/unarchive`, { as: author })).status).toBe(200);
    expect(await ids()).toEqual([e]);
  });
});

describe('a block is not revealed to the blocked author', () => {
  it('reads like any other invitation the invitee’s state dropped', async () => {
    const author = freshProfile(f);
    const blocker = freshProfile(f);
    const busy = freshProfile(f);
    expect((await call('PUT', `/v1/me/blocks/${author}`, { as: blocker })).status).toBe(200);
    // `busy` has 3 of this author's invitations pending: the per-pair limit.
    for (let i = 0; i < 3; i++) await post(author, { collaborators: [busy.toString()] });
    const r = await post(author, { collaborators: [blocker.toString(), busy.toString()] });
    const reasons = new Map(r.not_invited.map((n) => [n.profile_id, n.reason]));
    expect(reasons.get(blocker.toString())).toBe(reasons.get(busy.toString()));
    expect(reasons.get(blocker.toString())).toBe('not_delivered');
  });
});
