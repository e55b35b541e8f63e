/**
 * Fresh grids for a two-region run, each created through one region's service (its first write:
 * with homes on, that region becomes its home), alternately dc1 and dc2, and modelled the way
 * the load tester models them (tools/loadtest/grid-model.ts): the posts, the order a fresh grid
 * shows (newest first), and the version right after seeding.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { issueToken } from '../../../src/http/auth.js';
import { httpCall } from '../../../tools/loadtest/http-call.js';
import type { RegionGrid } from '../../../tools/loadtest/region-load.js';
import { JWT_SECRET } from './region-services.js';

/**
 * One request, with an Idempotency-Key when it writes: an answer of unknown outcome (503
 * write_outcome_unknown, no answer: a loaded machine, a fresh server) is sent again with the
 * same key until it has a definite one, so a seeded post exists exactly once.
 */
async function call(base: string, method: string, path: string, profileId: bigint, body?: unknown) {
  const token = await issueToken(JWT_SECRET, profileId, 3600);
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['idempotency-key'] = randomUUID();
  for (let attempt = 1; ; attempt++) {
    const res = await httpCall(`${base}${path}`, method, headers, body === undefined ? undefined : JSON.stringify(body), 20_000).catch(() => ({ status: 0, text: 'no answer' })); // prettier-ignore
    if (res.status >= 200 && res.status < 300) return JSON.parse(res.text) as Record<string, unknown>; // prettier-ignore
    const retry = res.status === 0 || res.status === 409 || res.status === 503;
    if (!retry || attempt >= 20) throw new Error(`${method} ${path} at ${base}: HTTP ${res.status} ${res.text.slice(0, 300)}`); // prettier-ignore
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** `count` grids of `posts` posts; grid i is created in region (i mod 2) + 1 through `bases`. */
export async function seedGrids(
  bases: readonly [string, string],
  count: number,
  posts: number,
): Promise<RegionGrid[]> {
  const make = async (i: number): Promise<RegionGrid> => {
    const dc = (i % 2) + 1;
    const base = bases[dc - 1]!;
    // Random IDs below 2^53, far from any other run's (snowflake post IDs are far above).
    const profileId = BigInt(randomInt(1, 2 ** 47)) * 64n + BigInt(i);
    const created: bigint[] = [];
    for (let k = 0; k < posts; k++) {
      const r = await call(base, 'POST', '/v1/me/posts', profileId, { caption: `two-region ${k}` }); // prettier-ignore
      created.push(BigInt((r['post'] as { id: string }).id));
    }
    const page = await call(base, 'GET', `/v1/profiles/${profileId}/grid?limit=1`, profileId);
    return {
      home: `dc${dc}`,
      model: {
        profileId,
        posts: created,
        initial: [...created].reverse(),
        acks: [],
        uncertain: 0,
        unknown: [],
        seededVersion: BigInt(page['grid_version'] as string),
        finalVersion: null,
      },
    };
  };
  const out: RegionGrid[] = [];
  for (let i = 0; i < count; i += 4) {
    const batch = Array.from({ length: Math.min(4, count - i) }, (_, k) => make(i + k));
    out.push(...(await Promise.all(batch)));
  }
  return out;
}
