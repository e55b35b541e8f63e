/**
 * The cache's side of a grid write (GridWriter's onCommitted hook): invalidate the summary, the
 * lease and the previous summary in one script, and pre-fill the new state's order entry off the
 * response path from what the commit wrote (write-refill.ts). `afterGridWrite` is the older,
 * awaited form that reads the new state back first (kept for callers that hold no commit event). An invalidation Redis did not confirm is remembered before the write is acknowledged
 * (pending-invalidations.ts) and applied before this process reads Redis again.
 */
import type { SettledSource } from '../domain/grid-source.js';
import { cacheKeys } from './keys.js';
import type { createOrderReader } from './order-reader.js';
import type { PendingInvalidations } from './pending-invalidations.js';
import type { RedisGuard } from './redis.js';
import { withCacheCommands } from './scripts.js';
import type { CommittedState } from '../domain/committed-state.js';
import { createWriteRefill } from './write-refill.js';

export interface WriteSideDeps {
  readonly guard: RedisGuard;
  readonly source: SettledSource;
  readonly summaryTtlS: number;
  readonly reader: Pick<
    ReturnType<typeof createOrderReader>,
    'readOrder' | 'storeOrder' | 'forgetInFlight'
  >;
  readonly pending: PendingInvalidations;
  /** Tells the guard a repair is owed (keeps this process off Redis until it has run). */
  readonly owe: () => void;
  readonly refillDebounceMs: number;
  readonly refillMaxDelayMs: number;
}

export function createWriteSide(deps: WriteSideDeps) {
  const { guard, source, reader, pending } = deps;

  async function invalidate(profileId: bigint): Promise<void> {
    const done = await guard.run((c) =>
      withCacheCommands(c).regridInvalidate(
        cacheKeys.summary(profileId),
        cacheKeys.lease(profileId),
        cacheKeys.previous(profileId),
        deps.summaryTtlS * 1000,
      ),
    );
    // Not confirmed: it may or may not run later. Remember it before the write is acknowledged.
    if (done === undefined) {
      pending.add(profileId);
      deps.owe();
    }
  }

  async function afterGridWrite(profileId: bigint): Promise<void> {
    // Store the new state's order first (read like a fill), so readers that learn the new
    // version find it; then delete the summary and the lease. Deletes commute, so writers on
    // different servers may finish in any order. The grid write has committed already: nothing
    // here may fail it, so a Cassandra error only costs the pre-filled entry.
    if (guard.health() === 'ok') {
      try {
        const head = await source.readHead(profileId, 'quorum');
        const { order, stable } = await reader.readOrder(profileId, head);
        await reader.storeOrder(profileId, order, stable);
      } catch {
        // The next reader fills under a lease instead.
      }
    }
    await invalidate(profileId);
    // A direct read that started before this commit must not answer readers that start after it.
    reader.forgetInFlight(profileId);
  }

  const refill = createWriteRefill({
    guard,
    source,
    reader,
    debounceMs: deps.refillDebounceMs,
    maxDelayMs: deps.refillMaxDelayMs,
  });

  /**
   * The response waits only for the invalidation (one script): a reader without min_version
   * then no longer gets the old summary, and one with min_version reads past it anyway.
   */
  async function afterCommit(e: CommittedState): Promise<void> {
    await invalidate(e.profileId);
    reader.forgetInFlight(e.profileId);
    refill.schedule(e);
  }

  return { invalidate, afterGridWrite, afterCommit, refillsSettled: refill.settled };
}
