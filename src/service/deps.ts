/**
 * The stores (each constructed once, in wiring.ts), the one writer, the reader and the ID source:
 * the record GridService hands, with the flags and Redis's seams, to every
 * operation. Each operation declares in its signature the few ports it uses
 * (service/operations/*.ts); no code outside the service layer sees these fields.
 */
import type { ArchiveStore } from '../store/archive-store.js';
import type { GridStore } from '../store/grid-store.js';
import type { InviteGuardsStore } from '../store/invite-guards-store.js';
import type { InvitesStore } from '../store/invites-store.js';
import type { MovesStore } from '../store/moves-store.js';
import type { PostsStore } from '../store/posts-store.js';
import type { ProfilesStore } from '../store/profiles-store.js';
import type { RemovedPostsStore } from '../store/removed-posts-store.js';
import type { CassandraGridReader } from '../store/grid-reader.js';
import type { GridWriter } from './write-line/write-line.js';
import type { GridPage, PageQuery } from './read/read-page.js';

export interface ServiceDeps {
  readonly store: GridStore;
  readonly reader: CassandraGridReader;
  readonly posts: PostsStore;
  readonly writer: GridWriter;
  readonly archive: ArchiveStore;
  readonly invites: InvitesStore;
  readonly inviteGuards: InviteGuardsStore;
  readonly moves: MovesStore;
  readonly profiles: ProfilesStore;
  /** Post IDs deleted or taken down for good (operations/removed-posts.ts). */
  readonly removed: RemovedPostsStore;
  readonly nextId: () => bigint;
  /** Rows one move's write may carry (MOVE_ROW_CAP; domain/keys.ts, placeCapped). */
  readonly rowCap?: number;
  /** The real page read (through the cache when there is one): the audit checks what users get. */
  readonly readPage: (q: PageQuery) => Promise<GridPage>;
}
