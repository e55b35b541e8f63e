/**
 * The traffic itself: each operation is a read (share `readShare`) or a write, drawn from one
 * seeded stream per worker.
 * - Reads, by kind: the writer's own read with `min_version` right after its acknowledged write
 *   (taken first whenever one is owed), else a first page (60%), a later page by the cursor an
 *   earlier first page of that profile returned (15%), or a revalidation with the ETag it
 *   returned, `If-None-Match` (25%, expecting 304); a kind with nothing to go on yet reads a first
 *   page. The profile is drawn by popularity (population.ts).
 * - Writes: the mixed workload (`--mix default`, mix.ts) on the writer grids, through
 *   mixed-step.ts, so the checker can judge them; the service's own move rate limit applies (a
 *   429 is counted as refused, as the product answers).
 * Two ways to run it: closed (a fixed number of workers, each waiting for its answer: the
 * saturation throughput) and open (operations started at a fixed rate whatever the answers
 * take: latency at a given load, without coordinated omission).
 */
import { DEFAULT_MIX } from '../mix.js';
import { mixedStep, newTallies, type OpTallies } from '../mixed-step.js';
import { createRng, type Rng } from '../rng.js';
import { LatencyRecorder } from '../stats.js';
import type { GridModel } from '../grid-model.js';
import type { Send, SendDesign } from './client.js';

export const KINDS = ['first', 'cursor', 'revalidate', 'own', 'write'] as const;
export type Kind = (typeof KINDS)[number];

export interface TrafficShape {
  readonly readShare: number;
  readonly pageSize: number;
  readonly seed: number;
  readonly writerPosts: number;
}

export interface Tally {
  readonly latency: Record<Kind, LatencyRecorder>;
  /** Every operation's latency, whatever its kind. */
  readonly all: LatencyRecorder;
  readonly statuses: Record<string, number>;
  readonly ops: OpTallies;
  /** First-page requests sent (own reads and revalidations included), whatever the answer. */
  firstPages: number;
  notModified: number;
  errors: number;
  errorSample: string | undefined;
}

export const newTally = (): Tally => ({
  latency: Object.fromEntries(KINDS.map((k) => [k, new LatencyRecorder()])) as Record<
    Kind,
    LatencyRecorder
  >,
  all: new LatencyRecorder(),
  statuses: {},
  ops: newTallies(),
  firstPages: 0,
  notModified: 0,
  errors: 0,
  errorSample: undefined,
});

interface Seen {
  etag: string | undefined;
  cursor: string | null;
}

export class Traffic {
  private readonly seen = new Map<bigint, Seen>();
  private readonly owed: Array<{ profileId: bigint; version: bigint }> = [];
  private readonly steppers: Array<() => Promise<void>>;
  private seq = 0;
  tally: Tally = newTally();

  constructor(
    private readonly send: Send,
    design: SendDesign,
    private readonly writers: readonly GridModel[],
    private readonly profileOf: (rng: Rng) => bigint,
    private readonly shape: TrafficShape,
  ) {
    this.steppers = writers.map((g, i) =>
      mixedStep(
        design,
        [g],
        {
          mix: DEFAULT_MIX,
          seed: shape.seed * 31 + i,
          posts: shape.writerPosts,
          profiles: 1,
          hot: 0,
          hotPosts: 1,
          topShare: 0.25,
        },
        {
          tallies: this.tally.ops,
          moveLatency: new LatencyRecorder(),
          nextSeq: () => ++this.seq,
          onMove: () => {},
          onError: (err) => this.error(err),
        },
      ),
    );
  }

  /** A fresh tally (the write tallies go on counting into the one the steppers hold). */
  reset(): Tally {
    const ops = this.tally.ops;
    for (const t of Object.values(ops)) {
      t.attempted = t.acked = t.rejected = t.uncertain = 0;
      for (const k of Object.keys(t.codes)) delete t.codes[k];
    }
    this.tally = { ...newTally(), ops };
    return this.tally;
  }

  private error(err: unknown): void {
    this.tally.errors++;
    this.tally.errorSample ??= (err as Error).message?.slice(0, 200);
  }

  private async read(kind: Kind, path: string, profileId: bigint, headers: Record<string, string>) {
    if (kind !== 'cursor') this.tally.firstPages++;
    const t0 = performance.now();
    let res;
    try {
      res = await this.send('GET', path, headers);
    } catch (err) {
      this.error(err);
      return;
    }
    const tally = this.tally;
    const ms = performance.now() - t0;
    tally.latency[kind].record(ms);
    tally.all.record(ms);
    tally.statuses[res.status] = (tally.statuses[res.status] ?? 0) + 1;
    if (res.status === 304) tally.notModified++;
    if (res.status >= 400)
      this.error(new Error(`GET ${path}: HTTP ${res.status} ${res.text.slice(0, 120)}`));
    if (res.status === 200 && kind !== 'cursor') {
      const cursor = (JSON.parse(res.text) as { next_cursor: string | null }).next_cursor;
      this.seen.set(profileId, { etag: res.etag, cursor });
    }
  }

  /** One operation, drawn from `rng`. */
  async step(rng: Rng): Promise<void> {
    const own = this.owed.shift();
    const limit = this.shape.pageSize;
    if (own) {
      const path = `/v1/profiles/${own.profileId}/grid?limit=${limit}&min_version=${own.version}`;
      return this.read('own', path, own.profileId, {});
    }
    if (rng.next() >= this.shape.readShare) {
      const i = rng.int(this.writers.length);
      const log = this.writers[i]!.mix!;
      const before = log.acks.length;
      const t0 = performance.now();
      await this.steppers[i]!();
      const ms = performance.now() - t0;
      this.tally.latency.write.record(ms);
      this.tally.all.record(ms);
      const ack = log.acks.length > before ? log.acks[log.acks.length - 1] : undefined;
      if (ack) this.owed.push({ profileId: this.writers[i]!.profileId, version: ack.version });
      return;
    }
    const profileId = this.profileOf(rng);
    const seen = this.seen.get(profileId);
    const base = `/v1/profiles/${profileId}/grid?limit=${limit}`;
    const r = rng.next();
    if (r >= 0.6 && r < 0.75 && seen?.cursor) {
      return this.read(
        'cursor',
        `${base}&cursor=${encodeURIComponent(seen.cursor)}`,
        profileId,
        {},
      );
    }
    if (r >= 0.75 && seen?.etag) {
      return this.read('revalidate', base, profileId, { 'if-none-match': seen.etag });
    }
    return this.read('first', base, profileId, {});
  }

  /** Closed loop: `workers` each running one operation after another for `seconds`. */
  async closed(workers: number, seconds: number, seed: number): Promise<number> {
    const until = performance.now() + seconds * 1000;
    let done = 0;
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        const rng = createRng(seed * 1_009 + w);
        while (performance.now() < until) {
          await this.step(rng);
          done++;
        }
      }),
    );
    return done;
  }

  /** Open loop: operations started at `rate` a second for `seconds`, at most `cap` in flight. */
  async open(
    rate: number,
    seconds: number,
    seed: number,
    cap = 4_096,
  ): Promise<{ started: number; skipped: number }> {
    const rng = createRng(seed * 7_001);
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    const running = new Set<Promise<void>>();
    let started = 0;
    let skipped = 0;
    while (performance.now() < end) {
      const due = Math.floor(((performance.now() - t0) / 1000) * rate);
      while (started + skipped < due) {
        if (running.size >= cap) {
          skipped++;
          continue;
        }
        started++;
        const p: Promise<void> = this.step(rng).finally(() => running.delete(p));
        running.add(p);
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(running);
    return { started, skipped };
  }
}
