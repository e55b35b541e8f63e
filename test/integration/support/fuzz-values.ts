/**
 * Value generators of the HTTP fuzz: ID-shaped strings (canonical, mangled, out of range, junk),
 * query strings and path segments, drawn from the world the test seeded.
 */
import fc from 'fast-check';
import { MAX_ID } from '../../../src/domain/ids.js';

export interface FuzzWorld {
  readonly refProfile: string;
  readonly refPosts: readonly string[];
  readonly refEtag: string;
  readonly refCursors: readonly string[];
  /** Players: valid tokens of throw-away profiles whose grids the fuzz may change. */
  readonly players: ReadonlyArray<{ readonly profile: string; readonly posts: readonly string[] }>;
  readonly playerTokens: readonly string[];
  /** Signed or forged tokens for the reference owner that the server must refuse. */
  readonly refusedTokens: readonly string[];
  readonly adminToken: string;
}

export const printable = (max: number) =>
  fc.stringMatching(new RegExp(`^[\\x20-\\x7e]{0,${max}}$`));

const mangled = (id: string) =>
  fc.constantFrom(
    `0${id}`,
    `+${id}`,
    `-${id}`,
    ` ${id}`,
    `${id} `,
    `${id}\n`,
    `${id}.0`,
    `${id}e0`,
    `0x${BigInt(id).toString(16)}`,
    id.padStart(25, '0'),
    `${BigInt(id) + (1n << 63n)}`,
    [...id].map((d) => String.fromCharCode(0x660 + Number(d))).join(''), // Arabic-Indic digits
  );

const SPECIAL_IDS = [
  '0',
  '-1',
  '00',
  MAX_ID.toString(),
  (MAX_ID + 1n).toString(),
  (1n << 64n).toString(),
  '9'.repeat(40),
  '',
  'null',
  'NaN',
  '1e3',
  '１',
  'true',
];

/** An ID-shaped string; `ref` = may be a canonical ID of the reference grid. */
export function idSlot(w: FuzzWorld, ref: { posts: boolean; profile: boolean }) {
  const playerIds = w.players.flatMap((p) => [p.profile, ...p.posts]);
  const canonicalRef = [...(ref.posts ? w.refPosts : []), ...(ref.profile ? [w.refProfile] : [])];
  // Weighted towards IDs that exist, so that many requests get past validation.
  return fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...SPECIAL_IDS) },
    { weight: 2, arbitrary: fc.constantFrom(w.refProfile, ...w.refPosts).chain(mangled) },
    { weight: 4, arbitrary: fc.constantFrom(...playerIds) },
    ...(canonicalRef.length > 0
      ? [{ weight: 2, arbitrary: fc.constantFrom(...canonicalRef) }]
      : []),
    { weight: 1, arbitrary: fc.bigInt({ min: 1n, max: MAX_ID }).map(String) },
    { weight: 1, arbitrary: fc.string({ maxLength: 25 }) },
  );
}

const QUERY_VALUES = [
  '0',
  '1',
  '-1',
  '24',
  '100',
  '101',
  '1e2',
  '0x10',
  ' 5',
  '5.5',
  'NaN',
  'Infinity',
  '1293840000',
  '1293839999.999',
  '1700000000.5',
  '2393351627.775',
  '2393351627.776',
  '2393351628',
  '99999999999',
  '100000000000',
  '1e308',
  '9'.repeat(400),
  '"1.1"',
  '1.42',
  '*',
];

export function query(w: FuzzWorld) {
  const known = ['limit', 'cursor', 'min_version', 'since', 'until', 'before', 'after_version'];
  const key = fc.constantFrom(...known, 'bogus', '', 'limit[]', '__proto__');
  const cursors = w.refCursors.flatMap((c) => [c, `${c}x`, c.slice(0, -2), c.toUpperCase()]);
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...QUERY_VALUES, ...cursors) },
    { weight: 2, arbitrary: idSlot(w, { posts: true, profile: true }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  );
  const encode = (pairs: Array<[string, string]>) => new URLSearchParams(pairs).toString();
  // Seconds around and beyond the instants IDs encode, with and without milliseconds.
  const seconds = fc
    .tuple(fc.integer({ min: 0, max: 3_000_000_000 }), fc.integer({ min: 0, max: 1999 }))
    .map(([s, f]) => (f < 1000 ? `${s}.${String(f).padStart(3, '0')}` : `${s}`));
  const time = fc.oneof(fc.constantFrom(...QUERY_VALUES), seconds);
  const param = (k: string, v: fc.Arbitrary<string>) => v.map((x): [string, string] => [k, x]);
  // Mostly parameters a route knows with values of their kind, so that one odd value is what
  // the route has to judge.
  const plausible = fc.array(
    fc.oneof(
      param('since', time),
      param('until', time),
      param('before', idSlot(w, { posts: true, profile: true })),
      param('limit', fc.constantFrom(...QUERY_VALUES)),
      param('cursor', fc.constantFrom(...cursors, 'x')),
      param('min_version', fc.constantFrom('1', '"1.2"', '1.99', '0', '-1', '01', '1.')),
      param('after_version', fc.constantFrom('0', '0', '3', '-1', '01', '1.5')),
    ),
    { maxLength: 2 },
  );
  const anything = fc.array(fc.tuple(key, value), { maxLength: 4 });
  const raw = fc.constantFrom('since=%', 'limit=%zz', '&&&', '=', 'limit=1&limit=2', '%00=1');
  return fc
    .oneof(
      { weight: 3, arbitrary: plausible.map(encode) },
      { weight: 2, arbitrary: anything.map(encode) },
      { weight: 1, arbitrary: raw },
    )
    .map((q) => (q ? `?${q}` : ''));
}

/** A path segment and the value the server sees once it is decoded. */
export function pathSegment(ids: fc.Arbitrary<string>) {
  return fc.oneof(
    { weight: 8, arbitrary: ids.map((v) => ({ segment: encodeURIComponent(v), value: v })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('%', '%zz', '..', '.', '%2e%2e', '%2F', '%E0%A4%A')
        .map((raw) => ({ segment: raw, value: raw })),
    },
  );
}
