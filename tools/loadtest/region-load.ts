/**
 * Moves from every region at once (docs/regions.md "Measured"): `perRegion` movers in each
 * region's service, each mover going round every grid, so every profile is written from both
 * regions concurrently. What each acknowledgement says goes into the grid's model
 * (grid-model.ts), which the checker (checker.ts) judges after the run; a failure is counted as
 * the answer says:
 *  - rejected (nothing applied): a 4xx, 503 `unavailable` (no Cassandra quorum, the home region
 *    not reachable before sending), 503 `contention`;
 *  - unknown (may have been applied): 503 `write_outcome_unknown`, other 5xx, no answer. The
 *    move is kept in the grid's unknown moves, resolved against the final read
 *    (unknown-outcomes.ts).
 * Latencies of acknowledged moves are kept per region and split by where the grid's home is
 * (home here, or elsewhere: forwarded when homes are on). `phase` labels the counts (e.g. before,
 * during and after a partition), set by the caller as it applies its faults.
 */
import { issueToken } from '../../src/http/auth.js';
import type { GridModel } from './grid-model.js';
import { httpCall } from './http-call.js';
import { createRng } from './rng.js';

export interface RegionTarget {
  readonly region: string;
  /** The region's service, e.g. http://10.78.1.254:18080. */
  readonly base: string;
}

/** A grid and the region its first write was sent to (its home, when homes are on). */
export interface RegionGrid {
  readonly model: GridModel;
  readonly home: string;
}

export interface PhaseCounts {
  acked: number;
  rejected: number;
  uncertain: number;
}

export interface RegionTally {
  readonly region: string;
  attempted: number;
  acked: number;
  rejected: number;
  uncertain: number;
  /** Failures by `http_<status>_<code>` or the network error's name. */
  readonly codes: Record<string, number>;
  /** Milliseconds of acknowledged moves of grids homed here / elsewhere (stats.ts percentile). */
  readonly homeMs: number[];
  readonly awayMs: number[];
  readonly phases: Record<string, PhaseCounts>;
  /** Profiles this region acknowledged at least one move of. */
  readonly profilesAcked: Set<bigint>;
}

const TIMEOUT_MS = 20_000;
const NOT_APPLIED_503 = new Set(['unavailable', 'contention']);

type Outcome =
  { kind: 'acked'; version: bigint } | { kind: 'rejected' | 'uncertain'; code: string };

export class RegionLoad {
  readonly tallies: RegionTally[];
  phase = 'before';
  private running = false;
  private movers: Promise<void>[] = [];
  private seq = 0;
  private readonly tokens = new Map<bigint, Promise<string>>();
  private startedAt = 0;
  seconds = 0;

  constructor(
    private readonly targets: readonly RegionTarget[],
    private readonly grids: readonly RegionGrid[],
    private readonly secret: string,
    private readonly opts: { perRegion: number; seed: number; failurePauseMs: number },
  ) {
    this.tallies = targets.map((t) => ({
      region: t.region,
      attempted: 0,
      acked: 0,
      rejected: 0,
      uncertain: 0,
      codes: {},
      homeMs: [],
      awayMs: [],
      phases: {},
      profilesAcked: new Set(),
    }));
  }

  start(): void {
    this.running = true;
    this.startedAt = performance.now();
    this.targets.forEach((t, r) => {
      for (let w = 0; w < this.opts.perRegion; w++) {
        this.movers.push(this.mover(t, this.tallies[r]!, w, this.opts.seed * 1000 + r * 100 + w));
      }
    });
  }

  /** Stops the movers and waits for the moves in flight. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.movers);
    this.seconds = (performance.now() - this.startedAt) / 1000;
  }

  private async mover(t: RegionTarget, tally: RegionTally, w: number, seed: number) {
    const rng = createRng(seed);
    for (let k = w; this.running; k++) {
      const grid = this.grids[k % this.grids.length]!;
      const posts = grid.model.posts;
      const postId = posts[rng.int(posts.length)]!;
      const others = posts.filter((p) => p !== postId);
      const after = rng.next() < 0.2 ? null : others[rng.int(others.length)]!;
      tally.attempted++;
      const phase = (tally.phases[this.phase] ??= { acked: 0, rejected: 0, uncertain: 0 });
      const t0 = performance.now();
      const out = await this.move(t.base, grid.model.profileId, postId, after);
      phase[out.kind]++;
      tally[out.kind]++;
      if (out.kind === 'acked') {
        const ms = performance.now() - t0;
        (grid.home === t.region ? tally.homeMs : tally.awayMs).push(ms);
        grid.model.acks.push({ postId, after, version: out.version, seq: this.seq++ });
        tally.profilesAcked.add(grid.model.profileId);
        continue;
      }
      tally.codes[out.code] = (tally.codes[out.code] ?? 0) + 1;
      if (out.kind === 'uncertain') {
        grid.model.uncertain++;
        grid.model.unknown.push({ postId, after });
      }
      await new Promise((r) => setTimeout(r, this.opts.failurePauseMs));
    }
  }

  private async move(base: string, profileId: bigint, postId: bigint, after: bigint | null) {
    let token = this.tokens.get(profileId);
    if (!token) this.tokens.set(profileId, (token = issueToken(this.secret, profileId, 24 * 3600))); // prettier-ignore
    return sendMove(base, await token, postId, after);
  }
}

/** One move through a region's service (`token`: the profile's bearer token); what it says. */
export async function sendMove(
  base: string,
  token: string,
  postId: bigint,
  after: bigint | null,
): Promise<Outcome> {
  const body = JSON.stringify({ post_id: String(postId), after: after === null ? null : String(after) }); // prettier-ignore
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  try {
    const res = await httpCall(`${base}/v1/me/grid/moves`, 'POST', headers, body, TIMEOUT_MS);
    return outcomeOf(res.status, res.text);
  } catch (err) {
    return { kind: 'uncertain', code: (err as Error).name || 'error' };
  }
}

/** What an answer says about the move (exported for the unit test). */
export function outcomeOf(status: number, text: string): Outcome {
  if (status >= 200 && status < 300) {
    return { kind: 'acked', version: BigInt((JSON.parse(text) as { grid_version: string }).grid_version) }; // prettier-ignore
  }
  const problem = /"code"\s*:\s*"([a-z_]+)"/.exec(text)?.[1];
  const code = `http_${status}${problem ? `_${problem}` : ''}`;
  if (status >= 400 && status < 500 && status !== 408) return { kind: 'rejected', code };
  if (status === 503 && NOT_APPLIED_503.has(problem ?? '')) return { kind: 'rejected', code };
  return { kind: 'uncertain', code };
}
