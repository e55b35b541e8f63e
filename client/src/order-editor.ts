/**
 * The batch editor flow of design §5.3: read the order resource (with its ETag), record the
 * user's moves as anchor-based moves while showing them locally, then send the whole order
 * once with `If-Match`. On 412 (the grid changed meanwhile: another device, a new post) it
 * reloads the order, replays the recorded moves on it and sends again. A move whose post or
 * anchor is gone from the fresh order is skipped and reported; `confirm` may veto the save.
 */
import type { Call } from './transport.js';
import { isRegridError } from './problem.js';

export interface RecordedMove {
  readonly post_id: string;
  /** The post right before it; null = the top (after the pins). */
  readonly after: string | null;
}

export interface VanishedMove {
  readonly move: RecordedMove;
  /** The moved post left the main order (deleted, archived, pinned), or the anchor left the grid. */
  readonly reason: 'post_gone' | 'anchor_gone';
}

export type SaveResult =
  | {
      readonly status: 'saved';
      readonly grid_version: string;
      readonly rows_written: number;
      readonly etag: string;
      readonly attempts: number;
      readonly vanished: readonly VanishedMove[];
    }
  /** Nothing to send: the replayed order equals the server's. */
  | {
      readonly status: 'unchanged';
      readonly etag: string;
      readonly attempts: number;
      readonly vanished: readonly VanishedMove[];
    }
  /** `confirm` said no: nothing was sent for the last attempt. */
  | {
      readonly status: 'aborted';
      readonly attempts: number;
      readonly vanished: readonly VanishedMove[];
    };

export interface SaveOptions {
  /** Asked when a replay had to skip moves; false = do not save. Default: save. */
  readonly confirm?: (vanished: readonly VanishedMove[]) => boolean | Promise<boolean>;
  /** Rounds of PATCH → 412 → reload before giving up with the 412 (default 5). */
  readonly maxAttempts?: number;
}

interface Snapshot {
  readonly postIds: readonly string[];
  readonly pinned: readonly string[];
  readonly etag: string;
}

/** Applies one anchor-based move to `order` in place, as the server would; undefined = applied. */
export function applyMove(
  order: string[],
  pinned: readonly string[],
  m: RecordedMove,
): VanishedMove['reason'] | undefined {
  const from = order.indexOf(m.post_id);
  if (from < 0) return 'post_gone';
  const toTop = m.after === null || pinned.includes(m.after);
  if (!toTop && !order.includes(m.after!)) return 'anchor_gone';
  if (m.after === m.post_id) return undefined;
  order.splice(from, 1);
  order.splice(toTop ? 0 : order.indexOf(m.after!) + 1, 0, m.post_id);
  return undefined;
}

export class OrderEditor {
  private base: Snapshot;
  private local: string[];
  private moves: RecordedMove[] = [];

  constructor(
    private readonly call: Call,
    snapshot: Snapshot,
  ) {
    this.base = snapshot;
    this.local = [...snapshot.postIds];
  }

  static async open(call: Call): Promise<OrderEditor> {
    return new OrderEditor(call, await load(call));
  }

  /** The main order as the user sees it now (pins excluded). */
  get order(): readonly string[] {
    return this.local;
  }
  get pinned(): readonly string[] {
    return this.base.pinned;
  }
  get etag(): string {
    return this.base.etag;
  }
  get recorded(): readonly RecordedMove[] {
    return this.moves;
  }

  /** Records a move and shows it locally; a post or anchor not in the local order is an error. */
  move(postId: string, after: string | null): this {
    const m = { post_id: postId, after };
    const refused = applyMove(this.local, this.base.pinned, m);
    if (refused) throw new RangeError(`cannot move ${postId} after ${after}: ${refused}`);
    this.moves.push(m);
    return this;
  }

  /** Sends the order with If-Match; on 412 reloads, replays and retries. */
  async save(options: SaveOptions = {}): Promise<SaveResult> {
    const maxAttempts = options.maxAttempts ?? 5;
    let vanished: VanishedMove[] = [];
    for (let attempt = 1; ; attempt++) {
      if (sameOrder(this.local, this.base.postIds)) {
        this.moves = [];
        return { status: 'unchanged', etag: this.base.etag, attempts: attempt - 1, vanished };
      }
      try {
        const r = await this.call('patchOrder', {
          body: { post_ids: [...this.local] },
          ifMatch: this.base.etag,
        });
        this.base = { postIds: [...this.local], pinned: this.base.pinned, etag: r.etag ?? '' };
        this.moves = [];
        return { status: 'saved', ...r.data, etag: this.base.etag, attempts: attempt, vanished };
      } catch (err) {
        if (!isRegridError(err, 'precondition_failed') || attempt >= maxAttempts) throw err;
      }
      // Someone else changed the grid: start from the fresh order and replay the user's moves.
      this.base = await load(this.call);
      this.local = [...this.base.postIds];
      vanished = [];
      const kept: RecordedMove[] = [];
      for (const m of this.moves) {
        const reason = applyMove(this.local, this.base.pinned, m);
        if (reason) vanished.push({ move: m, reason });
        else kept.push(m);
      }
      this.moves = kept;
      if (vanished.length > 0 && options.confirm && !(await options.confirm(vanished))) {
        return { status: 'aborted', attempts: attempt, vanished };
      }
    }
  }
}

async function load(call: Call): Promise<Snapshot> {
  const r = await call('getOrder');
  if (r.status === 304 || !r.etag)
    throw new Error('the order resource answered without a body or ETag');
  return { postIds: r.data.post_ids, pinned: r.data.pinned, etag: r.etag };
}

const sameOrder = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);
