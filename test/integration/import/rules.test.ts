/**
 * The importer obeys every rule the API obeys (issue 31, "one validation for every writer"): from
 * NDJSON and from a CQL table, a row the service route would refuse (a 1 MB caption, a
 * `javascript:` media URL, post and profile IDs 0, negative or above 2^63 - 1) is skipped and
 * reported with its line number (or source row key) and the reason, every one of them; duplicate
 * lines of one chunk collapse (identical ones count once, one ID with two bodies is a conflict and
 * none of it is imported); the grids hold the valid rows once, post_count is exact and the audit
 * is clean.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { composeId } from '../../../src/domain/ids.js';
import type { Post } from '../../../src/domain/post.js';
import { runImport, type ImportTotals } from '../../../src/service/import/run-import.js';
import { cqlSource, ndjsonSource } from '../../../src/service/import/sources.js';
import { consistencyOf, cqlOf } from '../../../src/store/cassandra.js';
import { SourceTable } from '../../../src/store/source-table.js';
import { freshProfile, openFeatures, type Features } from '../features/harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
openPerFile(openFeatures, (opened) => {
  f = opened;
});

const SOURCE_KS = `regrid_import_rules_${process.pid}`;
const MB_CAPTION = 'x'.repeat(1_000_000);
/** Schema changes and the 1 MB row on a node shared with other suites: a longer wait. */
const SLOW = { readTimeout: 30_000 };

/** Post IDs of this test's own (worker 6600 + k), from a base time of the profile's. */
const idsFor = (profile: bigint) => {
  const base = Date.UTC(2024, 2, 1) + Number(profile % 1_000_000n);
  return (k: number) => composeId({ ms: base + k * 1000, worker: 6600 + k, sequence: k });
};

/** The issues of `t`, as `at → kind` (the reason checked to be non-empty and to name `field`). */
function issuesOf(t: ImportTotals) {
  const out = new Map<string, { kind: string; reason: string }>();
  for (const i of t.issues) {
    expect(i.reason.length, `${i.at}: a reason`).toBeGreaterThan(0);
    expect(i.reason.length, `${i.at}: the reason echoes no huge value`).toBeLessThan(400);
    out.set(i.at, { kind: i.kind, reason: i.reason });
  }
  return out;
}

async function noBodies(ids: readonly bigint[]) {
  const rs = await f.client.execute(
    'SELECT post_id FROM posts WHERE post_id IN ?',
    [ids.map((id) => id)],
    { prepare: true },
  );
  expect(rs.rows.map((r) => String(r.get('post_id')))).toEqual([]);
}

async function expectGrid(profile: bigint, ids: readonly bigint[]) {
  const order = await f.service.readOrder(profile);
  expect([...order.pinned, ...order.postIds]).toEqual(ids);
  expect((await f.service.readHead(profile)).postCount).toBe(BigInt(ids.length));
  expect((await f.service.auditProfile(profile)).findings).toEqual([]);
}

describe('the importer applies the API rules', () => {
  it('from NDJSON: every bad line skipped and reported by line number with its reason, duplicates collapsed', async () => {
    const p = freshProfile(f);
    const id = idsFor(p);
    const ok = (k: number, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ profile_id: String(p), post_id: String(id(k)), ...extra });
    const lines = [
      ok(1, { caption: 'one', media_url: 'https://cdn.example/1.jpg' }), // 1
      ok(2, { caption: 'two' }), // 2
      ok(3, { caption: MB_CAPTION }), // 3: caption too long
      ok(4, { media_url: 'javascript:alert(1)' }), // 4: not http(s)
      JSON.stringify({ profile_id: String(p), post_id: '0' }), // 5
      JSON.stringify({ profile_id: String(p), post_id: '-4217445940937196545' }), // 6
      JSON.stringify({ profile_id: String(p), post_id: '9223372036854775808' }), // 7: 2^63
      JSON.stringify({ profile_id: '9999999999999999999', post_id: String(id(8)) }), // 8
      JSON.stringify({ profile_id: 0, post_id: String(id(9)) }), // 9
      ok(1, { caption: 'one', media_url: 'https://cdn.example/1.jpg' }), // 10: same as line 1
      ok(11, { caption: 'first' }), // 11: conflicts with 12
      ok(11, { caption: 'second' }), // 12
      JSON.stringify({ profile_id: String(p) }), // 13: no post_id
      'not json at all', // 14
      ok(15, { media_url: 'https://cdn.example/15.jpg' }), // 15
    ];
    const run = f.service.platform.importChunk.bind(f.service.platform);
    const source = () => ndjsonSource('rules.ndjson', () => Readable.from(lines.join('\n')));
    const t = await runImport(run, source());
    // What was written first: the valid rows once, nothing of a bad one.
    await expectGrid(p, [id(15), id(2), id(1)]);
    await noBodies([id(3), id(4), id(8), id(9), id(11)]);
    expect((await f.service.getPost(id(1))).caption).toBe('one');

    const issues = issuesOf(t);
    const expectIssue = (line: number, kind: string, field?: RegExp) => {
      const i = issues.get(`line ${line}`);
      expect(i, `line ${line} reported`).toBeDefined();
      expect(i!.kind, `line ${line}`).toBe(kind);
      if (field) expect(i!.reason, `line ${line}`).toMatch(field);
    };
    expectIssue(3, 'invalid', /caption/);
    expectIssue(4, 'invalid', /media_url/);
    expectIssue(5, 'invalid', /post_id/);
    expectIssue(6, 'invalid', /post_id/);
    expectIssue(7, 'invalid', /post_id/);
    expectIssue(8, 'invalid', /profile_id/);
    expectIssue(9, 'invalid', /profile_id/);
    expectIssue(10, 'duplicate', /line 1\b/);
    expectIssue(11, 'conflict');
    expectIssue(12, 'conflict');
    expectIssue(13, 'invalid', /post_id/);
    expectIssue(14, 'invalid', /JSON/);
    expect([...issues.keys()].sort()).toEqual(
      [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14].map((n) => `line ${n}`).sort(),
    );
    expect(t.rows).toBe(15);
    expect(t.invalid).toBe(9);
    expect([t.imported, t.duplicates, t.conflicts, t.bumps]).toEqual([3, 1, 2, 1]);

    // A rerun: the same report, nothing written.
    const again = await runImport(run, source());
    expect([again.imported, again.present, again.bumps]).toEqual([0, 3, 0]);
    expect([...issuesOf(again).keys()].sort()).toEqual([...issues.keys()].sort());
    await expectGrid(p, [id(15), id(2), id(1)]);
  }, 120_000);

  it('from a CQL table: every bad row skipped and reported by its row key with the reason', async () => {
    const p = freshProfile(f);
    const id = idsFor(p);
    const table = 'posts_rules';
    await f.client.execute(
      `CREATE KEYSPACE IF NOT EXISTS ${SOURCE_KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
      [],
      SLOW,
    );
    await f.client.execute(
      `CREATE TABLE IF NOT EXISTS ${SOURCE_KS}.${table} (profile_id bigint, post_id bigint, created_at timestamp, caption text, media_url text, PRIMARY KEY ((profile_id), post_id))`,
      [],
      SLOW,
    );
    const insert = `INSERT INTO ${SOURCE_KS}.${table} (profile_id, post_id, created_at, caption, media_url) VALUES (?, ?, ?, ?, ?)`;
    const at = (ms: bigint) => new Date(Number(ms >> 23n) + Date.UTC(2011, 0, 1));
    const negative = -id(6); // this run's own, so a body left by an older build cannot show
    // Post 0 is every run's: none may be there before (an older build wrote one), nor after.
    await f.client.execute('DELETE FROM posts WHERE post_id = 0');
    // Profiles 0 and -5 are shared by every run of this test: their post IDs are this run's.
    const rows: Array<[bigint, bigint, Date | null, string | null, string | null]> = [
      [p, id(1), at(id(1)), 'one', 'https://cdn.example/1.jpg'],
      [p, id(2), at(id(2)), null, null],
      [p, id(3), at(id(3)), MB_CAPTION, null],
      [p, id(4), at(id(4)), null, 'javascript:alert(1)'],
      [p, 0n, null, 'zero', null],
      [p, negative, null, 'negative', null],
      [0n, id(7), at(id(7)), 'author zero', null],
      [-5n, id(8), at(id(8)), 'author -5', null],
    ];
    for (const r of rows) await f.client.execute(insert, r, { prepare: true, ...SLOW });
    const source = new SourceTable(cqlOf(f.client), consistencyOf(f.config), SOURCE_KS, table, {
      profile: 'profile_id',
      post: 'post_id',
      created: 'created_at',
      caption: 'caption',
      media: 'media_url',
    });
    const run = f.service.platform.importChunk.bind(f.service.platform);
    const t = await runImport(run, cqlSource(source, 4));
    await expectGrid(p, [id(2), id(1)]);
    await noBodies([id(3), id(4), 0n, negative, id(7), id(8)]);
    await f.client.execute(`DROP KEYSPACE IF EXISTS ${SOURCE_KS}`, [], SLOW);

    const issues = issuesOf(t);
    const key = (profile: bigint, post: bigint) => `profile_id=${profile} post_id=${post}`;
    const expectIssue = (k: string, field: RegExp) => {
      const i = issues.get(k);
      expect(i, `${k} reported`).toBeDefined();
      expect(i!.kind, k).toBe('invalid');
      expect(i!.reason, k).toMatch(field);
    };
    expectIssue(key(p, id(3)), /caption/);
    expectIssue(key(p, id(4)), /media_url/);
    expectIssue(key(p, 0n), /post_id/);
    expectIssue(key(p, negative), /post_id/);
    expectIssue(key(0n, id(7)), /profile_id/);
    expectIssue(key(-5n, id(8)), /profile_id/);
    // Rows of profiles 0 and -5 from earlier runs are reported too, and nothing else is.
    for (const [k, i] of issues) {
      if (k.startsWith(`profile_id=${p} `)) continue;
      expect(k, 'another profile').toMatch(/^profile_id=(0|-5) /);
      expect(i.reason).toMatch(/profile_id/);
    }
    expect(t.imported).toBe(2);
  }, 120_000);

  it('the service entry refuses a chunk that breaks the rule, and writes nothing of it', async () => {
    const p = freshProfile(f);
    const id = idsFor(p);
    const post = (k: number, over: Partial<Post> = {}): Post => ({
      postId: id(k),
      authorId: p,
      caption: undefined,
      mediaUrl: undefined,
      createdAt: new Date(Number(id(k) >> 23n) + Date.UTC(2011, 0, 1)),
      collaborators: [],
      ...over,
    });
    const chunk = (posts: Post[]) => f.service.platform.importChunk(p, posts);
    await expect(chunk([post(1), post(2, { mediaUrl: 'javascript:alert(1)' })])).rejects.toThrow(
      /media_url/,
    );
    await expect(chunk([post(1), post(1)])).rejects.toThrow(/twice/);
    await expect(chunk([post(1), post(3, { authorId: p + 1n })])).rejects.toThrow(/not by/);
    expect((await f.service.readHead(p)).version).toBe(0n);
    await noBodies([id(1), id(2), id(3)]);
  });
});
