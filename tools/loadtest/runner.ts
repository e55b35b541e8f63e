/**
 * Drives one design over its grids (grid-model.ts): runs `concurrency` movers until the stop rule says so,
 * and keeps the model the checker needs (initial order + acknowledged moves per grid). A sampler
 * runs beside the movers and measures first-page reads at fixed move counts (or times), which is
 * what the chart plots.
 *
 * Every loop is bounded: movers stop at `--moves` or at the deadline (plus a hard cap on moves),
 * the sampler stops when the movers do.
 */
import type { ChartPoint } from './chart.js';
import type { CasAttempts, GridDesign, MoveOutcome } from './design.js';
import type { GridModel } from './grid-model.js';
import { PauseGate } from './pause-gate.js';
import { Progress, type Counters } from './progress.js';
import { fireEvents, type FiredEvent, type RunEvent } from './run-events.js';
import { moveSource, type Scenario } from './scenario.js';
import type { Mix } from './mix.js';
import { newMixLog } from './mixed-history.js';
import { mixedStep, newTallies, type OpTallies } from './mixed-step.js';
import { LatencyRecorder } from './stats.js';
import type { WorkloadShape } from './workload.js';

export type StopRule = { kind: 'moves'; count: number } | { kind: 'duration'; seconds: number };

export interface RunPlan extends WorkloadShape {
  readonly stop: StopRule;
  readonly scenario: Scenario;
  readonly concurrency: number;
  readonly seed: number;
  readonly samples: number;
  readonly progress: boolean;
  /** The mixed workload's proportions (--mix); null: moves only. */
  readonly mix?: Mix | null;
}

/** What the sampler measures at one point of the run (plotted by chart.ts). */
export type SamplePoint = ChartPoint;

/**
 * Samples the run: `underLoad` reads while the movers keep going (read latency under load);
 * `quiet` runs with the movers paused after exactly `movesDone` moves (the chart's points).
 */
export interface Sampler {
  underLoad(): Promise<void>;
  quiet(movesDone: number): Promise<SamplePoint>;
}

export interface WorkloadResult {
  readonly seconds: number;
  readonly attempted: number;
  readonly acked: number;
  readonly errors: number;
  readonly rejected: number;
  readonly uncertain: number;
  /** Moves answered with 503 contention (every compare-and-set attempt lost); part of `rejected`. */
  readonly contention: number;
  /** Conditional batches sent during the workload (count null when not known, and why). */
  readonly casAttempts: CasAttempts;
  /** Null when the transport cannot see them (HTTP). */
  readonly casRetries: number | null;
  readonly rowsWritten: number;
  readonly rowsKnown: number; // moves that reported rowsWritten
  readonly relabels: number; // moves that rewrote other posts' keys
  readonly relabelledRows: number;
  readonly moveLatency: LatencyRecorder;
  readonly samples: readonly SamplePoint[];
  readonly errorSamples: readonly string[];
  readonly events: readonly FiredEvent[];
  /** With --mix: every operation kind by outcome (moves included). */
  readonly operations?: OpTallies | null;
}

const HARD_MOVE_CAP = 5_000_000;
const MAX_ERROR_SAMPLES = 10;

export async function runWorkload(
  design: GridDesign,
  grids: readonly GridModel[],
  plan: RunPlan,
  sample: Sampler,
  events: readonly RunEvent[] = [],
): Promise<WorkloadResult> {
  const next = moveSource(plan);
  const counters: Counters = { done: 0, errors: 0, casRetries: 0 };
  const moveLatency = new LatencyRecorder();
  const errorSamples: string[] = [];
  let attempted = 0;
  let rejected = 0;
  let uncertain = 0;
  let contention = 0;
  let rowsWritten = 0;
  let rowsKnown = 0;
  let relabels = 0;
  let relabelledRows = 0;
  let ackSeq = 0;
  const countRows = (r: MoveOutcome) => {
    if (r.rowsWritten !== null) {
      rowsWritten += r.rowsWritten;
      rowsKnown++;
    }
    if (r.relabelled) {
      relabels++;
      relabelledRows += r.relabelled;
    }
  };
  const tallies = plan.mix ? newTallies() : null;
  const mixed =
    plan.mix && tallies
      ? mixedStep(
          design,
          grids,
          { ...plan, mix: plan.mix },
          {
            tallies,
            moveLatency,
            nextSeq: () => ackSeq++,
            onMove: (r) => countRows(r),
            onError(err, isUncertain, kind) {
              counters.errors++;
              if (errorSamples.length < MAX_ERROR_SAMPLES) errorSamples.push(describeError(err));
              // The move figures stay the moves' own; the other kinds are in `operations`.
              if (kind !== 'move') return;
              if (isUncertain) uncertain++;
              else {
                rejected++;
                if (design.isContention?.(err)) contention++;
              }
            },
          },
        )
      : null;
  if (mixed) for (const g of grids) g.mix = newMixLog(g.posts);

  const casBefore = design.casRetries?.() ?? 0;
  const attemptsBefore = await casAttemptsOf(design);
  const gate = new PauseGate();
  const started = Date.now();
  const deadline = plan.stop.kind === 'duration' ? started + plan.stop.seconds * 1000 : undefined;
  const cap = plan.stop.kind === 'moves' ? plan.stop.count : HARD_MOVE_CAP;
  // Paused time does not count against --duration.
  const more = () =>
    attempted < cap && (deadline === undefined || Date.now() < deadline + gate.pausedMs);

  const progress = new Progress(counters, {
    label: `[${design.name}]`,
    ...(plan.stop.kind === 'moves' ? { total: plan.stop.count } : { deadline: deadline! }),
    enabled: plan.progress,
  }).start();

  const mover = async (worker: number) => {
    while (more()) {
      await gate.enter();
      if (!more()) {
        gate.leave();
        break;
      }
      attempted++;
      if (mixed) {
        try {
          await mixed();
        } finally {
          counters.done = attempted;
          counters.casRetries = (design.casRetries?.() ?? 0) - casBefore;
          gate.leave();
        }
        continue;
      }
      const op = next(worker);
      const grid = grids[op.profile]!;
      const postId = grid.posts[op.post]!;
      const after = op.after === null ? null : grid.posts[op.after]!;
      const t0 = performance.now();
      try {
        const r = await design.move(grid.profileId, postId, after);
        moveLatency.record(performance.now() - t0);
        grid.acks.push({ postId, after, version: r.version, seq: ackSeq++ });
        countRows(r);
      } catch (err) {
        counters.errors++;
        if (errorSamples.length < MAX_ERROR_SAMPLES) errorSamples.push(describeError(err));
        if (design.classifyFailure(err) === 'uncertain') {
          grid.uncertain++;
          grid.unknown.push({ postId, after });
          uncertain++;
        } else {
          rejected++;
          if (design.isContention?.(err)) contention++;
        }
      } finally {
        counters.done = attempted;
        counters.casRetries = (design.casRetries?.() ?? 0) - casBefore;
        gate.leave();
      }
    }
  };

  const samples: SamplePoint[] = [await sample.quiet(0)];
  let moversDone = false;
  const sampler = async () => {
    // Sample k is due at k/samples of the run, measured in moves or in (unpaused) time.
    for (let k = 1; k < plan.samples && !moversDone; k++) {
      const due = () =>
        deadline === undefined
          ? attempted >= (cap * k) / plan.samples
          : Date.now() - gate.pausedMs >= started + ((deadline - started) * k) / plan.samples;
      while (!due() && !moversDone) await sleep(10);
      if (moversDone) break;
      // A read that fails while a ring node is lost costs that sample, not the run.
      await sample.underLoad().catch(() => undefined);
      await gate.pause();
      try {
        samples.push(await sample.quiet(attempted));
      } catch {
        // skipped, as above
      } finally {
        gate.resume();
      }
    }
  };

  // Events fire in order, each when its share of the run is reached; the movers go on meanwhile.
  const share = () =>
    deadline === undefined
      ? attempted / cap
      : (Date.now() - gate.pausedMs - started) / (deadline - started);
  const clock = { share, finished: () => moversDone, started, attempted: () => attempted };

  const samplerDone = sampler();
  const eventsDone = fireEvents(events, clock);
  try {
    await Promise.all(Array.from({ length: plan.concurrency }, (_, w) => mover(w)));
  } finally {
    moversDone = true;
    progress.stop();
  }
  const attemptsAfter = await casAttemptsOf(design);
  await samplerDone;
  // Wall time minus the sampling pauses: the time the movers actually had.
  const seconds = (Date.now() - started - gate.pausedMs) / 1000;
  // Events still running (a node restarting): verification reads come after they are done.
  const fired = await eventsDone;
  const acked = tallies ? tallies.move.acked : grids.reduce((n, g) => n + g.acks.length, 0);
  samples.push(await sample.quiet(attempted));
  return {
    seconds,
    // With --mix, --moves counts every operation; these figures are the moves'.
    attempted: tallies ? tallies.move.attempted : attempted,
    acked,
    errors: tallies ? tallies.move.rejected + tallies.move.uncertain : counters.errors,
    rejected,
    uncertain,
    contention,
    casAttempts: {
      count:
        attemptsBefore.count === null || attemptsAfter.count === null
          ? null
          : attemptsAfter.count - attemptsBefore.count,
      source: attemptsAfter.count === null ? attemptsAfter.source : attemptsBefore.source,
    },
    casRetries: design.casRetries ? design.casRetries() - casBefore : null,
    rowsWritten,
    rowsKnown,
    relabels,
    relabelledRows,
    moveLatency,
    samples,
    errorSamples,
    events: fired,
    operations: tallies,
  };
}

const NO_CAS: CasAttempts = { count: null, source: 'n/a: the design has no compare-and-set' };

const casAttemptsOf = (design: GridDesign): Promise<CasAttempts> =>
  design.casAttempts?.() ?? Promise.resolve(NO_CAS);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return `${err.name}${typeof code === 'string' ? `(${code})` : ''}: ${err.message}`.slice(
      0,
      300,
    );
  }
  return String(err).slice(0, 300);
}
