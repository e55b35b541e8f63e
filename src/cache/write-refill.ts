/**
 * The pre-fill of a committed state's order entry, off the response path. The writer's commit
 * event holds the snapshot its compare-and-set was conditioned on and the mutation it wrote, so
 * the new head and override list are known without reading them back (domain/override-list.ts);
 * only the time-ordered rows are streamed, then the version is read again (the order-reader rule:
 * rows filed under a version that moved meanwhile are not cached).
 *
 * Writes that change membership (their effects touch `grid_posts` and the side tables) refill the
 * old way, from a fresh head, which rolls an unapplied record forward first.
 *
 * One refill per profile runs at a time; commits that arrive meanwhile are coalesced into one
 * more refill of the newest of them, so a burst of writes costs a couple of refills. A refill
 * that fails or is skipped only costs the pre-filled entry: the next reader fills under a lease.
 */
import { sameGridState } from '../domain/grid-version.js';
import { headAfter, overridesOf, type CommittedState } from '../domain/committed-state.js';
import type { GridSource } from '../domain/grid-source.js';
import { FIRST_ENTRIES, firstOrder, type createOrderReader } from './order-reader.js';
import type { RedisGuard } from './redis.js';

export interface WriteRefillDeps {
  readonly guard: RedisGuard;
  readonly source: GridSource;
  readonly reader: Pick<ReturnType<typeof createOrderReader>, 'readOrder' | 'storeOrder'>;
}

export function createWriteRefill(deps: WriteRefillDeps) {
  const { guard, source, reader } = deps;
  /** Per profile: the refill running, and the newest commit waiting for it. */
  const running = new Map<bigint, Promise<void>>();
  const waiting = new Map<bigint, CommittedState>();

  async function refillOnce(e: CommittedState): Promise<void> {
    if (guard.health() !== 'ok') return;
    const { profileId } = e;
    if (e.mutation.effects?.length) {
      const head = await source.readHead(profileId, 'quorum');
      const { order, stable } = await reader.readOrder(profileId, head);
      await reader.storeOrder(profileId, order, stable);
      return;
    }
    const head = headAfter(e);
    const rows = overridesOf(e);
    const entries = await source.entries(profileId, rows, {
      limit: FIRST_ENTRIES + 1,
      exclude: head.pins,
    });
    const again = await source.readHead(profileId, 'quorum');
    await reader.storeOrder(profileId, firstOrder(head, entries), sameGridState(again, head));
  }

  function run(profileId: bigint, e: CommittedState): Promise<void> {
    const p = (async () => {
      let next: CommittedState | undefined = e;
      while (next) {
        waiting.delete(profileId);
        await refillOnce(next).catch(() => undefined);
        next = waiting.get(profileId);
      }
    })().finally(() => running.delete(profileId));
    running.set(profileId, p);
    return p;
  }

  /** Starts (or queues behind the running one) a refill of `e`'s state; never rejects. */
  function schedule(e: CommittedState): void {
    if (running.has(e.profileId)) {
      const queued = waiting.get(e.profileId);
      if (!queued || queued.version < e.version || queued.generation !== e.generation) {
        waiting.set(e.profileId, e);
      }
      return;
    }
    void run(e.profileId, e);
  }

  /** Resolves when every refill started so far has finished (tests, shutdown). */
  async function settled(): Promise<void> {
    while (running.size > 0) await Promise.all([...running.values()]);
  }

  return { schedule, settled };
}
