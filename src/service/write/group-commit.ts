/**
 * A group commit, whole: read ONE snapshot (head at version v), plan the group's writes on it one
 * after another (group-round.ts) and commit the k that write in ONE conditional batch
 * `IF version = v … SET version = v + k`. Each write still gets its own version (v + i + 1), its
 * own idempotency outcome (the ring entry its interceptor added on S_i) and its own undo record.
 * A group of one is exactly the single write the writer always made.
 *
 * A lost compare-and-set (another process) or a Paxos timeout re-reads and re-plans the whole
 * group with backoff, as a single write does; a timeout marks the group's writes outcome-unknown
 * (their planners see it). After CAS_MAX_ATTEMPTS every write still waiting answers
 * `write_outcome_unknown` if a batch carrying it timed out, else `contention`.
 *
 * Statements: the runner's own reads run outside any request's statement scope (one request's
 * deadline must not fail the others' snapshot); planners run in their own request's context; the
 * batch runs in a GroupScope (store/group-scope.ts): it counts as a write of every request, and a
 * request already answered "not applied" by its deadline is dropped before the batch is sent.
 */
import { DomainError } from '../../domain/errors.js';
import { statementScope } from '../../store/cql-budget.js';
import type { GridStore, OverridesSnapshot } from '../../store/grid-store.js';
import { GridPostsMemo, gridPostsMemo } from '../../store/grid-posts-memo.js';
import { GroupScope } from '../../store/group-scope.js';
import type { MembershipStore } from '../../store/membership-store.js';
import { asSeenBy, gaveUp, notSent } from './group-errors.js';
import { planRound, type GroupMember, type Planned, type RoundPlan } from './group-round.js';
import { recordAttempts, recordCasMiss, recordCommit, recordGroup } from './write-metrics.js';
import type { CommitEvent, WriterSettings } from './write-types.js';

export interface GroupCommitDeps {
  readonly store: GridStore;
  readonly membership: MembershipStore;
  readonly settings: WriterSettings;
  /** After the batch applied: the crash seam, the membership effects, the commit hooks. */
  readonly committed: (event: CommitEvent, plan: RoundPlan) => Promise<void>;
  /** Before each batch is sent: the change stream's mark (service/changes/publication.ts). */
  readonly beforeBatch?: () => Promise<void>;
}

/**
 * Where a profile's next round may start without reading: the state the last batch that applied
 * left (its snapshot with its mutation, the state the caches are refilled from) and the memo of
 * `grid_posts` reads made since that batch's snapshot. Sound for the same reason as the memo
 * within a round (store/grid-posts-memo.ts): the next batch is conditioned on that state's
 * version, so if it applies nobody committed since, and every row read was read after the last
 * version anybody else committed. If somebody did commit, the batch loses and the round re-reads.
 */
export interface Carried {
  readonly snapshot: OverridesSnapshot;
  readonly memo: GridPostsMemo;
}

/**
 * Commits `group` (one profile's queued writes, oldest first) and settles every write of it,
 * except those handed back (cut from the group: they go back to the front of the queue).
 * Never rejects.
 */
export async function commitGroup(
  deps: GroupCommitDeps,
  profileId: bigint,
  group: readonly GroupMember[],
  carried?: Carried,
  /** `carried` was kept across an idle line (carried-states.ts): a loss means "read first". */
  idleStart = false,
): Promise<{ back: GroupMember[]; carried: Carried | undefined; stale: boolean }> {
  const round: Round = { waiting: [...group], back: [], carried: undefined, stale: false };
  try {
    await statementScope.exit(() => attempts(deps, profileId, round, carried, idleStart));
  } catch (err) {
    // A failed read or batch, or the crash seam: whatever still waits fails with it.
    for (const m of round.waiting) m.reject(asSeenBy(m, err));
  }
  return { back: round.back, carried: round.carried, stale: round.stale };
}

interface Round {
  /** Writes not settled yet (and not handed back). */
  waiting: GroupMember[];
  readonly back: GroupMember[];
  carried: Carried | undefined;
  /** The idle start's batch lost to another writer: its carried state was stale. */
  stale: boolean;
}

async function attempts(
  deps: GroupCommitDeps,
  profileId: bigint,
  round: Round,
  carried: Carried | undefined,
  idleStart: boolean,
): Promise<void> {
  const { maxAttempts } = deps.settings;
  let attempt = 1;
  let start = carried;
  let guessed = idleStart && carried !== undefined;
  const maxAge = deps.settings.carry.memoMaxAgeMs;
  const youngEnough = (memo: GridPostsMemo) => Date.now() - memo.since <= maxAge;
  while (round.waiting.length > 0 && attempt <= maxAttempts) {
    const fromGuess = guessed;
    guessed = false;
    const snapshot = start?.snapshot ?? (await deps.store.readSnapshot(profileId));
    if (!start) await deps.membership.rollForward(profileId, snapshot.head);
    // One memo of grid_posts reads per round: the later planners mostly read what the earlier
    // ones did (store/grid-posts-memo.ts). A carried one only while young: a row written into
    // grid_posts outside the compare-and-set (seeding, a repair) bumps no version.
    const memo = start && youngEnough(start.memo) ? start.memo : new GridPostsMemo();
    start = undefined;
    const plan = await planRound(
      deps.store,
      profileId,
      snapshot,
      round.waiting,
      attempt,
      deps.settings.group,
      memo,
      deps.settings.changeSlots,
    );
    // The records planners wrote must exist before the batch (and before a cut write re-plans).
    const pending = plan.failedWork();
    const failed = pending instanceof Map ? pending : await pending;
    round.back.push(...plan.cut);
    round.waiting = plan.batched.map((p) => p.member);
    for (const p of plan.decided) settle(p, attempt, false);
    if (plan.writes === 0) return; // nothing to commit (everything was decided at once)
    if (dropFailed(round, failed)) continue; // not an attempt: nothing was sent
    // Requests their deadline answered "not applied" meanwhile must stay so: re-plan without.
    if (dropSealed(round)) continue; // not an attempt: nothing was sent
    await deps.beforeBatch?.();
    const cas = await sendBatch(deps.store, profileId, snapshot, plan, round.waiting);
    if (cas === 'refused') {
      dropSealed(round);
      continue;
    }
    if (cas.applied) {
      const event: CommitEvent = {
        profileId,
        version: snapshot.head.version + BigInt(plan.writes),
        generation: snapshot.head.generation,
        mutation: plan.mutation,
        before: snapshot,
        after: plan.after.overrides,
        // The cache's pre-fill of this state reads grid_posts through the round's memo while
        // the memo is young (the same bound as a carried round's).
        withRoundReads: (read) => (youngEnough(memo) ? gridPostsMemo.run(memo, read) : read()),
      };
      recordGroup(plan.writes);
      await deps.committed(event, plan);
      // A membership write changed grid_posts and the side tables: the next round reads.
      if (!plan.effects) round.carried = { snapshot: plan.after, memo };
      round.waiting = [];
      for (const p of plan.batched) settle(p, attempt, true);
      return;
    }
    await plan.batched[0]!.member.run(async () => recordCasMiss(cas.reason));
    if (cas.reason === 'timeout') {
      for (const p of plan.batched) if (p.kind === 'write') p.member.outcomeUnknown = true;
    }
    if (fromGuess && cas.reason === 'version_changed') {
      // Not contention: a state kept across idle was out of date. Read now, no attempt spent.
      round.stale = true;
      continue;
    }
    if (attempt < maxAttempts) await sleep(backoff(deps.settings, attempt));
    attempt += 1;
  }
  const gaveUpOn = round.waiting;
  round.waiting = [];
  for (const m of gaveUpOn) {
    void m.run(async () => recordAttempts(maxAttempts));
    m.reject(gaveUp(deps.settings, m.outcomeUnknown));
  }
}

/** Rejects the writes whose `beforeCommit` work failed; true if there were any. */
function dropFailed(round: Round, failed: ReadonlyMap<GroupMember, unknown>): boolean {
  const out = round.waiting.filter((m) => failed.has(m));
  if (out.length === 0) return false;
  round.waiting = round.waiting.filter((m) => !failed.has(m));
  for (const m of out) m.reject(failed.get(m));
  return true;
}

/** Rejects the writes whose request was sealed; true if there were any. */
function dropSealed(round: Round): boolean {
  const sealed = round.waiting.filter((m) => m.scope?.sealed);
  if (sealed.length === 0) return false;
  round.waiting = round.waiting.filter((m) => !m.scope?.sealed);
  for (const m of sealed) m.reject(notSent());
  return true;
}

type Sent = Awaited<ReturnType<GridStore['casGrid']>> | 'refused';

/** The batch, in a scope standing for every request it writes for (store/group-scope.ts). */
async function sendBatch(
  store: GridStore,
  profileId: bigint,
  snapshot: OverridesSnapshot,
  plan: RoundPlan,
  members: readonly GroupMember[],
): Promise<Sent> {
  const scopes = members.flatMap((m) => (m.scope ? [m.scope] : []));
  const { version } = snapshot.head;
  const next = version + BigInt(plan.writes);
  try {
    return await statementScope.run(new GroupScope(scopes), () =>
      store.casGrid(profileId, version, next, plan.mutation),
    );
  } catch (err) {
    // Refused before it was sent because a request's deadline sealed it while it waited.
    if (err instanceof DomainError && err.code === 'unavailable' && scopes.some((s) => s.sealed)) {
      return 'refused';
    }
    throw err;
  }
}

function settle(p: Planned, attempts: number, batchApplied: boolean): void {
  const { member } = p;
  if (p.kind === 'refused') {
    member.reject(p.error); // as a write alone: a refusal is no attempt
    return;
  }
  void member.run(async () => {
    recordAttempts(attempts);
    if (p.kind === 'write' && batchApplied && p.mutation) recordCommit(p.mutation);
  });
  member.resolve({
    result: p.result,
    version: p.version,
    generation: p.generation,
    committed: p.kind === 'write',
    attempts,
  });
}

/** Full jitter: uniform in [0, min(max, base · 2^attempt)). */
function backoff(settings: WriterSettings, attempt: number): number {
  const cap = Math.min(settings.maxBackoffMs, settings.baseBackoffMs * 2 ** attempt);
  return Math.random() * cap;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
