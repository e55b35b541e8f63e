/**
 * The write line: the one path by which anything changes a grid (moves, new posts, deletes, pins,
 * archive, reset, batch order, collaborators, takedown, undo). An operation calls
 * `writeGrid(profileId, planner)`; the line answers with the outcome.
 *
 * Glossary:
 *   - write: one `writeGrid` call: a planner (what to change, decided from a snapshot) and options;
 *   - queue: this process's writes to one grid, oldest first, waiting for their turn;
 *   - snapshot: the grid's override partition (head and override rows) at one version;
 *   - batch: ONE conditional batch `IF version = v` on the override partition carrying one or
 *     more writes and setting the version to v + k.
 *
 * The protocol, for one grid:
 *   1. A write joins the grid's queue. A write that waits longer than WRITE_QUEUE_MAX_WAIT_MS
 *      answers 503 `contention` with Retry-After without touching Cassandra.
 *   2. When the grid's turn comes (the next turn of the event loop, shared by every grid so their
 *      batches leave in one socket write), the writes waiting are taken, up to the batch bounds.
 *   3. The snapshot is read from Cassandra.
 *   4. Each write's planner runs on the snapshot with the writes before it applied, and gets the
 *      version it commits (v + 1, v + 2…) and a read port for `grid_posts` shared by the batch's
 *      writes (PlanContext.rows). A refusal fails that write alone; a skip commits nothing.
 *   5. The writes' mutations go out merged in one batch (commit.ts, batch.ts). Applied: each write
 *      is answered with its own version, idempotency entry and undo record; the commit hooks
 *      run (cache refill), their failures logged, never surfaced.
 *      Lost (another process committed) or timed out (outcome unknown): re-read and re-plan with
 *      jittered backoff, up to CAS_MAX_ATTEMPTS, then 503 `contention`, or `write_outcome_unknown`
 *      if a batch carrying the write timed out. Moves are anchor-based, so re-planning "put P
 *      after A" on top of itself is harmless.
 *   6. Writes that must commit alone (deletions, membership changes) or would exceed the bounds
 *      are put back at the front of the queue for the next turn.
 *
 * Membership (domain/membership.ts): a write that changes which posts the grid holds returns
 * side-table `effects`; they are recorded in its batch and applied right after it; a snapshot
 * whose record is not marked applied is rolled forward before planning.
 *
 * Seams: `WriteOptions.interceptor` sees every snapshot (may throw to stop: an idempotency replay)
 * and may add static cells to the batch (the idempotency request ring); `hooks.onCommitted` and
 * `afterEachCommit` run after each applied batch; `publishWith` hands each turn to the change
 * stream (a mark before the batch, the publish after it: service/changes/publication.ts).
 */
import { DomainError } from '../../domain/errors.js';
import type { Effects } from '../../domain/membership.js';
import type { GridStore } from '../../store/grid-store.js';
import type { MembershipStore } from '../../store/membership-store.js';
import { commitQueued } from './commit.js';
import { countRehome, homeGate } from './home-region.js';
import { LastCommitted } from './last-committed.js';
import type { CommitEvent, GridPlanner, Publication, QueuedWrite, WriteOptions } from './types.js';
import { spanned, traceQueued, traceTurn } from './write-trace.js';
import type { WriteOutcome, WriterHooks, WriterSettings } from './types.js';

export type * from './types.js';
export { writerSettingsOf } from './types.js';

export class GridWriter {
  private readonly queue: WriteQueue<QueuedWrite> | undefined;
  private readonly records: LastCommitted;
  /** The service's own post-commit steps (the cache), after the caller's `hooks.onCommitted`. */
  private readonly ownHooks: Array<(event: CommitEvent) => Promise<void> | void> = [];
  /** The change stream (service/changes/publication.ts); absent = not published. */
  private publication: Publication | undefined;

  constructor(
    private readonly store: GridStore,
    private readonly membership: MembershipStore,
    private readonly settings: WriterSettings,
    readonly hooks: WriterHooks = {},
  ) {
    this.records = new LastCommitted();
    const { queueMaxWaitMs: maxWaitMs, retryAfterS, batch } = settings;
    this.queue =
      maxWaitMs > 0
        ? new WriteQueue(
            { maxWaitMs, retryAfterS, maxTake: batch.maxWrites },
            (profileId, writes) => this.turn(profileId, writes),
          )
        : undefined;
    if (settings.region) this.ownHooks.push(countClaims);
  }

  /** One write of `profileId` (see the header). */
  writeGrid<R>(
    profileId: bigint,
    planner: GridPlanner<R>,
    options: WriteOptions = {},
  ): Promise<WriteOutcome<R>> {
    return new Promise<WriteOutcome<R>>((resolve, reject) => {
      const { region } = this.settings;
      const gated = region && !options.anyRegion ? homeGate(planner, region) : planner;
      const write: QueuedWrite = {
        planner: gated as GridPlanner<unknown>,
        options,
        scope: options.scope,
        outcomeUnknown: false,
        resolve: (o) => resolve(o as WriteOutcome<R>),
        reject,
      };
      if (write.scope?.trace) traceQueued(write);
      if (this.queue) this.queue.push(profileId, write);
      else void this.turn(profileId, [write]); // no queue: every write races alone
    });
  }

  /** Writes of this process waiting for the grid's next turn (tests, metrics). */
  queued(profileId: bigint): number {
    return this.queue?.waiting(profileId) ?? 0;
  }

  /** Publishes every commit's versions to the change stream (set once, before any write). */
  publishWith(publication: Publication): void {
    this.publication = publication;
  }

  /** Registers a step run after every commit (failures are logged, never surfaced). */
  afterEachCommit(hook: (event: CommitEvent) => Promise<void> | void): void {
    this.ownHooks.push(hook);
  }

  private async turn(profileId: bigint, writes: QueuedWrite[]): Promise<QueuedWrite[]> {
    const { store, membership, settings, records } = this;
    const pub = this.publication?.open(profileId);
    const traced = writes.some((w) => w.scope?.trace) ? traceTurn(profileId, writes) : undefined;
    const committed = async (event: CommitEvent, effects: Effects | undefined) => {
      pub?.applied();
      if (this.hooks.afterCas) await this.hooks.afterCas(event);
      if (effects) await this.applyOwn(profileId, effects);
      if (pub && traced) {
        const version = event.version.toString();
        await spanned('regrid.changes.publish', traced.context, { 'regrid.version': version }, () =>
          Promise.resolve(pub.publish(event)),
        );
      } else pub?.publish(event);
      for (const hook of [...(this.hooks.onCommitted ?? []), ...this.ownHooks]) {
        try {
          const done = hook(event); // a hook that returns no promise costs no turn of the queue
          if (done) await done;
        } catch (err) {
          this.hooks.log?.(`onCommitted hook failed for profile ${event.profileId}`, err);
        }
      }
    };
    const deps = { store, membership, settings, records, committed };
    const beforeBatch = pub ? { beforeBatch: () => pub.beforeBatch() } : {};
    const trace = traced ? { trace: traced.context } : {};
    const back = await commitQueued({ ...deps, ...beforeBatch, ...trace }, profileId, writes);
    traced?.end(back);
    pub?.done();
    return back;
  }

  /**
   * The commit stands whatever happens here: a failure leaves the record unapplied, and the
   * next reader or writer of the grid rolls it forward before looking at the side tables.
   */
  private async applyOwn(profileId: bigint, effects: Effects): Promise<void> {
    try {
      await this.membership.apply(profileId, effects);
    } catch (err) {
      this.hooks.log?.(
        `membership effects of ${profileId}@${effects.version} left for roll-forward`,
        err,
      );
    }
  }
}

/**
 * Per grid, this process's writes waiting for their turn (steps 1, 2 and 6 of the header). On a
 * hot grid every racer would re-read and re-plan after each lost CAS; queued, the only losses
 * left are to other processes. `turn` answers every write it is given except those it returns
 * (put back: to the front, ahead of anything queued meanwhile). With `maxTake` 1 writes simply
 * take turns. Planners must not write the same grid from inside (they would wait on themselves).
 */
export class WriteQueue<W extends { reject(err: unknown): void }> {
  private readonly lines = new Map<bigint, Array<{ item: W; timer?: NodeJS.Timeout }>>();
  /** Set while a turn of the event loop is awaited (nextTurn). */
  private shared: Promise<void> | undefined;

  constructor(
    private readonly settings: { maxWaitMs: number; retryAfterS: number; maxTake: number },
    private readonly turn: (profileId: bigint, items: W[]) => Promise<W[]>,
  ) {}

  /** How many grids have writes running or waiting (tests, metrics). */
  get busyProfiles(): number {
    return this.lines.size;
  }

  /** Writes waiting for a grid's next turn (not those of the turn running). */
  waiting(profileId: bigint): number {
    return this.lines.get(profileId)?.length ?? 0;
  }

  push(profileId: bigint, item: W): void {
    const line = this.lines.get(profileId);
    if (!line) {
      const fresh = [{ item }];
      this.lines.set(profileId, fresh);
      void this.drain(profileId, fresh);
      return;
    }
    const entry: { item: W; timer?: NodeJS.Timeout } = { item };
    entry.timer = setTimeout(() => {
      const at = line.indexOf(entry);
      if (at < 0) return; // taken meanwhile
      line.splice(at, 1);
      const { maxWaitMs, retryAfterS } = this.settings;
      const details = { retry_after_s: retryAfterS, queued_ms: maxWaitMs };
      const msg = 'too many writes queued for this grid; retry shortly';
      item.reject(new DomainError('contention', msg, details));
    }, this.settings.maxWaitMs);
    line.push(entry);
  }

  /** The next turn of the event loop, one for every grid waiting for it (see the header). */
  private nextTurn(): Promise<void> {
    return (this.shared ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        this.shared = undefined;
        resolve();
      }),
    ));
  }

  private async drain(profileId: bigint, line: Array<{ item: W; timer?: NodeJS.Timeout }>) {
    try {
      await this.nextTurn(); // a fresh grid waits for the shared turn too (see the header)
      while (line.length > 0) {
        const taken = line.splice(0, this.settings.maxTake);
        for (const e of taken) clearTimeout(e.timer);
        const items = taken.map((e) => e.item);
        let back: W[];
        try {
          back = await this.turn(profileId, items);
        } catch (err) {
          for (const i of items) i.reject(err); // a broken turn: never leave a write hanging
          back = [];
        }
        line.unshift(...back.map((item) => ({ item })));
        // The writers this turn answered queue their next writes right away: same next batch.
        await this.nextTurn();
      }
    } finally {
      this.lines.delete(profileId);
    }
  }
}

/** A batch that set the home of a grid that had none: a claim (home-region.ts). */
const countClaims = (event: CommitEvent): void => {
  const set = event.mutation.statics?.homeRegion;
  if (set !== undefined && event.before.head.homeRegion === undefined) countRehome('claimed');
};
