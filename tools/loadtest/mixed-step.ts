/**
 * One operation of the mixed workload (--mix): chooses it from the grid's view (mix.ts), sends
 * it through the design's MixedOps, and records the outcome: the acknowledged operation in the
 * grid's log (what the checker replays, mixed-history.ts), the view updated from it, and the
 * count of each kind by outcome (acknowledged, refused by code, unknown) for the report.
 */
import type { GridDesign, MixedOps, MoveOutcome } from './design.js';
import type { GridModel } from './grid-model.js';
import {
  boundsFor,
  batchOrderFor,
  nextMixedOp,
  OP_KINDS,
  type Mix,
  type MixedOp,
  type OpKind,
} from './mix.js';
import type { MixedAck, MixLog } from './mixed-history.js';
import { createRng, type Rng } from './rng.js';
import type { LatencyRecorder } from './stats.js';

export interface OpTally {
  attempted: number;
  acked: number;
  rejected: number;
  uncertain: number;
  /** Refusals and failures by code (`post_not_on_grid`, `precondition_failed`, `http_412`…). */
  readonly codes: Record<string, number>;
}

export type OpTallies = Record<OpKind, OpTally>;

export const newTallies = (): OpTallies =>
  Object.fromEntries(
    OP_KINDS.map((k) => [k, { attempted: 0, acked: 0, rejected: 0, uncertain: 0, codes: {} }]),
  ) as unknown as OpTallies;

export interface MixedPlan {
  readonly mix: Mix;
  readonly seed: number;
  readonly posts: number;
  readonly profiles: number;
  readonly hot: number;
  readonly hotPosts: number;
  readonly topShare: number;
}

export interface StepSinks {
  readonly tallies: OpTallies;
  readonly moveLatency: LatencyRecorder;
  readonly nextSeq: () => number;
  /** An acknowledged move's own figures (rows written, relabels). */
  readonly onMove: (r: MoveOutcome) => void;
  /** A failed operation: the runner counts it and keeps a sample of its message. */
  readonly onError: (err: unknown, uncertain: boolean, kind: OpKind) => void;
}

/** The mixed step: one operation per call, on a grid drawn from one seeded stream. */
export function mixedStep(
  design: GridDesign,
  grids: readonly GridModel[],
  plan: MixedPlan,
  sinks: StepSinks,
): () => Promise<void> {
  const ops = design.mixed;
  if (!ops) throw new Error(`--mix needs a design with the mixed writes (${design.name} has none)`);
  const rng = createRng(plan.seed);
  const bounds = boundsFor(plan.posts);
  return async function mixedOperation() {
    const hot = rng.next() < plan.hot;
    const grid = grids[hot ? 0 : rng.int(plan.profiles)]!;
    const log = grid.mix!;
    const view = { live: [...log.live], pins: log.pins, archived: [...log.archived] };
    const preferred = hot ? grid.posts.slice(0, plan.hotPosts) : [];
    const op = nextMixedOp(rng, plan.mix, view, bounds, plan.topShare, preferred);
    const tally = sinks.tallies[op.kind];
    tally.attempted++;
    const t0 = performance.now();
    try {
      const ack = await send(ops, design, grid.profileId, op, rng, sinks.onMove);
      if (op.kind === 'move') sinks.moveLatency.record(performance.now() - t0);
      tally.acked++;
      const times = { sentAt: t0, ackedAt: performance.now() };
      log.acks.push({ ...ack, ...times, seq: sinks.nextSeq() } as MixedAck);
      applyToView(log, ack);
    } catch (err) {
      const uncertain = design.classifyFailure(err) === 'uncertain';
      if (uncertain) {
        tally.uncertain++;
        log.uncertain++;
        if (op.kind === 'delete' || op.kind === 'archive') log.maybeRemoved.set(op.postId, op.kind);
      } else tally.rejected++;
      const code = ops.failureCode(err);
      tally.codes[code] = (tally.codes[code] ?? 0) + 1;
      sinks.onError(err, uncertain, op.kind);
    }
  };
}

type Ack = DistributiveOmit<MixedAck, 'seq'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

async function send(
  ops: MixedOps,
  design: GridDesign,
  profileId: bigint,
  op: MixedOp,
  rng: Rng,
  onMove: (r: MoveOutcome) => void,
): Promise<Ack> {
  switch (op.kind) {
    case 'move': {
      const r = await design.move(profileId, op.postId, op.after);
      onMove(r);
      return { kind: 'move', postId: op.postId, after: op.after, version: r.version! };
    }
    case 'create': {
      const r = await ops.create(profileId);
      return { kind: 'create', postId: r.postId, version: r.version };
    }
    case 'delete':
      return { kind: 'delete', postId: op.postId, version: await ops.remove(profileId, op.postId) };
    case 'archive':
      return {
        kind: 'archive',
        postId: op.postId,
        version: await ops.archive(profileId, op.postId),
      };
    case 'unarchive': {
      const version = await ops.unarchive(profileId, op.postId);
      return { kind: 'unarchive', postId: op.postId, version };
    }
    case 'pin':
    case 'unpin':
      return { kind: 'pins', pins: op.pins, version: await ops.setPins(profileId, op.pins) };
    case 'batch': {
      const current = await ops.readOrder(profileId);
      const order = batchOrderFor(rng, current.main);
      const version = await ops.patchOrder(profileId, current.etag, order);
      return { kind: 'batch', order, version };
    }
  }
}

/** The client's view after an acknowledgement (a no-op answer leaves it as it was asked). */
function applyToView(log: MixLog, a: Ack): void {
  switch (a.kind) {
    case 'create':
    case 'unarchive':
      log.archived.delete(a.postId);
      log.live.add(a.postId);
      return;
    case 'delete':
    case 'archive':
      log.live.delete(a.postId);
      log.pins = log.pins.filter((p) => p !== a.postId);
      if (a.kind === 'archive') log.archived.add(a.postId);
      else log.archived.delete(a.postId);
      return;
    case 'pins':
      log.pins = [...a.pins];
      return;
    case 'move':
    case 'batch':
      return;
  }
}
