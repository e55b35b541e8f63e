/**
 * The grid as the editor holds it: the posts in display order (pins first), the pins, the grid
 * version and the cursor of the next page. It loads pages by cursor as the user scrolls and
 * renders tiles keyed by post ID, reusing each tile's element, so a re-render after a move only
 * reorders nodes (and keeps the focus where it was).
 */
import type { GridItem as Post, RegridClient } from '@regrid/client';
import { createTile, markPinned } from './tiles.js';

const PAGE = 24; // eight rows of three

/** The version in an order ETag `"<generation>.<version>"`. */
export const versionOfEtag = (etag: string): string =>
  etag.replace(/^W\//, '').replace(/"/g, '').split('.')[1] ?? '0';

export class Board {
  posts: Post[] = [];
  pins: string[] = [];
  version = '0';
  private cursor: string | null = null;
  private loadSeq = 0;
  private loadingMore = false;
  private readonly tiles = new Map<string, HTMLLIElement>();

  constructor(
    private readonly api: RegridClient,
    readonly profileId: string,
    readonly list: HTMLOListElement,
    private readonly onVersion: (version: string) => void,
  ) {}

  get pinCount(): number {
    return this.posts.filter((p) => this.pins.includes(p.id)).length;
  }

  ids(): string[] {
    return this.posts.map((p) => p.id);
  }

  setVersion(v: string): void {
    this.version = v;
    this.onVersion(v);
  }

  /**
   * Reads the grid afresh, at least as many tiles as are shown now. The pins and version come
   * from the order resource, the posts from pages read at that version (min_version), and the
   * read is repeated when a write slipped in between the two.
   */
  async reload(): Promise<void> {
    const seq = ++this.loadSeq;
    const keep = Math.max(PAGE, this.posts.length);
    for (let attempt = 1; ; attempt++) {
      const order = await this.api.order();
      const version = versionOfEtag(order.etag);
      const posts: Post[] = [];
      let cursor: string | null = null;
      let seen = version;
      do {
        const page = await this.api.gridPage(this.profileId, {
          ...(cursor ? { cursor } : {}),
          limit: PAGE,
          min_version: version,
        });
        posts.push(...page.items);
        cursor = page.next_cursor;
        seen = page.grid_version;
      } while (cursor && posts.length < keep);
      if (seq !== this.loadSeq) return; // a later reload superseded this one
      if (seen !== version && attempt < 3) continue;
      this.posts = dedupe(posts);
      this.pins = order.pinned;
      this.cursor = cursor;
      this.setVersion(seen);
      this.render();
      return;
    }
  }

  /** The next page, if there is one (called when the end of the grid scrolls into view). */
  async loadMore(): Promise<void> {
    if (!this.cursor || this.loadingMore) return;
    this.loadingMore = true;
    const seq = this.loadSeq;
    try {
      const page = await this.api.gridPage(this.profileId, { cursor: this.cursor, limit: PAGE });
      if (seq !== this.loadSeq) return;
      this.posts = dedupe([...this.posts, ...page.items]);
      this.cursor = page.next_cursor;
      this.render();
    } finally {
      this.loadingMore = false;
    }
  }

  get hasMore(): boolean {
    return this.cursor !== null;
  }

  tileOf(postId: string): HTMLLIElement | undefined {
    return this.tiles.get(postId);
  }

  /** Puts the tiles in `posts` order, creating missing ones and dropping those gone. */
  render(): void {
    const focused = document.activeElement;
    const wanted = new Set(this.posts.map((p) => p.id));
    for (const [id, tile] of this.tiles) {
      if (!wanted.has(id)) {
        tile.remove();
        this.tiles.delete(id);
      }
    }
    let prev: Element | null = null;
    for (const post of this.posts) {
      let tile = this.tiles.get(post.id);
      if (!tile) {
        tile = createTile(post);
        this.tiles.set(post.id, tile);
      }
      markPinned(tile, this.pins.includes(post.id));
      const expected: Element | null = prev ? prev.nextElementSibling : this.list.firstElementChild;
      if (expected !== tile) this.list.insertBefore(tile, expected);
      prev = tile;
    }
    if (focused instanceof HTMLElement && focused !== document.activeElement) focused.focus();
  }

  /** The post IDs in the order the tiles stand in the DOM (during a drag, before a commit). */
  domOrder(): string[] {
    return Array.from(this.list.children, (li) => (li as HTMLElement).dataset.postId ?? '');
  }
}

function dedupe(posts: Post[]): Post[] {
  const seen = new Set<string>();
  return posts.filter((p) => !seen.has(p.id) && (seen.add(p.id), true));
}
