/**
 * One write's turn of the write line (write-line.ts): take the snapshot (from the grid's
 * LastCommitted record, or read), plan the write on it, and commit it in ONE conditional batch
 * `IF version = v … SET version = v + 1`; then answer it, or re-plan after a lost compare-and-set.
 *
 * Statements: the line's own reads run outside any request's statement scope (a snapshot read is
 * no write of the request); the planner runs in its request's context; the batch runs in the
 * request's scope, so it counts as a write the request sent, and is refused if the request's
 * deadline already answered "not applied".
 *
 * One name, one state: a snapshot whose head is behind a state this service already acknowledged
 * or published (the newest state this process committed, LastCommitted `newest`; the change
 * stream's watermark, read with the round's mark) lost those versions (a node that acknowledged
 * them before its commit log synced them, an asynchronous failover). Its versions would be issued
 * again for other states, so the batch moves the grid to a new generation instead: the
 * `generation` static is written in the same conditional batch, which applies only if the head
 * is still the one found behind (`versionFloor`, `planWrite`'s `generation`).
 */
import { DomainError } from '../../domain/errors.js';
import { compareGridVersions, type GridVersion } from '../../domain/grid-version.js';
import type { Effects } from '../../domain/membership.js';
import { statementScope, type StatementScope } from '../../store/cql-budget.js';
import { GroupScope } from '../../store/group-scope.js';
import { storeDidNotAnswer } from '../../store/cql-errors.js';
import type { GridMutation } from '../../store/grid-mutation.js';
import type { CasResult, GridStore, OverridesSnapshot } from '../../store/grid-store.js';
import type { MembershipStore } from '../../store/membership-store.js';
import { withChange } from '../changes/planned-change.js';
import { membershipStatics, snapshotAfter } from './batch.js';
import { rowsReadThrough } from './known-rows.js';
import type { LastCommitted } from './last-committed.js';
import * as out from './outcomes.js';
import type { CommitEvent, GridRowsRead, WritePlan } from './types.js';
import type { QueuedWrite, WriterSettings } from './types.js';
import { casOutcome, spanned, turnScope } from './write-trace.js';
import type { Context } from '@opentelemetry/api';

export interface CommitDeps {
  readonly store: GridStore;
  readonly membership: MembershipStore;
  readonly settings: WriterSettings;
  readonly records: LastCommitted;
  /** Whether a queue runs the grid's turns (then its record may be trusted, last-committed.ts). */
  readonly queued: boolean;
  /** After the batch applied: the crash seam, the membership effects, the commit hooks. */
  readonly committed: (event: CommitEvent, effects: Effects | undefined) => Promise<void>;
  /**
   * The change stream's mark (changes/publication.ts), awaited before each batch; resolves the
   * newest state the stream has published for the grid when the mark's round trip read it.
   */
  readonly beforeBatch?: () => Promise<GridVersion | undefined>;
  readonly trace?: Context; // the turn's span, when tracing is on (write-trace.ts)
}

/** Commits `write` (one of `profileId`'s) and answers it. Never rejects. */
export async function commitWrite(
  deps: CommitDeps,
  profileId: bigint,
  write: QueuedWrite,
): Promise<void> {
  try {
    const own = () => attempts(deps, profileId, write);
    await (deps.trace ? statementScope.run(turnScope(deps.trace), own) : statementScope.exit(own));
  } catch (err) {
    // A failed read or batch, or the crash seam: the write fails with it.
    deps.records.distrust(profileId);
    write.reject(out.asSeenBy(write, err));
  }
}

async function attempts(deps: CommitDeps, profileId: bigint, write: QueuedWrite): Promise<void> {
  const { store, records, settings } = deps;
  let mayTrust = deps.queued;
  let published: GridVersion | undefined; // the stream's watermark, once a mark read it
  for (let attempt = 1; attempt <= settings.maxAttempts;) {
    const start = await records.start(profileId, store, mayTrust);
    mayTrust = false;
    const { snapshot } = start;
    if (!start.trusted) await deps.membership.rollForward(profileId, snapshot.head);
    const rows = rowsReadThrough(start.rows, profileId, store);
    const floor = versionFloor(snapshot.head, [records.newest(profileId), published]);
    const opts = floor === undefined ? settings : { ...settings, generation: floor };
    const plan = await spanned(
      'regrid.write_line.plan',
      deps.trace,
      { 'regrid.attempt': attempt },
      () => planWrite(store, profileId, snapshot, write, attempt, opts, rows),
    );
    if (plan.kind === 'refused') return write.reject(plan.error); // a refusal is no attempt
    if (plan.kind === 'skip') {
      records.distrust(profileId); // nothing to commit
      return out.answer(write, plan, attempt, false);
    }
    // The records the planner wrote must exist before the batch.
    const failed = await plan.failedWork();
    if (failed) return write.reject(failed.error); // not an attempt: nothing was sent
    // A request its deadline answered "not applied" meanwhile must stay so.
    if (write.scope?.sealed) return write.reject(out.notSent());
    const seen = await deps.beforeBatch?.();
    if (floor === undefined && seen && compareGridVersions(seen, snapshot.head) > 0) {
      // Published past this head: versions were lost (or a commit since the read: the head read
      // again shows it). Planned again on a fresh read, no attempt spent: nothing was sent.
      published = seen;
      records.distrust(profileId);
      continue;
    }
    const cas = await spanned(
      'regrid.cas',
      deps.trace,
      { 'regrid.cas.attempt': attempt },
      (trace) => send(store, profileId, snapshot, plan.mutation, write, trace),
      casOutcome,
    );
    if (cas === 'refused') return write.reject(out.notSent());
    if (cas.applied) {
      const event: CommitEvent = {
        profileId,
        version: plan.version,
        generation: plan.generation,
        mutation: plan.mutation,
        before: snapshot,
        after: plan.after.overrides,
      };
      await deps.committed(event, plan.effects);
      // A membership write changed grid_posts and the side tables: its rows are not kept.
      // A batch that set the home is not trusted across idle: a write refused as misdirected is
      // then refused on a head read, never on this process's memory (write-line/home-region.ts).
      const trust = deps.queued && plan.mutation.statics?.homeRegion === undefined;
      records.committed(profileId, plan.after, plan.effects ? undefined : start.rows, trust);
      return out.answer(write, plan, attempt, true);
    }
    records.distrust(profileId);
    await write.run(async () => out.recordCasMiss(cas.reason));
    if (cas.reason === 'timeout') write.outcomeUnknown = true;
    if (start.afterIdle && cas.reason === 'version_changed') {
      // Not contention: a record trusted across idle was out of date. Read now, no attempt spent.
      records.stale(profileId);
      continue;
    }
    if (attempt < settings.maxAttempts) await out.backoff(settings, attempt);
    attempt += 1;
  }
  out.giveUp(write, settings);
}

/**
 * The generation a batch planned on `head` must commit in, when `head` is behind any of `known`
 * (states acknowledged or published): one above every generation seen. Undefined: `head`'s own.
 */
export function versionFloor(
  head: GridVersion,
  known: ReadonlyArray<GridVersion | undefined>,
): bigint | undefined {
  let newest: GridVersion | undefined;
  for (const k of known) if (k && (!newest || compareGridVersions(k, newest) > 0)) newest = k;
  if (!newest || compareGridVersions(newest, head) <= 0) return undefined;
  return (newest.generation > head.generation ? newest.generation : head.generation) + 1n;
}

/**
 * Plans `write` on `read` (see the header). With `settings.generation` the write commits in that
 * generation: planned on `read` renamed to it, its batch setting the static; a skip answers
 * `read`'s own name.
 */
export async function planWrite(
  store: Pick<GridStore, 'countGridRows'>,
  profileId: bigint,
  read: OverridesSnapshot,
  write: QueuedWrite,
  attempt: number,
  settings: Pick<WriterSettings, 'changeSlots'> & { readonly generation?: bigint },
  rows: GridRowsRead,
): Promise<WritePlan> {
  const work: Array<Promise<{ error: unknown } | undefined>> = [];
  const bump = settings.generation;
  const snapshot =
    bump === undefined ? read : { ...read, head: { ...read.head, generation: bump } };
  const nextVersion = read.head.version + 1n;
  let planned;
  try {
    planned = await write.run(async () => {
      const { interceptor } = write.options;
      await interceptor?.onSnapshot?.(snapshot);
      const beforeCommit = (w: Promise<unknown>) =>
        void work.push(w.then(noFailure, (error: unknown) => ({ error })));
      const { outcomeUnknown } = write;
      const ctx = { profileId, attempt, rows, snapshot, nextVersion, beforeCommit, outcomeUnknown };
      const decision = await write.planner(ctx);
      if (decision.kind === 'skip') return { decision, mutation: undefined };
      const extra = interceptor?.extraStatics?.(snapshot, nextVersion, decision.result);
      const statics = { ...decision.mutation.statics, ...extra };
      return { decision, mutation: { ...decision.mutation, statics } as GridMutation };
    });
  } catch (error) {
    // The store did not answer a planner's read: the write fails with it (commitWrite).
    if (storeDidNotAnswer(error)) throw error;
    return { kind: 'refused', error };
  }
  const { decision } = planned;
  const { result } = decision;
  if (!planned.mutation) {
    // Nothing committed: the state it saw is the one read, under its own name.
    const { version, generation } = read.head;
    return { kind: 'skip', result, version, generation };
  }
  let mutation = planned.mutation;
  if (bump !== undefined) {
    mutation = { ...mutation, statics: { ...mutation.statics, generation: bump } };
  }
  let effects: Effects | undefined;
  if ((mutation.effects?.length ?? 0) > 0) {
    // A membership write: its record and post count.
    const m = await membershipStatics(store, profileId, snapshot, mutation, nextVersion);
    effects = m.effects;
    mutation = { ...mutation, statics: { ...mutation.statics, ...m.statics } };
  }
  const { generation } = snapshot.head;
  // Its change record commits in the batch (planned-change.ts).
  mutation = withChange(mutation, decision, nextVersion, generation, settings.changeSlots);
  return {
    kind: 'write',
    result,
    version: nextVersion,
    generation,
    mutation,
    after: snapshotAfter(snapshot, mutation, nextVersion),
    effects,
    failedWork: async () => (await Promise.all(work)).find((f) => f !== undefined),
  };
}

const noFailure = (): undefined => undefined;

/** The batch, in the scope of the request it writes for. */
async function send(
  store: GridStore,
  profileId: bigint,
  snapshot: OverridesSnapshot,
  mutation: GridMutation,
  write: QueuedWrite,
  trace?: Context,
): Promise<CasResult | 'refused'> {
  const { version } = snapshot.head;
  // Its statements' spans are the CAS attempt's children (until the explicit context).
  let scope: StatementScope | undefined = write.scope;
  if (trace) {
    const traced = write.scope ? new GroupScope([write.scope]) : turnScope(trace);
    traced.trace = trace;
    scope = traced;
  }
  const cas = () => store.casGrid(profileId, version, version + 1n, mutation);
  try {
    return await (scope ? statementScope.run(scope, cas) : cas());
  } catch (err) {
    // Refused before it was sent because the request's deadline sealed it while it waited.
    if (err instanceof DomainError && err.code === 'unavailable' && write.scope?.sealed) {
      return 'refused';
    }
    throw err;
  }
}
