/**
 * The body of a post as the service handles it, whichever store it came from (Cassandra's
 * `posts` table or the Redis body cache). Absent optional fields are `undefined`, never null.
 */
export interface Post {
  readonly postId: bigint;
  readonly authorId: bigint;
  readonly caption: string | undefined;
  readonly mediaUrl: string | undefined;
  readonly createdAt: Date;
  readonly collaborators: readonly bigint[];
  /** Set once its deletion or takedown began: it must not join any grid again. */
  readonly removedAt?: Date | undefined;
}

/** Two bodies of one post ID say the same (author, caption, media URL, time). */
export const sameBody = (a: Post, b: Post): boolean =>
  a.authorId === b.authorId &&
  a.caption === b.caption &&
  a.mediaUrl === b.mediaUrl &&
  a.createdAt.getTime() === b.createdAt.getTime();
