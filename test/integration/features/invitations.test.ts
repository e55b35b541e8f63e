/**
 * Collaborator invitations that cannot be used against the invitee (issue 22, items 3, 4 and 7),
 * through the real HTTP app on the real Cassandra:
 *   - creating, listing and declining an invitation change neither the invitee's grid version
 *     nor its ETag, and commit nothing on its grid (so no cache hook runs); only accepting does;
 *   - one account naming a victim on 60 posts does not stop another author's post, which is
 *     created and its invitation delivered; a full inbox drops the invitation, never the post;
 *   - the per-(author, invitee) and per-author-per-day caps, and blocking an author;
 *   - accepting one's own post that is on one's grid is a 404 (there is no invitation).
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_INVITES_PER_AUTHOR_DAY,
  MAX_PENDING_INVITES,
  MAX_PENDING_PER_AUTHOR,
} from '../../../src/domain/invite-limits.js';
import { consistencyOf, cqlOf } from '../../../src/store/cassandra.js';
import { InvitesStore } from '../../../src/store/invites-store.js';
import { freshProfile, httpApi, openFeatures, type Call, type Features } from './harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
let call: Call;
openPerFile(openFeatures, (opened) => {
  f = opened;
  ({ call } = httpApi(f));
});

/** A new profile with `n` posts of its own. */
async function profileWith(n: number): Promise<bigint> {
  const p = freshProfile(f);
  for (let i = 0; i < n; i++) {
    expect((await call('POST', '/v1/me/posts', { as: p, body: { caption: `c${i}` } })).status).toBe(
      201,
    );
  }
  return p;
}

async function orderOf(p: bigint) {
  const r = await call('GET', '/v1/me/grid/order', { as: p });
  expect(r.status).toBe(200);
  return { etag: r.headers.get('etag')!, ids: r.json.post_ids as string[] };
}

/** The invitation rows themselves, to stage what a crashed accept leaves behind. */
const invites = () => new InvitesStore(cqlOf(f.client), consistencyOf(f.config));

const versionOf = async (p: bigint) => (await f.service.reader.readHead(p)).version;

async function invite(author: bigint, invitees: bigint[]) {
  const r = await call('POST', '/v1/me/posts', {
    as: author,
    body: { caption: 'collab', collaborators: invitees.map(String) },
  });
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return r.json as {
    post: { id: string; collaborators?: string[] };
    not_invited: Array<{ profile_id: string; reason: string }>;
  };
}

const inbox = async (p: bigint) => {
  const r = await call('GET', '/v1/me/invites', { as: p });
  expect(r.status).toBe(200);
  return r.json.data as Array<{ post: { id: string }; author_id: string }>;
};

/** Counts the compare-and-sets that commit on `profile`'s grid while `body` runs. */
async function commitsOn(profile: bigint, body: () => Promise<void>): Promise<number> {
  let commits = 0;
  f.hooks.afterCas = (e) => {
    if (e.profileId === profile) commits += 1;
  };
  try {
    await body();
  } finally {
    delete f.hooks.afterCas;
  }
  return commits;
}

describe('invitations outside the invitee’s compare-and-set', () => {
  it('three strangers’ invitations leave version and ETag alone; the batch edit applies', async () => {
    const q = await profileWith(3);
    const before = await orderOf(q);
    const v0 = await versionOf(q);
    const strangers = [freshProfile(f), freshProfile(f), freshProfile(f)];
    const posts: string[] = [];
    const commits = await commitsOn(q, async () => {
      for (const s of strangers) {
        const created = await invite(s, [q]);
        expect(created.post.collaborators).toEqual([q.toString()]);
        posts.push(created.post.id);
      }
      expect((await inbox(q)).map((i) => i.post.id).sort()).toEqual([...posts].sort());
      // Declining is the invitee's business and not a grid write either.
      const declined = await call('POST', `/v1/me/invites/${posts[0]}/decline`, { as: q });
      expect(declined.status).toBe(200);
      expect(declined.json.grid_version).toBe(v0.toString());
    });
    expect(commits, 'compare-and-sets committed on the invitee grid').toBe(0);
    expect(await versionOf(q)).toBe(v0);
    expect((await orderOf(q)).etag).toBe(before.etag);

    const patched = await call('PATCH', '/v1/me/grid/order', {
      as: q,
      body: { post_ids: [...before.ids].reverse() },
      headers: { 'if-match': before.etag },
    });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    expect((await orderOf(q)).ids).toEqual([...before.ids].reverse());

    // Only accepting writes the grid: one commit, one version, the post on it.
    const v1 = await versionOf(q);
    const accepting = await commitsOn(q, async () => {
      expect((await call('POST', `/v1/me/invites/${posts[1]}/accept`, { as: q })).status).toBe(200);
    });
    expect(accepting).toBe(1);
    expect(await versionOf(q)).toBe(v1 + 1n);
    expect((await orderOf(q)).ids).toContain(posts[1]);
    expect((await inbox(q)).map((i) => i.post.id)).toEqual([posts[2]]);
  });

  it('a pending invitation withdrawn by delete or takedown does not bump the invitee', async () => {
    const q = await profileWith(1);
    const author = freshProfile(f);
    const a = await invite(author, [q]);
    const b = await invite(author, [q]);
    const v0 = await versionOf(q);
    const commits = await commitsOn(q, async () => {
      expect((await call('DELETE', `/v1/me/posts/${a.post.id}`, { as: author })).status).toBe(200);
      const t = await call('POST', `/v1/admin/posts/${b.post.id}/takedown`, { admin: true });
      expect(t.status).toBe(200);
      expect(t.json.grids.map((g: { profile_id: string }) => g.profile_id)).toEqual([
        author.toString(),
      ]);
    });
    expect(commits).toBe(0);
    expect(await versionOf(q)).toBe(v0);
    expect(await inbox(q)).toEqual([]);
  });

  it('accepting one’s own post on one’s grid is a 404 (there is no invitation)', async () => {
    const p = freshProfile(f);
    const own = await call('POST', '/v1/me/posts', { as: p, body: { caption: 'mine' } });
    const r = await call('POST', `/v1/me/invites/${own.json.post.id}/accept`, { as: p });
    expect(r.status).toBe(404);
    expect(r.json.code).toBe('post_not_found');
    // An accepted invitation accepted again is still the idempotent 200.
    const q = freshProfile(f);
    const collab = await invite(p, [q]);
    expect((await call('POST', `/v1/me/invites/${collab.post.id}/accept`, { as: q })).status).toBe(
      200,
    );
    const again = await call('POST', `/v1/me/invites/${collab.post.id}/accept`, { as: q });
    expect(again.status).toBe(200);
  });
});

describe('an accept that claimed the invitation and stopped (a crash between claim and CAS)', () => {
  it('is still listed; accepting again finishes it', async () => {
    const q = freshProfile(f);
    const post = await invite(freshProfile(f), [q]);
    expect(await invites().claim(q, BigInt(post.post.id), undefined)).toBe(true);
    expect((await inbox(q)).map((i) => i.post.id)).toEqual([post.post.id]);
    expect((await call('POST', `/v1/me/invites/${post.post.id}/accept`, { as: q })).status).toBe(
      200,
    );
    expect((await orderOf(q)).ids).toEqual([post.post.id]);
    expect(await inbox(q)).toEqual([]);
  });

  it('a decline then wins with one bump, and the accept finds nothing to accept', async () => {
    const q = freshProfile(f);
    const author = freshProfile(f);
    const post = await invite(author, [q]);
    const id = BigInt(post.post.id);
    expect(await invites().claim(q, id, undefined)).toBe(true);
    const v0 = await versionOf(q);
    // The bump is what makes an accept planned on v0 lose its compare-and-set.
    expect((await call('POST', `/v1/me/invites/${id}/decline`, { as: q })).status).toBe(200);
    expect(await versionOf(q)).toBe(v0 + 1n);
    expect(await invites().get(q, id)).toBeUndefined();
    expect((await call('POST', `/v1/me/invites/${id}/accept`, { as: q })).status).toBe(404);
    expect((await orderOf(q)).ids).toEqual([]);
    expect((await call('GET', `/v1/posts/${id}`)).json.collaborators).toBeUndefined();
    // A block leaves a claimed invitation to its accept: it is the invitee's own act.
    const other = await invite(author, [q]);
    expect(await invites().claim(q, BigInt(other.post.id), undefined)).toBe(true);
    expect((await call('PUT', `/v1/me/blocks/${author}`, { as: q })).json.invites_dropped).toBe(0);
    expect((await call('POST', `/v1/me/invites/${other.post.id}/accept`, { as: q })).status).toBe(
      200,
    );
  });
});

describe('flood-proof invitations', () => {
  it('60 invitations from one account do not stop another author’s post', async () => {
    const victim = await profileWith(1);
    const spammer = freshProfile(f);
    let delivered = 0;
    for (let i = 0; i < 60; i++) {
      const r = await invite(spammer, [victim]);
      if ((r.not_invited ?? []).length === 0) delivered += 1;
      // The invitee's state is not the author's to know: the same reason as a block or a full inbox.
      else
        expect(r.not_invited).toEqual([{ profile_id: victim.toString(), reason: 'not_delivered' }]);
    }
    expect(delivered).toBe(MAX_PENDING_PER_AUTHOR);
    expect(await inbox(victim)).toHaveLength(MAX_PENDING_PER_AUTHOR);

    const friend = freshProfile(f);
    const post = await invite(friend, [victim]);
    expect(post.not_invited).toEqual([]);
    expect((await orderOf(friend)).ids).toEqual([post.post.id]);
    const listed = await inbox(victim);
    expect(listed.map((i) => i.post.id)).toContain(post.post.id);
    expect(listed.find((i) => i.post.id === post.post.id)!.author_id).toBe(friend.toString());
    expect(
      (await call('POST', `/v1/me/invites/${post.post.id}/accept`, { as: victim })).status,
    ).toBe(200);
  });

  it('a full inbox drops the invitation, not the post, and says so', async () => {
    const q = freshProfile(f);
    const authors = Math.ceil(MAX_PENDING_INVITES / MAX_PENDING_PER_AUTHOR);
    for (let a = 0; a < authors; a++) {
      const author = freshProfile(f);
      for (let k = 0; k < MAX_PENDING_PER_AUTHOR; k++) await invite(author, [q]);
    }
    expect(await inbox(q)).toHaveLength(MAX_PENDING_INVITES);
    const late = freshProfile(f);
    const other = freshProfile(f);
    const r = await invite(late, [q, other]);
    expect(r.not_invited).toEqual([{ profile_id: q.toString(), reason: 'not_delivered' }]);
    expect(r.post.collaborators).toEqual([other.toString()]);
    expect((await orderOf(late)).ids).toEqual([r.post.id]);
    // `other` has not accepted yet: the public view does not name them, the author's does.
    expect((await call('GET', `/v1/posts/${r.post.id}`)).json.collaborators).toBeUndefined();
    expect(
      (await call('GET', `/v1/posts/${r.post.id}`, { as: late })).json.pending_collaborators,
    ).toEqual([other.toString()]);
    expect((await inbox(other)).map((i) => i.post.id)).toEqual([r.post.id]);
    expect(await inbox(q)).toHaveLength(MAX_PENDING_INVITES);
  });

  it(`an author invites at most ${MAX_INVITES_PER_AUTHOR_DAY} a day`, async () => {
    const author = freshProfile(f);
    const invitees = Array.from({ length: MAX_INVITES_PER_AUTHOR_DAY + 5 }, () => freshProfile(f));
    for (let i = 0; i < MAX_INVITES_PER_AUTHOR_DAY; i += 5) {
      expect((await invite(author, invitees.slice(i, i + 5))).not_invited).toEqual([]);
    }
    const over = invitees.slice(MAX_INVITES_PER_AUTHOR_DAY);
    // One of them blocks the author: past the quota that reads as the quota, like the others.
    expect((await call('PUT', `/v1/me/blocks/${author}`, { as: over[0]! })).status).toBe(200);
    const r = await invite(author, over);
    expect(r.not_invited).toEqual(
      over.map((p) => ({ profile_id: p.toString(), reason: 'daily_limit' })),
    );
    expect(r.post.collaborators).toBeUndefined();
    expect((await orderOf(author)).ids[0]).toBe(r.post.id);
    // Another author is not held back by this one's quota.
    expect((await invite(freshProfile(f), over)).not_invited).toEqual([]);
  });

  it('the invitee blocks an author: pending ones dropped, new ones not delivered', async () => {
    const q = await profileWith(1);
    const pest = freshProfile(f);
    const friend = freshProfile(f);
    const p1 = await invite(pest, [q]);
    const p2 = await invite(pest, [q]);
    const kept = await invite(friend, [q]);
    const v0 = await versionOf(q);
    const etag = (await orderOf(q)).etag;

    const blocked = await call('PUT', `/v1/me/blocks/${pest}`, { as: q });
    expect(blocked.status, JSON.stringify(blocked.json)).toBe(200);
    expect(blocked.json).toEqual({
      profile_id: pest.toString(),
      blocked: true,
      invites_dropped: 2,
    });
    expect((await inbox(q)).map((i) => i.post.id)).toEqual([kept.post.id]);
    for (const p of [p1, p2]) {
      expect((await call('GET', `/v1/posts/${p.post.id}`)).json.collaborators).toBeUndefined();
      expect((await call('POST', `/v1/me/invites/${p.post.id}/accept`, { as: q })).status).toBe(
        404,
      );
    }
    const refused = await invite(pest, [q]);
    // Not revealed as a block: the reason a full inbox or the per-pair limit gives.
    expect(refused.not_invited).toEqual([{ profile_id: q.toString(), reason: 'not_delivered' }]);
    expect((await orderOf(pest)).ids[0]).toBe(refused.post.id);
    expect(await versionOf(q)).toBe(v0);
    expect((await orderOf(q)).etag).toBe(etag);
    // Blocking again is the same answer with nothing left to drop; unblocking lets them in.
    expect((await call('PUT', `/v1/me/blocks/${pest}`, { as: q })).json.invites_dropped).toBe(0);
    const unblocked = await call('DELETE', `/v1/me/blocks/${pest}`, { as: q });
    expect(unblocked.status).toBe(200);
    expect(unblocked.json).toEqual({ profile_id: pest.toString(), blocked: false });
    expect((await invite(pest, [q])).not_invited).toEqual([]);
    // Blocking oneself is a client error, as is a malformed ID.
    expect((await call('PUT', `/v1/me/blocks/${q}`, { as: q })).status).toBe(400);
    expect((await call('PUT', '/v1/me/blocks/007', { as: q })).status).toBe(400);
    expect((await call('PUT', `/v1/me/blocks/${pest}`)).status).toBe(401);
  });
});
