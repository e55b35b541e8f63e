/**
 * The seed's PostgreSQL design (postgres-design.ts) on the same population and the same traffic
 * where that design allows it: it has first pages and moves only (no cursors, no ETags, no
 * creates, pins, archive, deletes or batch orders, no cache, no rate limit). So here every read
 * is a first page of a profile drawn by the same popularity, and every write (the same share) is
 * a move on a writer grid, judged at the end by the moves checker (checker.ts `checkGrid`). The
 * population is bulk-loaded into schema `production` of the load tester's database (seconds,
 * so it is rebuilt every run), overrides as sort keys exactly as seed.ts writes them to
 * Cassandra. CPU per operation is this process's (the client; PostgreSQL's own is not counted).
 */
import { checkGrid } from '../checker.js';
import { expectedOf, createGrids, type GridModel } from '../grid-model.js';
import { nextMove } from '../workload.js';
import { PostgresDesign } from '../postgres-design.js';
import { openPool } from '../postgres-schema.js';
import { createRng, type Rng } from '../rng.js';
import { freshProfileIds } from '../session.js';
import { LatencyRecorder } from '../stats.js';
import { postIdOf, type ProfilePlan } from './population.js';
import type { ProductionOptions } from './options.js';

const SCHEMA = 'production';
const ROWS_PER_INSERT = 5_000;
const r2 = (x: number | null) => (x == null ? null : Math.round(x * 100) / 100);

async function load(url: string, plans: readonly ProfilePlan[], seed: number) {
  const pool = await openPool(url, 2, SCHEMA);
  try {
    let rows: Array<[bigint, bigint, bigint | null]> = [];
    const flush = async () => {
      if (rows.length === 0) return;
      await pool.query(
        `INSERT INTO grid_entry (profile_id, post_id, sort_key, moved_version)
         SELECT p, i, k, CASE WHEN k IS NULL THEN NULL ELSE 1 END
         FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS t(p, i, k)`,
        [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
      );
      rows = [];
    };
    for (const p of plans) {
      const ids = Array.from({ length: p.posts }, (_, i) => postIdOf(p.index, i, p.posts));
      const random = createRng(seed * 7_919 + p.index).next;
      ids.forEach((id, i) => {
        const key =
          i < p.overrides
            ? ids[Math.floor(random() * ids.length)]! + 1n + BigInt(Math.floor(random() * 2 ** 22))
            : null;
        rows.push([p.profileId, id, key]);
      });
      if (rows.length >= ROWS_PER_INSERT) await flush();
    }
    await flush();
    await pool.query(
      `INSERT INTO grid_order (profile_id, version) SELECT unnest($1::bigint[]), 1`,
      [plans.map((p) => p.profileId)],
    );
    await pool.query('ANALYZE grid_entry');
  } finally {
    await pool.end();
  }
}

export async function runPostgres(
  o: ProductionOptions,
  plans: readonly ProfilePlan[],
  pick: (rng: Rng) => number,
  log: (line: string) => void,
) {
  const design = await PostgresDesign.create({
    url: o.pgUrl,
    poolSize: o.concurrency + 2,
    schema: SCHEMA,
  });
  try {
    const t0 = performance.now();
    await load(o.pgUrl, plans, o.seed);
    log(`[postgres] population loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const writers: GridModel[] = await createGrids(
      design,
      freshProfileIds(o.writers),
      o.writerPosts,
      8,
    );
    let seq = 0;
    const shape = { profiles: 1, posts: o.writerPosts, hot: 0, hotPosts: 1, topShare: 0.25 };
    let errors = 0;
    let sample: string | undefined;
    let reads = new LatencyRecorder();
    let moves = new LatencyRecorder();
    let all = new LatencyRecorder();
    const step = async (rng: Rng) => {
      const s = performance.now();
      try {
        if (rng.next() >= o.readShare) {
          const g = writers[rng.int(writers.length)]!;
          const m = nextMove(rng, shape);
          const postId = g.posts[m.post]!;
          const after = m.after === null ? null : g.posts[m.after]!;
          const r = await design.move(g.profileId, postId, after);
          g.acks.push({ postId, after, version: r.version, seq: seq++ });
          moves.record(performance.now() - s);
        } else {
          await design.readFirstPage(plans[pick(rng)]!.profileId, o.pageSize);
          reads.record(performance.now() - s);
        }
        all.record(performance.now() - s);
      } catch (err) {
        errors++;
        sample ??= (err as Error).message.slice(0, 200);
      }
    };
    const closed = async (seconds: number, seedOf: number) => {
      const until = performance.now() + seconds * 1000;
      let done = 0;
      await Promise.all(
        Array.from({ length: o.concurrency }, async (_, w) => {
          const rng = createRng(seedOf * 1_009 + w);
          while (performance.now() < until) {
            await step(rng);
            done++;
          }
        }),
      );
      return done;
    };
    await closed(o.warmup, o.seed);
    const cpu0 = process.cpuUsage();
    const done = await closed(o.seconds, o.seed + 1);
    const saturation = done / o.seconds;
    const satCpu = process.cpuUsage(cpu0);
    reads = new LatencyRecorder();
    moves = new LatencyRecorder();
    all = new LatencyRecorder();
    const rate = saturation / 2;
    log(`[postgres] half of saturation: ${rate.toFixed(0)} ops/s`);
    const rng = createRng(o.seed * 7_001);
    const start = performance.now();
    const running = new Set<Promise<void>>();
    let started = 0;
    while (performance.now() < start + o.seconds * 1000) {
      const due = Math.floor(((performance.now() - start) / 1000) * rate);
      while (started < due) {
        started++;
        const p: Promise<void> = step(rng).finally(() => running.delete(p));
        running.add(p);
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(running);
    let violations = 0;
    for (const g of writers)
      violations += checkGrid(expectedOf(g), await design.readAll(g.profileId)).violations.length;
    const pct = (l: LatencyRecorder) => ({
      n: l.count,
      p50: r2(l.percentile(50)),
      p99: r2(l.percentile(99)),
      p999: r2(l.percentile(99.9)),
    });
    return {
      transport: 'direct (PostgreSQL)',
      saturation: {
        ops_per_s: r2(saturation),
        workers: o.concurrency,
        client_cpu_us_per_op: r2((satCpu.user + satCpu.system) / Math.max(done, 1)),
      },
      half: {
        rate_per_s: r2(rate),
        started,
        latency_all_ms: pct(all),
        first_page_ms: pct(reads),
        move_ms: pct(moves),
      },
      errors,
      error_sample: sample ?? null,
      checker: { violations },
    };
  } finally {
    await design.close();
  }
}
