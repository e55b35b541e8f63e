/**
 * Redis key names, in one place so the docs (docs/cache.md) and the code cannot drift.
 *
 * Per-profile keys put the profile ID in braces: in Redis Cluster the braces are a hash tag, so
 * every key of one profile (summary, orders, override lists, lease) lives in one slot and the Lua
 * scripts that touch several of them stay legal. Post bodies are spread freely.
 *
 * Every grid-derived key carries generation and version: an order or override list stored under
 * `g{gen}:v{version}` belongs to exactly that grid state, so a late or reordered invalidation can
 * never make it answer for another state; old versions simply stop being read and expire.
 */
import { createHash } from 'node:crypto';

/** Also spelled out in the READ_FIRST script (scripts.ts), which builds body keys itself. */
export const POST_KEY_PREFIX = 'post:';

export const cacheKeys = {
  /** Profile summary (generation, version, post count): deleted, never overwritten, on change. */
  summary: (profileId: bigint) => `profile:{${profileId}}`,
  /**
   * The summary as it was when last invalidated: served to lease waiters whose wait ran out
   * (memcache's stale value), never to a reader whose min_version it does not meet.
   */
  previous: (profileId: bigint) => `profile:{${profileId}}:prev`,
  /** Pins + first entries of the display order for one grid state. Immutable once written. */
  order: (profileId: bigint, generation: bigint, version: bigint) =>
    `grid:{${profileId}}:g${generation}:v${version}`,
  /**
   * The rendered first page (`limit` entries) of one grid state, beside its order entry: the
   * READ_PAGE script (scripts.ts) finds it by appending the suffix to the summary's order key.
   * The suffix (`renderedSuffix`) names the limit and the cursor key the page's `next_cursor`
   * is signed with, so processes with another CURSOR_SECRET never serve each other's cursors.
   */
  rendered: (profileId: bigint, generation: bigint, version: bigint, suffix: string) =>
    `grid:{${profileId}}:g${generation}:v${version}${suffix}`,
  /** The whole override list for one grid state (later pages). Immutable once written. */
  overrides: (profileId: bigint, generation: bigint, version: bigint) =>
    `ovr:{${profileId}}:g${generation}:v${version}`,
  /** Fill lease for a profile's summary (memcache-style). Value = lease token. */
  lease: (profileId: bigint) => `lease:{${profileId}}`,
  /** Post body. */
  post: (postId: bigint) => `${POST_KEY_PREFIX}${postId}`,
  /** Move rate-limit window of a profile. */
  moveRate: (profileId: bigint) => `rl:move:{${profileId}}`,
} as const;

/** 48 bits of the cursor secret's SHA-256: names it in cache keys without revealing it. */
export const cursorKeyIdOf = (secret: string): string =>
  createHash('sha256').update(secret).digest('base64url').slice(0, 8);

export const renderedSuffix = (limit: number, cursorKeyId: string) => `:l${limit}:c${cursorKeyId}`;

/**
 * SCAN patterns that cover every profile's summary, previous summary and lease: what a process
 * deletes when it has lost track of which profiles' invalidations Redis missed
 * (pending-invalidations.ts). Orders and override lists are keyed by state and need no sweep.
 */
export const SUMMARY_SWEEP_PATTERNS = ['profile:{*', 'lease:{*'] as const;
