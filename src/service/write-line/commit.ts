/**
 * One grid's turn of the write line (write-line.ts): read the snapshot, plan the writes taken
 * from its queue one after another on it, and commit those that write in ONE conditional batch
 * `IF version = v … SET version = v + k`; then answer each write, or re-read and re-plan after a
 * lost compare-and-set.
 *
 * Write i is planned on the snapshot with the writes before it applied (batch.ts
 * `snapshotAfter`) at version v + i, and commits v + i + 1 if the batch applies; its interceptor
 * (the idempotency ring) sees that state too. A refusal, or a skip with nothing written before
 * it, is answered now; a write, and whatever was planned behind one, with the batch; a write that
 * must commit alone (batch.ts `commitsAlone`) or over the bounds is put back (write-line.ts).
 *
 * Statements: the line's own reads are in no request's statement scope (one request's deadline
 * must not fail the others' snapshot; when traced, a scope carrying only the turn's context);
 * a planner whose request (WriteOptions.scope) its deadline already answered "not applied" is not
 * run; the batch is sent in a GroupScope (store/group-scope.ts; a batch for one untraced request
 * in that request's own scope): a write of every request it carries, and refused if a request's
 * deadline already answered "not applied".
 *
 * One name, one state: a snapshot whose head is behind a state this service already acknowledged
 * or published (the newest state this process committed, LastCommitted `newest`; the change
 * stream's watermark, read with the round's mark) lost those versions (a node that acknowledged
 * them before its commit log synced them, an asynchronous failover). Its versions would be issued
 * again for other states, so the batch moves the grid to a new generation instead: the
 * `generation` static is written in the same conditional batch, which applies only if the head
 * is still the one found behind (`versionFloor`, `planBatch`'s `generation`).
 */
import { DomainError } from '../../domain/errors.js';
import { compareGridVersions, type GridVersion } from '../../domain/grid-version.js';
import type { Effects } from '../../domain/membership.js';
import {
  NotSent,
  REFUSED_AFTER_DEADLINE,
  storeDidNotAnswer,
  unavailable,
} from '../../store/cql-errors.js';
import type { GridMutation } from '../../store/grid-mutation.js';
import type { CasResult, GridStore, OverridesSnapshot } from '../../store/grid-store.js';
import { GroupScope } from '../../store/group-scope.js';
import type { MembershipStore } from '../../store/membership-store.js';
import { changeRound } from '../changes/planned-change.js';
import {
  BatchLimits,
  headAfter,
  membershipStatics,
  mergeMutations,
  snapshotAfter,
} from './batch.js';
import { GridPostsMemo, rowsReadThrough } from './known-rows.js';
import type { LastCommitted } from './last-committed.js';
import * as out from './outcomes.js';
import type { BatchPlan, CommitEvent, GridRowsRead, PlannedWrite } from './types.js';
import type { QueuedWrite, WriterSettings } from './types.js';
import { casOutcome, spanned, turnScope } from './write-trace.js';
import type { Context } from '@opentelemetry/api';

export interface CommitDeps {
  readonly store: GridStore;
  readonly membership: MembershipStore;
  readonly settings: WriterSettings;
  readonly records: LastCommitted;
  /** After the batch applied: the crash seam, the membership effects, the commit hooks. */
  readonly committed: (event: CommitEvent, effects: Effects | undefined) => Promise<void>;
  /**
   * The change stream's mark (changes/publication.ts), awaited before each batch; resolves the
   * newest state the stream has published for the grid when the mark's round trip read it.
   */
  readonly beforeBatch?: () => Promise<GridVersion | undefined>;
  readonly trace?: Context; // the turn's span, when tracing is on (write-trace.ts)
}

/**
 * Commits `writes` (one grid's, oldest first) and answers each of them, except those put back
 * (returned: they go to the front of the queue). Never rejects.
 */
export async function commitQueued(
  deps: CommitDeps,
  profileId: bigint,
  writes: readonly QueuedWrite[],
): Promise<QueuedWrite[]> {
  const turn = { waiting: [...writes], back: [] as QueuedWrite[] };
  try {
    await attempts(deps, profileId, turn);
  } catch (err) {
    // A failed read or batch, or the crash seam: whatever still waits fails with it.
    for (const w of turn.waiting) w.reject(out.asSeenBy(w, err));
  }
  return turn.back;
}

type Turn = { waiting: QueuedWrite[]; readonly back: QueuedWrite[] };
const sealed = (w: QueuedWrite) => (w.scope?.sealed ? out.notSent() : undefined);

async function attempts(deps: CommitDeps, profileId: bigint, turn: Turn): Promise<void> {
  const { store, records, settings } = deps;
  let published: GridVersion | undefined; // the stream's watermark, once a mark read it
  const { trace } = deps;
  const own = trace ? { scope: turnScope(trace) } : {}; // the turn's own reads
  // An untraced turn runs its steps bare, never through the span wrapper.
  const step: typeof spanned = trace ? spanned : (_n, _p, _a, f) => f(undefined);
  for (let attempt = 1; turn.waiting.length > 0 && attempt <= settings.maxAttempts;) {
    // The request ring only for a turn with an interceptor (an Idempotency-Key): the writes
    // without one neither read nor write it, so the batch leaves the ring as it is.
    const keyed = turn.waiting.some((w) => w.options.interceptor !== undefined);
    const snapshot = await store.readOverrides(profileId, own, keyed ? 'keyed' : 'writer');
    await deps.membership.rollForward(profileId, snapshot.head);
    const rows = rowsReadThrough(new GridPostsMemo(), profileId, store);
    const floor = versionFloor(snapshot.head, [records.newest(profileId), published]);
    const opts = floor === undefined ? settings : { ...settings, generation: floor };
    const plan = await step('regrid.write_line.plan', trace, { 'regrid.attempt': attempt }, () =>
      planBatch(store, profileId, snapshot, turn.waiting, attempt, opts, rows),
    );
    // The records planners wrote must exist before the batch (and before a put-back write re-plans).
    const failed = await plan.failedWork();
    turn.back.push(...plan.back);
    turn.waiting = plan.batched.map((p) => p.write);
    for (const p of plan.now) out.answer(p, attempt, false);
    if (plan.writes === 0) return; // nothing to commit
    if (out.drop(turn, (w) => failed.get(w))) continue; // not an attempt: nothing was sent
    // Requests their deadline answered "not applied" meanwhile must stay so: re-plan without.
    if (out.drop(turn, sealed)) continue;
    const seen = await deps.beforeBatch?.();
    if (floor === undefined && seen && compareGridVersions(seen, snapshot.head) > 0) {
      // Published past this head: versions were lost (or a commit since the read: the head read
      // again shows it). Planned again on a fresh read, no attempt spent: nothing was sent.
      published = seen;
      continue;
    }
    const attrs = { 'regrid.cas.attempt': attempt, 'regrid.cas.writes': plan.writes };
    const cas = await step(
      'regrid.cas',
      trace,
      attrs,
      (ctx) => send(store, profileId, snapshot, plan, turn.waiting, ctx),
      casOutcome,
    );
    if (cas === 'refused' && out.drop(turn, sealed)) continue;
    if (cas === 'refused') continue;
    if (cas.applied) {
      const event: CommitEvent = {
        profileId,
        version: snapshot.head.version + BigInt(plan.writes),
        generation: plan.after.head.generation,
        mutation: plan.mutation,
        before: snapshot,
        ...(trace ? { trace } : {}),
      };
      out.recordBatch(plan.writes);
      await deps.committed(event, plan.effects);
      records.committed(profileId, plan.after.head);
      turn.waiting = [];
      for (const p of plan.batched) out.answer(p, attempt, true);
      return;
    }
    out.recordCasMiss(cas.reason, plan.batched[0]!.write);
    if (cas.reason === 'timeout') {
      for (const p of plan.batched) if (p.kind === 'write') p.write.outcomeUnknown = true;
    }
    if (attempt < settings.maxAttempts) await out.backoff(settings, attempt);
    attempt += 1;
  }
  for (const w of turn.waiting.splice(0)) out.giveUp(w, settings);
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
 * Plans `writes` one after another on `read` (see the header). With `settings.generation` the
 * writes commit in that generation: planned on `read` renamed to it, the first write's batch
 * setting the static; a skip before any write answers `read`'s own name.
 */
export async function planBatch(
  store: Pick<GridStore, 'countGridRows'>,
  profileId: bigint,
  read: OverridesSnapshot,
  writes: readonly QueuedWrite[],
  attempt: number,
  settings: Pick<WriterSettings, 'batch' | 'changeSlots'> & { readonly generation?: bigint },
  rows: GridRowsRead,
): Promise<BatchPlan> {
  const now: PlannedWrite[] = [];
  const batched: PlannedWrite[] = [];
  const mutations: GridMutation[] = [];
  const limits = new BatchLimits(settings.batch);
  let back: QueuedWrite[] = [];
  let effects: Effects | undefined;
  const work: Array<Promise<[QueuedWrite, unknown] | undefined>> = [];
  const addChange = changeRound(settings.changeSlots);
  const base = { profileId, attempt, rows };
  const bump = settings.generation;
  let s = bump === undefined ? read : { ...read, head: { ...read.head, generation: bump } };
  // The batch's last write, not yet applied to `s`: its override list is only worked out when
  // another write is planned on it (a lone write, most batches, needs only the head it leaves).
  let last: { readonly mutation: GridMutation; readonly version: bigint } | undefined;
  for (let i = 0; i < writes.length; i++) {
    const write = writes[i]!;
    if (last) s = snapshotAfter(s, last.mutation, last.version);
    last = undefined;
    const nextVersion = s.head.version + 1n;
    const into = limits.writes === 0 ? now : batched;
    const snapshot = s;
    let planned;
    try {
      planned = await planOne(write, snapshot, nextVersion, base, work);
    } catch (error) {
      // The store did not answer a planner's read: every later write would wait for its own
      // reads and then the batch, one timeout after another. The turn fails at once instead,
      // each of its writes with this error (commitQueued), as a write alone would.
      if (storeDidNotAnswer(error)) throw error;
      into.push({ kind: 'refused', write, error });
      continue;
    }
    const { decision } = planned;
    const { generation } = snapshot.head;
    if (!planned.mutation) {
      const { result } = decision;
      // Nothing committed yet: the state it saw is still the one read, under its own name.
      const named = limits.writes === 0 ? read.head.generation : generation;
      into.push({ kind: 'skip', write, result, version: s.head.version, generation: named });
      continue;
    }
    let mutation = planned.mutation;
    if (bump !== undefined && limits.writes === 0) {
      mutation = { ...mutation, statics: { ...mutation.statics, generation: bump } };
    }
    if (!limits.fits(mutation)) {
      back = writes.slice(i);
      break;
    }
    if ((mutation.effects?.length ?? 0) > 0) {
      // A membership write (first of its batch, so alone): its record and post count.
      const m = await membershipStatics(store, profileId, snapshot, mutation, nextVersion);
      effects = m.effects;
      mutation = { ...mutation, statics: { ...mutation.statics, ...m.statics } };
    }
    // Its change record (with the batch's earlier ones) commits in the batch (planned-change.ts).
    mutation = addChange(mutation, decision, nextVersion, generation);
    limits.add(mutation);
    mutations.push(mutation);
    const { result } = decision;
    batched.push({ kind: 'write', write, result, version: nextVersion, generation, mutation });
    last = { mutation, version: nextVersion };
    if (limits.full) {
      // A write that commits alone (or the last the bounds allow): the batch ends after it.
      back = writes.slice(i + 1);
      break;
    }
  }
  return {
    now,
    batched,
    back,
    mutation: mutations.length > 0 ? mergeMutations(mutations) : {},
    writes: limits.writes,
    after: { head: last ? headAfter(s.head, last.mutation, last.version) : s.head },
    effects,
    failedWork: async () =>
      work.length === 0 ? NONE : new Map((await Promise.all(work)).filter((f) => f !== undefined)),
  };
}

/** One write's planner (with its interceptor) on `snapshot`. */
async function planOne(
  write: QueuedWrite,
  snapshot: OverridesSnapshot,
  nextVersion: bigint,
  base: { profileId: bigint; attempt: number; rows: GridRowsRead },
  work: Array<Promise<[QueuedWrite, unknown] | undefined>>,
) {
  // Its request's deadline answered "not applied": refused as its first statement would be.
  if (write.scope?.sealed) throw unavailable(new NotSent(REFUSED_AFTER_DEADLINE));
  const { interceptor } = write.options;
  await interceptor?.onSnapshot?.(snapshot);
  const beforeCommit = (w: Promise<unknown>) =>
    void work.push(w.then(noFailure, (e: unknown) => [write, e]));
  const { outcomeUnknown } = write;
  const ctx = { ...base, snapshot, nextVersion, beforeCommit, outcomeUnknown };
  const decision = await write.planner(ctx);
  if (decision.kind === 'skip') return { decision, mutation: undefined };
  const extra = interceptor?.extraStatics?.(snapshot, nextVersion, decision.result);
  const statics = { ...decision.mutation.statics, ...extra };
  return { decision, mutation: { ...decision.mutation, statics } as GridMutation };
}

const noFailure = (): undefined => undefined;
const NONE: ReadonlyMap<QueuedWrite, unknown> = new Map();

/**
 * The batch, in a scope standing for every request it writes for (store/group-scope.ts). A batch
 * for one request is sent in that request's own scope: a group of one is that scope.
 */
async function send(
  store: GridStore,
  profileId: bigint,
  snapshot: OverridesSnapshot,
  plan: BatchPlan,
  writes: readonly QueuedWrite[],
  trace?: Context,
): Promise<CasResult | 'refused'> {
  const scopes = writes.flatMap((w) => (w.scope ? [w.scope] : []));
  const { version } = snapshot.head;
  // A traced batch gets a scope of its own: its statements' spans are the CAS attempt's children.
  const group = scopes.length === 1 && !trace ? scopes[0]! : new GroupScope(scopes);
  if (trace) group.trace = trace;
  try {
    return await store.casGrid(
      profileId,
      version,
      version + BigInt(plan.writes),
      plan.mutation,
      group,
    );
  } catch (err) {
    // Refused before it was sent because a request's deadline sealed it while it waited.
    if (err instanceof DomainError && err.code === 'unavailable' && scopes.some((s) => s.sealed)) {
      return 'refused';
    }
    throw err;
  }
}
