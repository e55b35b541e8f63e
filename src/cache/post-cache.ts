/**
 * Post bodies by multi-get (design article §6.2: bodies live apart from the order, so a caption
 * change never discards an order and a move never discards bodies).
 *
 * `hydrate` answers from one MGET, reads the misses from Cassandra in one go and backfills them
 * (fire and forget: the response does not wait for the backfill). Posts Cassandra no longer has
 * (deleted, taken down) are absent from the result, and callers skip them. With Redis down the
 * whole set comes from Cassandra.
 *
 * Bodies live in slots of their own (no hash tag), so on a Redis Cluster the multi-get, backfill
 * and forget go out as per-key commands, one pipeline per master (redis-batch.ts).
 */
import { decodePost, encodePost } from './codec.js';
import { cacheKeys } from './keys.js';
import { getMany, setEachEx, unlinkGroups } from './redis-batch.js';
import type { RedisGuard } from './redis.js';
import type { GridReads } from '../domain/grid-source.js';
import type { Post as PostBody } from '../domain/post.js';

export interface PostCacheStats {
  hits: number;
  misses: number;
}

/** `Scope`: the caller's statement scope, opaque here, handed to the source's reads of misses. */
export interface PostCache<Scope = never> {
  /** Bodies of the given posts; deleted posts are missing from the map. */
  hydrate(postIds: readonly bigint[], scope?: Scope): Promise<Map<bigint, PostBody>>;
  /** Drops cached bodies (post edited, deleted or taken down). */
  forget(postIds: readonly bigint[]): Promise<void>;
  readonly stats: PostCacheStats;
}

export function createPostCache<Scope = never>(
  guard: RedisGuard,
  source: Pick<GridReads<Scope>, 'hydrate'>,
  ttlS: number,
): PostCache<Scope> {
  const stats: PostCacheStats = { hits: 0, misses: 0 };

  async function hydrate(
    postIds: readonly bigint[],
    scope?: Scope,
  ): Promise<Map<bigint, PostBody>> {
    const out = new Map<bigint, PostBody>();
    if (postIds.length === 0) return out;
    const raw = await guard.run((c) => getMany(c, postIds.map(cacheKeys.post)));
    const missing: bigint[] = [];
    postIds.forEach((id, i) => {
      const body = decodePost(raw?.[i]);
      if (body && body.postId === id) out.set(id, body);
      else missing.push(id);
    });
    stats.hits += out.size;
    stats.misses += missing.length;
    if (missing.length === 0) return out;

    const fetched = await source.hydrate(missing, scope);
    for (const [id, body] of fetched) out.set(id, body);
    if (fetched.size > 0 && raw !== undefined) {
      const entries = [...fetched.values()].map(
        (body) => [cacheKeys.post(body.postId), encodePost(body)] as const,
      );
      void guard.run((c) => setEachEx(c, entries, ttlS));
    }
    return out;
  }

  async function forget(postIds: readonly bigint[]): Promise<void> {
    if (postIds.length === 0) return;
    await guard.run((c) =>
      unlinkGroups(
        c,
        postIds.map((id) => [cacheKeys.post(id)]),
      ),
    );
  }

  return { hydrate, forget, stats };
}
