/**
 * Archive, unarchive and the archive listing (design §3.2). Archive and unarchive are single
 * grid writes: each reads every fact it depends on (the grid row, the archive record, the body's
 * removal fence) after the snapshot its compare-and-set is conditioned on, and the changes to
 * `grid_posts` and the archive tables go as membership effects of that same batch
 * (domain/membership.ts). Two concurrent calls on one post are therefore serialized: whichever
 * commits second sees the first one's result.
 *
 * Answers: archive of a post already archived, and unarchive of a post already back on the grid,
 * are idempotent 200s that bump nothing (`changed: false`); a post that is neither on the grid
 * nor archived is a 404.
 *
 * Unarchive gives the post its key back: "previous" = the key kept in the record if no other row
 * holds it now, else a fresh key next to the holder; "chronological" = its own ID. moved_version
 * is set either way (the post changed position; cursors must not re-look it up).
 */
import { DomainError } from '../../domain/errors.js';
import { idToDate } from '../../domain/ids.js';
import type { MembershipOp } from '../../domain/membership.js';
import type { ArchiveStore } from '../../store/archive-store.js';
import type { CassandraGridReader } from '../../store/grid-reader.js';
import type { PostRecord, PostsStore } from '../../store/posts-store.js';
import type { GridWriter, WriteOptions } from '../write-line/write-line.js';
import { trackOp } from '../write-line/write-op.js';
import { outOfOrder } from './post-removal.js';
import { restoreKey, type RestorePorts } from './restore-key.js';

export interface ArchivePorts extends RestorePorts {
  readonly writer: Pick<GridWriter, 'writeGrid'>;
  readonly archive: ArchiveStore;
  readonly posts: Pick<PostsStore, 'getPost' | 'getPosts'>;
}

export type UnarchivePosition = 'previous' | 'chronological';

export interface ArchiveChange {
  /** False when the post already was in the state asked for (nothing written). */
  readonly changed: boolean;
}

const notOnGrid = (postId: bigint) =>
  new DomainError('post_not_on_grid', 'the post is neither on this grid nor archived', {
    post_id: postId.toString(),
  });

export function archivePost(
  ports: ArchivePorts,
  profileId: bigint,
  postId: bigint,
  options: WriteOptions = {},
) {
  return trackOp('archive', () => {
    const opts: WriteOptions = { ...options, op: 'archive' };
    return ports.writer.writeGrid<ArchiveChange>(
      profileId,
      async ({ snapshot }) => {
        const [onGrid, record] = await Promise.all([
          ports.store.hasGridRow(profileId, postId),
          ports.archive.get(profileId, postId),
        ]);
        if (!onGrid) {
          if (record) return { kind: 'skip', result: { changed: false } };
          throw notOnGrid(postId);
        }
        const post = await ports.posts.getPost(postId);
        const own = snapshot.overrides.find((o) => o.postId === postId);
        const effects: MembershipOp[] = [
          { op: 'grid_drop', postId },
          {
            op: 'archive_put',
            postId,
            authorId: post?.authorId ?? profileId,
            sortKey: own?.key,
            seq: ports.nextId(),
          },
        ];
        return {
          kind: 'write',
          mutation: { effects, ...outOfOrder(snapshot, postId) },
          result: { changed: true },
          change: { kind: 'archived', postIds: [postId] },
        };
      },
      opts,
    );
  });
}

export function unarchivePost(
  ports: ArchivePorts,
  profileId: bigint,
  postId: bigint,
  position: UnarchivePosition,
  options: WriteOptions = {},
) {
  return trackOp('unarchive', () => {
    const opts: WriteOptions = { ...options, op: 'unarchive' };
    return ports.writer.writeGrid<ArchiveChange & { rowsWritten: number }>(
      profileId,
      async ({ snapshot, nextVersion }) => {
        const [record, onGrid] = await Promise.all([
          ports.archive.get(profileId, postId),
          ports.store.hasGridRow(profileId, postId),
        ]);
        if (!record) {
          if (onGrid) return { kind: 'skip', result: { changed: false, rowsWritten: 0 } };
          throw new DomainError('post_not_found', 'the post is not archived on this grid', {
            post_id: postId.toString(),
          });
        }
        // Read after the snapshot: a deletion fences the body before it takes the post off grids.
        const post = await ports.posts.getPost(postId);
        if (!post || post.removedAt) {
          throw new DomainError('post_not_found', 'no such post', { post_id: postId.toString() });
        }
        const wanted = position === 'previous' ? (record.sortKey ?? postId) : postId;
        const upserts = await restoreKey(ports, {
          profileId,
          snapshot,
          postId,
          wanted,
          pins: snapshot.head.pins,
          movedVersion: nextVersion,
        });
        const effects: MembershipOp[] = [
          { op: 'grid_put', postId, authorId: record.authorId },
          { op: 'archive_drop', postId, seq: record.seq },
        ];
        return {
          kind: 'write',
          mutation: { upserts, effects },
          result: { changed: true, rowsWritten: upserts.length },
          change: { kind: 'unarchived', postIds: [postId] },
        };
      },
      opts,
    );
  });
}

export interface ArchivePage {
  readonly items: ReadonlyArray<{ readonly post: PostRecord; readonly archivedAt: Date }>;
  /** Pass as `before` for the next page; null on the last page. */
  readonly nextBefore: bigint | null;
}

/** The owner's archive, newest archived first (Instagram's Archive view). */
export async function listArchive(
  ports: Pick<ArchivePorts, 'archive' | 'posts'> & {
    readonly reader: Pick<CassandraGridReader, 'readHead'>;
  },
  profileId: bigint,
  limit: number,
  before?: bigint,
): Promise<ArchivePage> {
  await ports.reader.readHead(profileId); // rolls the grid forward
  const rows = await ports.archive.list(profileId, limit + 1, before);
  const page = rows.slice(0, limit);
  const bodies = await ports.posts.getPosts(page.map((r) => r.postId));
  const byId = new Map(bodies.map((b) => [b.postId, b]));
  const items = page.flatMap((r) => {
    const post = byId.get(r.postId);
    return post && !post.removedAt ? [{ post, archivedAt: idToDate(r.seq) }] : [];
  });
  const last = page[page.length - 1];
  return { items, nextBefore: rows.length > limit && last ? last.seq : null };
}
