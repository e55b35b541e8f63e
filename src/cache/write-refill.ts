/**
 * The pre-fill of a committed state's order entry, off the response path. The writer's commit
 * event holds the snapshot its compare-and-set was conditioned on and the mutation it wrote, so
 * the new head and override list are known without reading them back (domain/override-list.ts);
 * only the time-ordered rows are streamed, then the version is read again (the rule of
 * service/read/settled-read.ts `readSettled`: rows filed under a version that moved meanwhile are not
 * cached).
 *
 * Writes that change membership (their effects touch `grid_posts` and the side tables) refill the
 * old way, from a fresh head, which rolls an unapplied record forward first.
 *
 * Debounced per profile (CACHE_REFILL_DEBOUNCE_MS after the last commit, at most
 * CACHE_REFILL_MAX_DELAY_MS after the first): a burst of moves, an editor session or a hot
 * profile costs one refill of the newest state, not one per commit (a refill is a chronological
 * read, a head read and a SET: on this machine about as much Node CPU as the move itself). One
 * refill per profile runs at a time. A refill that fails, is skipped or has not run yet only
 * costs the pre-filled entry: the next reader fills under a lease.
 */
import { compareGridVersions, sameGridState } from '../domain/grid-version.js';
import { headAfter, overridesOf, type CommittedState } from '../domain/committed-state.js';
import type { SettledSource } from '../domain/grid-source.js';
import { FIRST_ENTRIES, firstOrder, type createOrderReader } from './order-reader.js';
import type { RedisGuard } from './redis.js';

export interface WriteRefillDeps {
  readonly guard: RedisGuard;
  readonly source: SettledSource;
  readonly reader: Pick<ReturnType<typeof createOrderReader>, 'readOrder' | 'storeOrder'>;
  /** Wait this long after a profile's last commit before refilling (0 = at once)… */
  readonly debounceMs?: number;
  /** …but no longer than this after the first commit the refill waits for. */
  readonly maxDelayMs?: number;
  readonly now?: () => number;
}

interface Waiting {
  event: CommittedState;
  readonly firstAt: number;
  lastAt: number;
}

/** Generation first: a grid moved to a new generation counts as newer whatever its versions. */
const newer = (a: CommittedState, b: CommittedState) => (compareGridVersions(b, a) > 0 ? b : a);

export function createWriteRefill(deps: WriteRefillDeps) {
  const { guard, source, reader } = deps;
  const debounceMs = deps.debounceMs ?? 0;
  const maxDelayMs = Math.max(debounceMs, deps.maxDelayMs ?? debounceMs);
  const now = deps.now ?? Date.now;
  /** Per profile: the refill loop running, and the newest commit it has still to refill. */
  const running = new Map<bigint, Promise<void>>();
  const waiting = new Map<bigint, Waiting>();

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
    const query = { limit: FIRST_ENTRIES + 1, exclude: head.pins };
    const entries = await source.entries(profileId, rows, query);
    const again = await source.readHead(profileId, 'quorum');
    await reader.storeOrder(profileId, firstOrder(head, entries), sameGridState(again, head));
  }

  /** How long the waiting commit of a profile should still wait (a burst coalesces into one). */
  const quietIn = (w: Waiting) => Math.min(w.lastAt + debounceMs, w.firstAt + maxDelayMs) - now();

  function run(profileId: bigint): Promise<void> {
    const p = (async () => {
      for (let w = waiting.get(profileId); w; w = waiting.get(profileId)) {
        const wait = quietIn(w);
        if (wait > 0) {
          await new Promise((r) => setTimeout(r, wait).unref());
          continue;
        }
        waiting.delete(profileId);
        await refillOnce(w.event).catch(() => undefined);
      }
    })().finally(() => running.delete(profileId));
    running.set(profileId, p);
    return p;
  }

  /** Refills `e`'s state once the profile's commits pause (debounced); never rejects. */
  function schedule(e: CommittedState): void {
    const t = now();
    const w = waiting.get(e.profileId);
    if (w) {
      w.event = newer(w.event, e);
      w.lastAt = t;
    } else {
      waiting.set(e.profileId, { event: e, firstAt: t, lastAt: t });
    }
    if (!running.has(e.profileId)) void run(e.profileId);
  }

  /** Resolves when every refill started so far has finished (tests, shutdown). */
  async function settled(): Promise<void> {
    while (running.size > 0) await Promise.all([...running.values()]);
  }

  return { schedule, settled };
}
