/**
 * fast-check arbitraries of hostile HTTP requests for test/integration/http-fuzz.test.ts:
 * route templates of the whole API filled with mangled IDs, odd query strings, broken bodies and
 * headers, under one of several credentials. Credentials that could legitimately change the
 * reference grid are never generated: its owner is only ever presented with refused tokens, and
 * requests that act with the admin token never name the reference profile or its posts (a
 * takedown would legitimately change it). Players may: inviting it as a collaborator, or
 * blocking it, must leave its grid exactly as it was.
 */
import fc from 'fast-check';
import { mustRefuse } from './fuzz-contract.js';
import { idSlot, pathSegment, printable, query, type FuzzWorld } from './fuzz-values.js';

export type { FuzzWorld } from './fuzz-values.js';

export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** Which credential was used, for failure reports. */
  readonly as: Power;
  /** It names an ID or time outside the contract: any answer but a 4xx is a bug. */
  readonly mustRefuse: boolean;
}

type Power = 'anonymous' | 'refused' | 'player' | 'admin' | 'garbage';

const ROUTES: ReadonlyArray<readonly [string, string]> = [
  ['GET', '/v1/profiles/{profile}/grid'],
  ['GET', '/v1/profiles/{profile}/media'],
  ['GET', '/v1/posts/{post}'],
  ['POST', '/v1/me/posts'],
  ['GET', '/v1/profiles/{profile}/grid/changes'],
  ['DELETE', '/v1/me/posts/{post}'],
  ['POST', '/v1/me/posts/{post}/archive'],
  ['POST', '/v1/me/posts/{post}/unarchive'],
  ['DELETE', '/v1/me/posts/{post}/collaborators/{profile}'],
  ['POST', '/v1/me/grid/moves'],
  ['POST', '/v1/me/grid/moves/{uuid}/undo'],
  ['PUT', '/v1/me/grid/pins'],
  ['POST', '/v1/me/grid/reset'],
  ['GET', '/v1/me/grid/order'],
  ['PATCH', '/v1/me/grid/order'],
  ['POST', '/v1/admin/posts/{post}/takedown'],
  ['GET', '/v1/me/archive'],
  ['GET', '/v1/me/invites'],
  ['POST', '/v1/me/invites/{post}/accept'],
  ['POST', '/v1/me/invites/{post}/decline'],
  ['PUT', '/v1/me/blocks/{profile}'],
  ['DELETE', '/v1/me/blocks/{profile}'],
  ['GET', '/healthz'],
  ['GET', '/readyz'],
  ['GET', '/v1/{post}'],
  ['POST', '/v2/me/posts'],
];

const FIELDS = [
  'post_id',
  'after',
  'post_ids',
  'above',
  'below',
  'caption',
  'media_url',
  'collaborators',
  'position',
  'extra',
];

/** `invitee`: a profile a player's create names as its collaborator now and then. */
function body(ids: fc.Arbitrary<string>, invitee?: string) {
  const leaf = fc.oneof(
    ids,
    fc.constant(null),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.string({ maxLength: 30 }),
    fc.constantFrom('previous', 'chronological', 'https://media.example/a.jpg', 'x'.repeat(3000)),
  );
  const value = fc.oneof(leaf, fc.array(ids, { maxLength: 6 }), fc.array(leaf, { maxLength: 3 }));
  const structured = fc
    .dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 4 })
    .map((o) => JSON.stringify(o));
  // The shapes the routes expect, so that requests get past the schema to the handlers.
  const anchor = fc.oneof(ids, fc.constant(null));
  const shaped = fc
    .oneof(
      fc.record({ post_id: ids, after: anchor }),
      fc.record({ post_ids: fc.array(ids, { maxLength: 4 }) }),
      fc.record({ post_ids: fc.array(ids, { maxLength: 4 }), above: anchor, below: anchor }),
      fc.record(
        {
          caption: fc.string({ maxLength: 20 }),
          collaborators: fc.array(ids, { maxLength: 2 }),
        },
        { requiredKeys: [] },
      ),
      fc.record({ position: fc.constantFrom('previous', 'chronological', 'sideways') }),
      ...(invitee === undefined
        ? []
        : [
            fc.record({
              caption: fc.string({ maxLength: 5 }),
              collaborators: fc.constant([invitee]),
            }),
            fc.constant({ collaborators: [invitee] }),
          ]),
    )
    .map((o) => JSON.stringify(o));
  const raw = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.json({ maxDepth: 3 }),
    fc.constantFrom(
      '',
      ' ',
      '{',
      '[]',
      'null',
      '"x"',
      '{"post_id":',
      '{"__proto__":{"post_id":"1"}}',
      '['.repeat(5000),
      '{"caption":"' + 'x'.repeat(20_000) + '"}',
      '\u0000',
    ),
  );
  return fc.oneof(
    { weight: 3, arbitrary: shaped },
    { weight: 2, arbitrary: structured },
    { weight: 2, arbitrary: raw },
  );
}

function credential(w: FuzzWorld): fc.Arbitrary<[Power, string | undefined]> {
  const bearer = (t: string) => `Bearer ${t}`;
  const either = (weight: number, arbitrary: fc.Arbitrary<[Power, string | undefined]>) => ({
    weight,
    arbitrary,
  });
  return fc.oneof(
    either(1, fc.constant(['anonymous', undefined])),
    either(
      2,
      fc.constantFrom(...w.refusedTokens).map((t) => ['refused', bearer(t)]),
    ),
    // Players most often: their requests are the ones that reach the handlers and the stores.
    either(
      4,
      fc.constantFrom(...w.playerTokens).map((t) => ['player', bearer(t)]),
    ),
    either(1, fc.constant(['admin', bearer(w.adminToken)])),
    either(
      1,
      fc
        .oneof(
          printable(60),
          fc.constantFrom(
            'Bearer',
            'Bearer ',
            'Basic YWxhZGRpbjpvcGVuc2VzYW1l',
            'Bearer a.b.c',
            `Bearer ${w.adminToken}x`,
            `Bearer ${w.refusedTokens[0]} trailing`,
          ),
        )
        .map((h) => ['garbage', h]),
    ),
  );
}

export function fuzzRequest(w: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  return credential(w).chain(([as, authorization]) => {
    // Real power never names the reference grid where naming it would legitimately change it.
    // Players do name it as a collaborator: an invitation must leave the invitee's grid alone.
    const pathIds = idSlot(w, { posts: as !== 'admin', profile: as !== 'admin' });
    const bodyIds = idSlot(w, { posts: as !== 'admin', profile: as !== 'admin' });
    // The read routes take the query parameters: a little more of them.
    // The create a little more too: a player's may invite the reference profile.
    const route = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...ROUTES.slice(0, 2)) },
      { weight: 1, arbitrary: fc.constant(ROUTES[3]!) },
      { weight: 1, arbitrary: fc.constant(ROUTES[4]!) }, // the changes route: owner-only kinds
      { weight: 8, arbitrary: fc.constantFrom(...ROUTES) },
    );
    const method = fc.oneof(
      { weight: 6, arbitrary: fc.constant(undefined) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
      },
    );
    // Each optional header is absent most of the time, so one bad header does not mask the rest.
    const header = (values: fc.Arbitrary<string>) =>
      fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: values });
    return fc
      .record({
        route,
        method,
        profile: pathSegment(pathIds),
        post: pathSegment(pathIds),
        uuid: fc.oneof(
          fc.uuid().map((u) => ({ segment: u, value: u })),
          printable(40).map((v) => ({ segment: encodeURIComponent(v), value: v })),
        ),
        query: query(w),
        body: fc.option(body(bodyIds, as === 'player' ? w.refProfile : undefined), {
          nil: undefined,
        }),
        contentType: fc.oneof(
          fc.constant('application/json'),
          header(fc.constantFrom('text/plain', 'multipart/form-data; boundary=x', '')),
        ),
        ifMatch: header(fc.oneof(fc.constantFrom('*', w.refEtag, '"1.1"', 'W/"1"'), printable(30))),
        ifNoneMatch: header(fc.oneof(fc.constantFrom('*', w.refEtag), printable(20))),
        idempotencyKey: header(fc.oneof(printable(40), fc.constant('k'.repeat(300)))),
        contentLength: header(fc.constantFrom('0', '7', 'abc', '-1', '99999999999999999999')),
      })
      .map((r): FuzzRequest => {
        const [routeMethod, template] = r.route;
        const m = r.method ?? routeMethod;
        const path =
          template
            .replace('{profile}', r.profile.segment)
            .replace('{post}', r.post.segment)
            .replace('{uuid}', r.uuid.segment) + r.query;
        const slots = { profile: r.profile.value, post: r.post.value, uuid: r.uuid.value };
        // A request sent with another method than the route's is a 404: refused all the same.
        const refuse = mustRefuse(template, slots, r.query);
        const headers: Record<string, string> = {};
        if (authorization !== undefined) headers['authorization'] = authorization;
        if (r.contentType !== undefined) headers['content-type'] = r.contentType;
        if (r.ifMatch !== undefined) headers['if-match'] = r.ifMatch;
        if (r.ifNoneMatch !== undefined) headers['if-none-match'] = r.ifNoneMatch;
        if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey;
        const hasBody = r.body !== undefined && m !== 'GET' && m !== 'HEAD';
        if (hasBody && r.contentLength !== undefined) headers['content-length'] = r.contentLength;
        return {
          method: m,
          path,
          headers,
          ...(hasBody ? { body: r.body } : {}),
          as,
          mustRefuse: refuse,
        };
      });
  });
}
