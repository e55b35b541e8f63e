/**
 * What the cache needs from the store: the narrow port the read-through cache fills from. The
 * Cassandra adapter lives beside the store (src/service wires the real one); keeping the port
 * here lets the cache be read, and tested, on its own terms.
 */
import type { GridHead, OverrideRow } from '../domain/grid-head.js';
import type { Post } from '../domain/post.js';
import type { GridEntry } from '../domain/merge.js';

/**
 * `quorum` = the configured LOCAL_QUORUM read, which overlaps the LOCAL_QUORUM commit of every
 * compare-and-set. `serial` = a LOCAL_SERIAL read: it also finishes a Paxos round that a writer
 * left half-done (for example after a write timeout), so it sees every write that could ever win.
 */
export type ReadConsistency = 'quorum' | 'serial';

export type { GridHead, OverrideRow };
export type PostBody = Post;

export interface GridSource {
  readHead(profileId: bigint, consistency?: ReadConsistency): Promise<GridHead>;
  /**
   * The first `limit` entries in display order: `overrides` (sorted key DESC, postId DESC) merged
   * with the time-ordered rows streamed from Cassandra, `exclude`d posts (the pins) left out.
   */
  entries(
    profileId: bigint,
    overrides: readonly GridEntry[],
    query: { readonly limit: number; readonly exclude?: Iterable<bigint> },
  ): Promise<GridEntry[]>;
  /**
   * Every override row of the profile, sorted by (key DESC, postId DESC), together with the head
   * read in the same single-partition query (so the list belongs to exactly that version).
   */
  readOverrides(profileId: bigint): Promise<{ head: GridHead; rows: OverrideRow[] }>;
  /** Bodies of existing posts; deleted posts are simply absent from the map. */
  readPosts(postIds: readonly bigint[]): Promise<Map<bigint, PostBody>>;
}
