/**
 * Redis key names, in one place so the docs (docs/cache.md) and the code cannot drift.
 *
 * Per-profile keys put the profile ID in braces: in Redis Cluster the braces are a hash tag, so
 * every key of one profile (summary, pages, lease) lives in one slot and the Lua scripts that
 * touch several of them stay legal. Post bodies are spread freely.
 *
 * A rendered page carries generation and version in its key: it belongs to exactly that grid
 * state, so a late or reordered invalidation can never make it answer for another state; old
 * versions simply stop being read and expire.
 */
import { createHash } from 'node:crypto';

export const cacheKeys = {
  /** Profile summary (the current state's generation and version): deleted on every write. */
  summary: (profileId: bigint) => `profile:{${profileId}}`,
  /** Prefix of one grid state's keys; the summary names it, READ_PAGE appends the suffix. */
  state: (profileId: bigint, generation: bigint, version: bigint) =>
    `grid:{${profileId}}:g${generation}:v${version}`,
  /**
   * The rendered first page (`limit` entries) of one grid state. The suffix (`renderedSuffix`)
   * names the limit and the cursor key the page's `next_cursor` is signed with, so processes
   * with another CURSOR_SECRET never serve each other's cursors.
   */
  rendered: (profileId: bigint, generation: bigint, version: bigint, suffix: string) =>
    `${cacheKeys.state(profileId, generation, version)}${suffix}`,
  /** Fill lease for a profile's summary (memcache-style). Value = lease token. */
  lease: (profileId: bigint) => `lease:{${profileId}}`,
  /** Post body. */
  post: (postId: bigint) => `post:${postId}`,
  /** Move rate-limit window of a profile. */
  moveRate: (profileId: bigint) => `rl:move:{${profileId}}`,
} as const;

/** 48 bits of the cursor secret's SHA-256: names it in cache keys without revealing it. */
export const cursorKeyIdOf = (secret: string): string =>
  createHash('sha256').update(secret).digest('base64url').slice(0, 8);

export const renderedSuffix = (limit: number, cursorKeyId: string) => `:l${limit}:c${cursorKeyId}`;

/**
 * SCAN patterns that cover every profile's summary and lease: what a process deletes when it has
 * lost track of which profiles' invalidations Redis missed (pending-invalidations.ts). Pages are
 * keyed by state and need no sweep.
 */
export const SUMMARY_SWEEP_PATTERNS = ['profile:{*', 'lease:{*'] as const;
