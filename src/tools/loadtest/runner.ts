/**
 * Drives one design: creates the grids, runs `concurrency` movers until the stop rule says so,
 * and keeps the model the checker needs (initial order + acknowledged moves per grid). A sampler
 * runs beside the movers and measures first-page reads at fixed move counts (or times), which is
 * what the chart plots.
 *
 * Every loop is bounded: movers stop at `--moves` or at the deadline (plus a hard cap on moves),
 * the sampler stops when the movers do.
 */
import type { ChartPoint } from './chart.js';
import type { ExpectedGrid } from './checker.js';
import type { GridDesign } from './design.js';
import type { AckedMove } from './history.js';
import { PauseGate } from './pause-gate.js';
import { Progress, type Counters } from './progress.js';
import { createRng } from './rng.js';
import { LatencyRecorder } from './stats.js';
import type { UnknownMove } from './unknown-outcomes.js';
import { nextMove, type WorkloadShape } from './workload.js';

export type StopRule = { kind: 'moves'; count: number } | { kind: 'duration'; seconds: number };

export interface RunPlan extends WorkloadShape {
  readonly stop: StopRule;
  readonly concurrency: number;
  readonly seed: number;
  readonly samples: number;
  readonly progress: boolean;
}

/** One grid's model: its posts (creation order), start order and acknowledged moves. */
export interface GridModel {
  readonly profileId: bigint;
  readonly posts: readonly bigint[];
  readonly initial: readonly bigint[];
  readonly acks: AckedMove[];
  uncertain: number;
  /** What the unknown-outcome moves asked for (resolved against the final read). */
  readonly unknown: UnknownMove[];
  /** The version right after seeding, and the final one (designs with versions only). */
  seededVersion: bigint | null;
  finalVersion: bigint | null;
}

export const expectedOf = (g: GridModel): ExpectedGrid => ({
  profileId: g.profileId,
  initial: g.initial,
  acks: g.acks,
  uncertain: g.uncertain,
  unknownMoves: g.unknown,
  ...(g.seededVersion !== null && g.finalVersion !== null
    ? { versions: { seeded: g.seededVersion, final: g.finalVersion } }
    : {}),
});

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

/** Something done to the cluster at a point of the run (a node killed, a node restarted). */
export interface RunEvent {
  readonly name: string;
  /** Share of the run (moves, or unpaused time) at which it starts. */
  readonly at: number;
  /** Runs even when the movers finish first (bringing a killed node back). */
  readonly mustRun?: boolean;
  readonly run: () => Promise<void>;
}

export interface FiredEvent {
  readonly name: string;
  readonly at: number;
  /** Seconds into the run when it started and when it was done; moves attempted by then. */
  readonly startedS: number;
  readonly doneS: number;
  readonly movesAttempted: number;
}

export interface WorkloadResult {
  readonly seconds: number;
  readonly attempted: number;
  readonly acked: number;
  readonly errors: number;
  readonly rejected: number;
  readonly uncertain: number;
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
}

const HARD_MOVE_CAP = 5_000_000;
const MAX_ERROR_SAMPLES = 10;

/** Creates every grid, `parallel` at a time (posts of one grid are created in order). */
export async function createGrids(
  design: GridDesign,
  profileIds: readonly bigint[],
  posts: number,
  parallel = 4,
): Promise<GridModel[]> {
  const grids: GridModel[] = new Array(profileIds.length);
  let next = 0;
  const worker = async () => {
    while (next < profileIds.length) {
      const i = next++;
      const profileId = profileIds[i]!;
      const created = await design.createGrid(profileId, posts);
      // A fresh grid shows its posts newest first (no overrides yet).
      grids[i] = {
        profileId,
        posts: created,
        initial: [...created].reverse(),
        acks: [],
        uncertain: 0,
        unknown: [],
        seededVersion: (await design.headVersion?.(profileId)) ?? null,
        finalVersion: null,
      };
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, profileIds.length) }, worker));
  return grids;
}

export async function runWorkload(
  design: GridDesign,
  grids: readonly GridModel[],
  plan: RunPlan,
  sample: Sampler,
  events: readonly RunEvent[] = [],
): Promise<WorkloadResult> {
  const rng = createRng(plan.seed);
  const counters: Counters = { done: 0, errors: 0, casRetries: 0 };
  const moveLatency = new LatencyRecorder();
  const errorSamples: string[] = [];
  let attempted = 0;
  let rejected = 0;
  let uncertain = 0;
  let rowsWritten = 0;
  let rowsKnown = 0;
  let relabels = 0;
  let relabelledRows = 0;
  let ackSeq = 0;

  const casBefore = design.casRetries?.() ?? 0;
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

  const mover = async () => {
    while (more()) {
      await gate.enter();
      if (!more()) {
        gate.leave();
        break;
      }
      attempted++;
      const op = nextMove(rng, plan);
      const grid = grids[op.profile]!;
      const postId = grid.posts[op.post]!;
      const after = op.after === null ? null : grid.posts[op.after]!;
      const t0 = performance.now();
      try {
        const r = await design.move(grid.profileId, postId, after);
        moveLatency.record(performance.now() - t0);
        grid.acks.push({ postId, after, version: r.version, seq: ackSeq++ });
        if (r.rowsWritten !== null) {
          rowsWritten += r.rowsWritten;
          rowsKnown++;
        }
        if (r.relabelled) {
          relabels++;
          relabelledRows += r.relabelled;
        }
      } catch (err) {
        counters.errors++;
        if (errorSamples.length < MAX_ERROR_SAMPLES) errorSamples.push(describeError(err));
        if (design.classifyFailure(err) === 'uncertain') {
          grid.uncertain++;
          grid.unknown.push({ postId, after });
          uncertain++;
        } else {
          rejected++;
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
  const fired: FiredEvent[] = [];
  const share = () =>
    deadline === undefined
      ? attempted / cap
      : (Date.now() - gate.pausedMs - started) / (deadline - started);
  const scheduler = async () => {
    for (const e of [...events].sort((a, b) => a.at - b.at)) {
      while (share() < e.at && !moversDone) await sleep(10);
      if (moversDone && !e.mustRun) continue;
      const startedS = (Date.now() - started) / 1000;
      const movesAttempted = attempted;
      await e.run();
      fired.push({
        name: e.name,
        at: e.at,
        startedS,
        doneS: (Date.now() - started) / 1000,
        movesAttempted,
      });
    }
  };

  const samplerDone = sampler();
  const eventsDone = scheduler();
  try {
    await Promise.all(Array.from({ length: plan.concurrency }, mover));
  } finally {
    moversDone = true;
    progress.stop();
  }
  await samplerDone;
  // Wall time minus the sampling pauses: the time the movers actually had.
  const seconds = (Date.now() - started - gate.pausedMs) / 1000;
  await eventsDone; // e.g. a node still restarting: verification reads after it is back
  const acked = grids.reduce((n, g) => n + g.acks.length, 0);
  samples.push(await sample.quiet(attempted));
  return {
    seconds,
    attempted,
    acked,
    errors: counters.errors,
    rejected,
    uncertain,
    casRetries: design.casRetries ? design.casRetries() - casBefore : null,
    rowsWritten,
    rowsKnown,
    relabels,
    relabelledRows,
    moveLatency,
    samples,
    errorSamples,
    events: fired,
  };
}

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
