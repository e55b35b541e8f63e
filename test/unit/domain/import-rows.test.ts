/**
 * The importer's rule for a source row (domain/import-plan.ts `checkRow`) is the API's: a row is
 * accepted exactly when the service route `PUT /v1/profiles/:profile_id/posts/:post_id` would
 * accept it (its path IDs by `IdString`, its body by `RegisterPostBody`, the ID's time by
 * `registeredCreatedAt`), and a refused row carries its place in the source and a reason naming
 * the field. Duplicates of one chunk collapse before planning (`collapseDuplicates`): identical
 * rows count once, one post ID with two different bodies is a conflict and none of it is kept.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { composeId, registeredCreatedAt, REGRID_EPOCH_MS } from '../../../src/domain/ids.js';
import {
  checkRow,
  collapseDuplicates,
  type ImportIssue,
  type ValidRow,
} from '../../../src/domain/import-plan.js';
import { IdString } from '../../../src/http/schemas.js';
import { RegisterPostBody } from '../../../src/http/service-schemas.js';

const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);
const MAX = 2n ** 63n - 1n;

/** What the service route decides for the same post: accepted or not. */
function routeAccepts(fields: Record<string, unknown>): boolean {
  const { profile_id, post_id, ...body } = fields;
  const p = IdString.safeParse(profile_id);
  const id = IdString.safeParse(post_id);
  const b = RegisterPostBody.safeParse(body);
  if (!p.success || !id.success || !b.success) return false;
  try {
    const at = b.data.created_at === undefined ? undefined : new Date(b.data.created_at);
    registeredCreatedAt(id.data, at, NOW);
    return true;
  } catch {
    return false;
  }
}

const pastId = fc
  .record({
    ms: fc.integer({ min: REGRID_EPOCH_MS, max: NOW }),
    worker: fc.integer({ min: 0, max: 8191 }),
    sequence: fc.integer({ min: 0, max: 1023 }),
  })
  .map(composeId);
/** IDs in and around the valid range, as the decimal strings a source holds. */
const idText = fc.oneof(
  pastId.map(String),
  fc.constantFrom('0', '-5', '-4217445940937196545', String(MAX), String(MAX + 1n)),
  fc.constantFrom('9999999999999999999', '18446744073709551615', '007', ' 42', '1e3', ''),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
);
const caption = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.integer({ min: 2195, max: 2205 }).map((n) => 'c'.repeat(n)),
);
const mediaUrl = fc.oneof(
  fc.constantFrom(
    'https://cdn.example/a.jpg',
    'http://cdn.example/b.png',
    'javascript:alert(1)',
    'data:text/html,<script>1</script>',
    'ftp://cdn.example/c.jpg',
    'not a url',
    `https://cdn.example/${'x'.repeat(2040)}`,
    `https://cdn.example/${'x'.repeat(2020)}`,
  ),
  fc.webUrl(),
);
const createdAt = fc.oneof(
  fc.integer({ min: REGRID_EPOCH_MS, max: NOW }).map((ms) => new Date(ms).toISOString()),
  fc.constantFrom('yesterday', '2026-13-01T00:00:00Z'),
);
const fieldsArb = fc.record(
  {
    profile_id: idText,
    post_id: idText,
    caption,
    media_url: mediaUrl,
    created_at: createdAt,
  },
  { requiredKeys: ['profile_id', 'post_id'] },
);

describe('checkRow: the API rule for an imported row', () => {
  it('accepts a row exactly when the service route would accept the same post', () => {
    fc.assert(
      fc.property(fieldsArb, (fields) => {
        const out = checkRow({ at: 'line 7', fields }, NOW);
        expect('post' in out, JSON.stringify(fields).slice(0, 300)).toBe(routeAccepts(fields));
        if ('post' in out) {
          expect(out.at).toBe('line 7');
          expect(out.post.postId).toBe(BigInt(fields.post_id));
          expect(out.post.authorId).toBe(BigInt(fields.profile_id));
          expect(out.post.caption).toBe(fields.caption);
          expect(out.post.mediaUrl).toBe(fields.media_url);
        } else {
          expect(out.at).toBe('line 7');
          expect(out.kind).toBe('invalid');
          expect(out.reason.length).toBeGreaterThan(0);
          // A reason never echoes a huge value back (a 1 MB caption stays out of the report).
          expect(out.reason.length).toBeLessThan(400);
        }
      }),
      { seed: 31, numRuns: 600 },
    );
  });

  it('names the field and why, for each rule the issue found broken', () => {
    const id = String(composeId({ ms: NOW - 60_000, worker: 1, sequence: 2 }));
    const row = (over: Record<string, unknown>) =>
      checkRow({ at: 'line 3', fields: { profile_id: '42', post_id: id, ...over } }, NOW);
    const reasonOf = (over: Record<string, unknown>) => {
      const out = row(over);
      if ('post' in out) throw new Error(`accepted: ${JSON.stringify(over).slice(0, 80)}`);
      return out.reason;
    };
    expect(reasonOf({ caption: 'x'.repeat(1_000_000) })).toMatch(/caption/);
    expect(reasonOf({ media_url: 'javascript:alert(1)' })).toMatch(/media_url/);
    expect(reasonOf({ post_id: '0' })).toMatch(/post_id/);
    expect(reasonOf({ post_id: '-4217445940937196545' })).toMatch(/post_id/);
    expect(reasonOf({ post_id: String(MAX + 1n) })).toMatch(/post_id.*range/);
    expect(reasonOf({ profile_id: '9999999999999999999' })).toMatch(/profile_id.*range/);
    expect(reasonOf({ profile_id: '-5' })).toMatch(/profile_id/);
    expect(reasonOf({ created_at: new Date(NOW).toISOString() })).toMatch(/created_at/);
    expect(reasonOf({ extra: 1 })).toMatch(/extra/);
    expect(checkRow({ at: 'line 9', unreadable: 'not JSON' }, NOW)).toEqual({
      at: 'line 9',
      kind: 'invalid',
      reason: 'not JSON',
    });
    // A JSON integer ID is taken as its decimal string while it is exact (below 2^53).
    const n = checkRow({ at: 'line 4', fields: { profile_id: 42, post_id: id } }, NOW);
    expect('post' in n && n.post.authorId).toBe(42n);
    expect('post' in checkRow({ at: 'x', fields: { profile_id: 2 ** 60, post_id: id } }, NOW)).toBe(
      false,
    );
  });
});

describe('collapseDuplicates: one chunk, one row per post', () => {
  const bodyArb = fc.record({
    id: fc.integer({ min: 1, max: 6 }),
    caption: fc.constantFrom('a', 'b'),
    media: fc.constantFrom(undefined, 'https://cdn.example/m.jpg'),
  });
  const rowsOf = (bodies: { id: number; caption: string; media: string | undefined }[]) =>
    bodies.map((b, i): ValidRow => ({
      at: `line ${i + 1}`,
      post: {
        postId: composeId({ ms: REGRID_EPOCH_MS + b.id * 1000, worker: 0, sequence: 0 }),
        authorId: 42n,
        caption: b.caption,
        mediaUrl: b.media,
        createdAt: new Date(REGRID_EPOCH_MS + b.id * 1000),
        collaborators: [],
      },
    }));

  it('keeps each post once when its rows agree, none of it when they differ, and reports every other row', () => {
    fc.assert(
      fc.property(fc.array(bodyArb, { maxLength: 30 }), (bodies) => {
        const rows = rowsOf(bodies);
        const { rows: kept, issues } = collapseDuplicates(rows);
        const ids = kept.map((r) => r.post.postId);
        expect(new Set(ids).size).toBe(ids.length);
        const groups = new Map<bigint, ValidRow[]>();
        for (const r of rows) groups.set(r.post.postId, [...(groups.get(r.post.postId) ?? []), r]);
        const expectedKept: ValidRow[] = [];
        const expected: ImportIssue[] = [];
        for (const [, g] of groups) {
          const key = (r: ValidRow) => `${r.post.caption}|${r.post.mediaUrl}`;
          if (g.every((r) => key(r) === key(g[0]!))) {
            expectedKept.push(g[0]!);
            for (const r of g.slice(1)) expected.push({ at: r.at, kind: 'duplicate', reason: '' });
          } else for (const r of g) expected.push({ at: r.at, kind: 'conflict', reason: '' });
        }
        // First occurrences, in source order.
        expect(kept).toEqual(rows.filter((r) => expectedKept.includes(r)));
        const shape = (l: readonly ImportIssue[]) =>
          l.map((i) => `${i.at}:${i.kind}`).sort((a, b) => a.localeCompare(b));
        expect(shape(issues)).toEqual(shape(expected));
        for (const i of issues) expect(i.reason).toMatch(/line \d+/);
      }),
      { seed: 5, numRuns: 300 },
    );
  });
});
