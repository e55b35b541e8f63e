/**
 * Seeded workloads for the feed tests: grids of several profiles changed by a random mix of
 * writes (creates, moves, pins, resets, batch orders, archive/unarchive, deletes, take-downs,
 * collaborators joining and leaving, a generation bump now and then), each write one change event
 * per the contract, together with the grid it left behind. The grid is tracked here directly, not
 * derived from the events, so a test can hold the feed to the grids rather than to its own rules.
 */
import { composeId } from '../../../src/domain/ids.js';
import type { ChangeEvent, Kind } from '../../../examples/feed/decide.js';

export interface Step {
  readonly event: ChangeEvent;
  /** The profile's grid after this version (post IDs). */
  readonly gridAfter: ReadonlySet<string>;
}

export interface Workload {
  /** Per profile, its steps in version order. */
  readonly steps: ReadonlyMap<string, readonly Step[]>;
  /** Every post created (on any grid). */
  readonly created: ReadonlySet<string>;
  /** Every post that was archived, deleted or taken down at some point. */
  readonly removedOnce: ReadonlySet<string>;
}

/** mulberry32: small, seedable, good enough to pick workloads. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NO_POST_KINDS: Kind[] = ['moved', 'pinned', 'unpinned', 'batch_reordered', 'undone'];

export function buildWorkload(
  rand: () => number,
  profiles: readonly string[],
  writes: number,
  startMs = Date.UTC(2026, 11, 2),
): Workload {
  const pick = <T>(xs: readonly T[]): T | undefined => xs[Math.floor(rand() * xs.length)];
  const grids = new Map(profiles.map((p) => [p, new Set<string>()]));
  const archived = new Map(profiles.map((p) => [p, new Set<string>()]));
  const versions = new Map(profiles.map((p) => [p, 0n]));
  const generations = new Map(profiles.map((p) => [p, 1n]));
  const steps = new Map(profiles.map((p) => [p, [] as Step[]]));
  const created = new Set<string>();
  const removedOnce = new Set<string>();
  let ms = startMs;

  for (let w = 0; w < writes; w++) {
    const profile = pick(profiles)!;
    const grid = grids.get(profile)!;
    const shelf = archived.get(profile)!;
    const onGrid = [...grid];
    const roll = rand();
    let kind: Kind = 'changed';
    let posts: string[] = [];
    if (roll < 0.3 || onGrid.length === 0) {
      // Several posts may share a millisecond: the sequence field orders them.
      ms += Math.floor(rand() * 2);
      const id = composeId({ ms, worker: 7, sequence: w % 1024 }).toString();
      kind = 'created';
      posts = [id];
      grid.add(id);
      created.add(id);
    } else if (roll < 0.55) {
      kind = pick(NO_POST_KINDS)!;
      posts = kind === 'batch_reordered' ? onGrid.filter(() => rand() < 0.5) : [pick(onGrid)!];
    } else if (roll < 0.65) {
      kind = 'archived';
      posts = [pick(onGrid)!];
      grid.delete(posts[0]!);
      shelf.add(posts[0]!);
    } else if (roll < 0.72 && shelf.size > 0) {
      kind = 'unarchived';
      posts = [pick([...shelf])!];
      shelf.delete(posts[0]!);
      grid.add(posts[0]!);
    } else if (roll < 0.8) {
      kind = pick(['deleted', 'taken_down', 'collaborator_left'] as const)!;
      posts = [pick(onGrid)!];
      grid.delete(posts[0]!);
    } else if (roll < 0.88) {
      // A post of another grid joins this one (a collaborator accepted it): two sources.
      const other = pick([...grids.values()].flatMap((g) => [...g]).filter((p) => !grid.has(p)));
      if (other !== undefined) {
        kind = 'collaborator_accepted';
        posts = [other];
        grid.add(other);
      }
    } else if (roll < 0.92) {
      kind = 'reset';
      // A reset sometimes starts a new generation: consumers restart the watermark there.
      if (rand() < 0.5) generations.set(profile, generations.get(profile)! + 1n);
    }
    if (kind === 'archived' || kind === 'deleted' || kind === 'taken_down') {
      removedOnce.add(posts[0]!);
    }
    const version = versions.get(profile)! + 1n;
    versions.set(profile, version);
    steps.get(profile)!.push({
      event: {
        profile_id: profile,
        version: version.toString(),
        generation: generations.get(profile)!.toString(),
        at: new Date(ms).toISOString(),
        kind,
        post_ids: posts,
      },
      gridAfter: new Set(grid),
    });
  }
  return { steps, created, removedOnce };
}

/**
 * Every step of every profile in one delivery order: profiles interleaved at random (each in its
 * own version order), with earlier events delivered again (redelivery, double publish) and now and
 * then a later version of a profile delivered before an earlier one (another consumer held it).
 */
export function deliveries(rand: () => number, w: Workload, dupRate = 0.2): ChangeEvent[] {
  const queues = [...w.steps.values()].map((s) => s.map((x) => x.event));
  const out: ChangeEvent[] = [];
  while (queues.some((q) => q.length > 0)) {
    const live = queues.filter((q) => q.length > 0);
    const q = live[Math.floor(rand() * live.length)]!;
    if (q.length > 1 && rand() < 0.1) out.push(q.splice(1, 1)[0]!);
    else out.push(q.shift()!);
    if (out.length > 1 && rand() < dupRate) out.push(out[Math.floor(rand() * out.length)]!);
  }
  return out;
}
