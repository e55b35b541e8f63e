/**
 * The feed's client of the regrid API: the catch-up route and the grid read, the two reads a
 * consumer repairs a profile with (docs/integration.md, "After a Redis data loss"). Every request
 * goes through `regridGet`, so how the feed authenticates is decided in one place.
 *
 * The feed is a platform service, not a user: it sends its service token
 * (`src/http/service-auth.ts` issueServiceToken, `scope: "service"`) as a bearer on every read.
 * The changes route answers its full form to the owner and to service tokens only; anyone else
 * gets a public form (kinds `added` and `removed`, archives naming no post) that a feed
 * cannot be kept with, so a page of that form is refused here with the reason.
 */
import { ChangeEvent } from './decide.js';

/** GETs a path of the regrid API (`fetch` on a base URL, or a Hono app's `request` in tests). */
export type Get = (path: string) => Promise<Response>;

/** GET on `baseUrl`, with the service token (when given) as the bearer. */
export function regridGet(baseUrl: string, serviceToken?: string): Get {
  const base = baseUrl.replace(/\/$/, '');
  const headers: Record<string, string> = serviceToken
    ? { authorization: `Bearer ${serviceToken}` }
    : {};
  return (path) => fetch(`${base}${path}`, { headers });
}

const PUBLIC_KINDS = new Set(['added', 'removed']);

export type ChangesPage =
  | {
      readonly kind: 'changes';
      readonly changes: ChangeEvent[];
      readonly gridVersion: bigint;
      readonly next?: bigint;
    }
  | { readonly kind: 'gone'; readonly gridVersion: bigint };

/** GET /v1/profiles/:id/grid/changes?after_version=N: one page, or `gone` (410, history_gone). */
export async function changesAfter(
  get: Get,
  profile: string,
  after: bigint,
  limit = 100,
): Promise<ChangesPage> {
  const res = await get(
    `/v1/profiles/${profile}/grid/changes?after_version=${after}&limit=${limit}`,
  );
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status === 410) return { kind: 'gone', gridVersion: BigInt(String(body.grid_version)) };
  if (!res.ok) throw new Error(`GET changes of ${profile}: ${res.status} ${JSON.stringify(body)}`);
  if ((body.changes as Array<{ kind?: unknown }>).some((c) => PUBLIC_KINDS.has(String(c.kind))))
    throw new Error(
      `GET changes of ${profile}: the public form came back; send a service token (FEED_SERVICE_TOKEN)`,
    );
  const changes = (body.changes as unknown[]).map((c) =>
    ChangeEvent.parse({ ...(c as object), profile_id: profile }),
  );
  return {
    kind: 'changes',
    changes,
    gridVersion: BigInt(String(body.grid_version)),
    ...(body.next_after_version !== undefined
      ? { next: BigInt(String(body.next_after_version)) }
      : {}),
  };
}

export interface GridRead {
  readonly posts: bigint[];
  /** The version every page was read at. */
  readonly version: bigint;
  /** That version's generation; undefined when the change log has no record of it. */
  readonly generation: bigint | undefined;
}

/**
 * Every post on the profile's grid (GET /v1/profiles/:id/grid, page by page) at one version: a
 * page that says `grid_changed` restarts the read. The generation of that version comes from the
 * change log (its record is the newest one, which the log always holds).
 */
export async function readGrid(get: Get, profile: string): Promise<GridRead> {
  for (let attempt = 0; ; attempt++) {
    const posts: bigint[] = [];
    let cursor: string | null = null;
    let version: bigint | undefined;
    let changed = false;
    do {
      const q = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const res = await get(`/v1/profiles/${profile}/grid?limit=100${q}`);
      if (!res.ok) throw new Error(`GET grid of ${profile}: ${res.status}`);
      const page = (await res.json()) as {
        items: Array<{ id: string }>;
        next_cursor: string | null;
        grid_version: string;
        grid_changed: boolean;
      };
      for (const item of page.items) posts.push(BigInt(item.id));
      version ??= BigInt(page.grid_version);
      changed ||= page.grid_changed;
      cursor = page.next_cursor;
    } while (cursor);
    if (changed && attempt < 5) continue;
    const v = version ?? 0n;
    let generation: bigint | undefined;
    if (v > 0n) {
      const log = await changesAfter(get, profile, v - 1n, 1);
      const record = log.kind === 'changes' ? log.changes[0] : undefined;
      if (record && BigInt(record.version) === v) generation = BigInt(record.generation);
    }
    return { posts, version: v, generation };
  }
}
