/**
 * The order resource (design §5.3): GET returns the main order (pins apart) with the grid version
 * as its entity tag; PATCH replaces the order of the whole grid or of a range, guarded by If-Match.
 *
 * PATCH checks If-Match against the snapshot the compare-and-set is conditioned on, so "the
 * version I built this order from" and "the version I write over" are the same thing. The plan
 * (domain/batch-order.ts) rewrites only posts outside a longest increasing subsequence and
 * divides each gap evenly, so rows_written = n − LIS unless a gap had to be relabelled.
 */
import { planBatchOrder, type BatchOrderRequest } from '../../domain/batch-order.js';
import { DomainError } from '../../domain/errors.js';
import { formatEtag, ifMatchSatisfied } from '../../domain/etag.js';
import type { OverrideWrite } from '../../store/grid-mutation.js';
import type { CassandraGridReader } from '../../store/grid-reader.js';
import type { Flags } from '../flags.js';
import type { GridWriter, WriteOptions } from '../write-line/write-line.js';
import { trackOp } from '../write-line/write-op.js';

export interface OrderPorts {
  readonly reader: Pick<CassandraGridReader, 'readOverrides' | 'entries'>;
  readonly flags: Pick<Flags, 'require'>;
}

export interface BatchOrderPorts extends OrderPorts {
  readonly writer: Pick<GridWriter, 'writeGrid'>;
  readonly nextId: () => bigint;
}

export interface GridOrder {
  readonly postIds: readonly bigint[];
  readonly pinned: readonly bigint[];
  readonly version: bigint;
  readonly generation: bigint;
  readonly etag: string;
}

/** Upper bound on the posts one order read returns (the whole grid, in practice). */
const ALL = Number.MAX_SAFE_INTEGER;

/** Hidden with the arrangement it edits while `reads.overrides` is off (docs/ops/rollout.md). */
export async function readOrder(ports: OrderPorts, profileId: bigint): Promise<GridOrder> {
  await ports.flags.require('reads.overrides');
  // Head and overrides from one query (the version is read before the time-ordered rows),
  // rolled forward by the reader if the last membership write's effects are not applied yet.
  const { head, rows } = await ports.reader.readOverrides(profileId);
  const entries = await ports.reader.entries(profileId, rows, {
    limit: ALL,
    exclude: head.pins,
  });
  return {
    postIds: entries.map((e) => e.postId),
    pinned: head.pins,
    version: head.version,
    generation: head.generation,
    etag: formatEtag(head),
  };
}

export interface BatchOrderResult {
  readonly rowsWritten: number;
  readonly kept: number;
}

export function patchOrder(
  ports: BatchOrderPorts,
  profileId: bigint,
  ifMatch: string | undefined,
  request: BatchOrderRequest,
  options: WriteOptions = {},
) {
  return trackOp('batch_order', async () => {
    await ports.flags.require('writes.reorder');
    const opts: WriteOptions = { ...options, op: 'batch_order' };
    if (ifMatch === undefined || ifMatch.trim() === '') {
      throw new DomainError(
        'precondition_required',
        'send If-Match with the ETag of GET /v1/me/grid/order',
      );
    }
    return ports.writer.writeGrid<BatchOrderResult>(
      profileId,
      async ({ snapshot, nextVersion }) => {
        const { head } = snapshot;
        if (!ifMatchSatisfied(ifMatch, head)) {
          throw new DomainError(
            'precondition_failed',
            'the grid changed since that order was read',
            {
              etag: formatEtag(head),
              grid_version: head.version.toString(),
            },
          );
        }
        const current = await ports.reader.entries(profileId, snapshot.overrides, {
          limit: ALL,
          exclude: head.pins,
        });
        const plan = planBatchOrder(current, request, ports.nextId());
        if (plan.writes.length === 0) {
          return { kind: 'skip', result: { rowsWritten: 0, kept: plan.kept } };
        }
        const moved = new Set(plan.moved);
        const upserts: OverrideWrite[] = plan.writes.map(
          (w) =>
            moved.has(w.postId)
              ? { postId: w.postId, sortKey: w.key, movedVersion: nextVersion }
              : { postId: w.postId, sortKey: w.key }, // relabel: moved_version untouched
        );
        return {
          kind: 'write',
          mutation: { upserts },
          result: { rowsWritten: upserts.length, kept: plan.kept },
          change: { kind: 'batch_reordered', postIds: plan.moved },
        };
      },
      opts,
    );
  });
}
