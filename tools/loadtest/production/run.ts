/**
 * `npm run loadtest -- --workload production [options]`: the production-shaped workload
 * (issue #32). Seeds (or reuses) the population, then for each transport: warm-up, a closed run
 * at `--concurrency` workers (throughput at saturation), an open run at half that throughput
 * (p50/p99/p999, cache hit ratio, CPU per request) with the platform burst started at its
 * beginning, then the checker on the writer grids (verify.ts: violations, tombstones no removal
 * explains). Options: options.ts; method and figures: docs/benchmarks.md "Production-shaped
 * workload".
 */
import { writeFile } from 'node:fs/promises';
import { loadConfig } from '../../../src/config/config.js';
import { composeId } from '../../../src/domain/ids.js';
import { issueServiceToken } from '../../../src/http/service-auth.js';
import { connectCluster } from '../cluster.js';
import { createGrids } from '../grid-model.js';
import { newMixLog } from '../mixed-history.js';
import { freshProfileIds } from '../session.js';
import { LatencyRecorder } from '../stats.js';
import { verifyRun } from '../verify.js';
import { SendDesign } from './client.js';
import { runPostgres } from './pg-run.js';
import type { ProductionOptions } from './options.js';
import { popularity } from './population.js';
import { seedPopulation } from './seed.js';
import { openTarget, type Target } from './target.js';
import { KINDS, Traffic, type Tally } from './traffic.js';

const SETTLE_MS = 2_000;
const r2 = (x: number | null | undefined) => (x == null ? null : Math.round(x * 100) / 100);

/** A counter's value summed over the series matching `labels` in Prometheus text. */
export function counterOf(text: string, name: string, labels = ''): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (labels && !line.includes(labels)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/**
 * The platform burst: a service client registers `posts` posts on one fresh profile through the
 * service route, `width` requests in flight; a 503 is sent again after its Retry-After (as a
 * client of the route must: the route is idempotent), at most `RETRIES` times.
 */
const RETRIES = 30;
async function burst(target: Target, posts: number, width: number) {
  const profileId = freshProfileIds(1)[0]!;
  const token = issueServiceToken(target.serviceSecret, 'loadtest-platform');
  const latency = new LatencyRecorder();
  const statuses: Record<string, number> = {};
  const final: Record<string, number> = {};
  let requests = 0;
  const now = Date.now() - 3_600_000;
  const ids = Array.from({ length: posts }, (_, i) =>
    composeId({ ms: now - Math.floor(i / 1024), worker: 8189, sequence: i % 1024 }),
  );
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, posts) }, async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        for (let attempt = 1; ; attempt++) {
          const s = performance.now();
          requests++;
          const res = await target.send(
            'PUT',
            `/v1/profiles/${profileId}/posts/${id}`,
            { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            JSON.stringify({ caption: `platform backlog ${id}` }),
          );
          latency.record(performance.now() - s);
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (res.status !== 503 || attempt >= RETRIES) {
            final[res.status] = (final[res.status] ?? 0) + 1;
            break;
          }
          await new Promise((r) => setTimeout(r, 1000 * Number(res.retryAfter ?? 0.1)));
        }
      }
    }),
  );
  return {
    profileId: String(profileId),
    posts,
    width,
    seconds: r2((performance.now() - t0) / 1000),
    requests,
    p50Ms: r2(latency.percentile(50)),
    p99Ms: r2(latency.percentile(99)),
    statuses,
    final,
  };
}

function latencies(t: Tally) {
  return Object.fromEntries(
    KINDS.map((k) => {
      const l = t.latency[k];
      return [
        k,
        {
          n: l.count,
          p50: r2(l.percentile(50)),
          p99: r2(l.percentile(99)),
          p999: r2(l.percentile(99.9)),
        },
      ];
    }),
  );
}

function allLatency(t: Tally) {
  const a = t.all;
  return {
    n: a.count,
    p50: r2(a.percentile(50)),
    p99: r2(a.percentile(99)),
    p999: r2(a.percentile(99.9)),
  };
}

export async function runProduction(o: ProductionOptions, log: (line: string) => void) {
  const contactPoints = process.env.CASSANDRA_CONTACT_POINTS || '127.0.0.1';
  const config = {
    ...loadConfig({ ...process.env, CASSANDRA_CONTACT_POINTS: contactPoints }),
    CASSANDRA_KEYSPACE: o.keyspace,
  };
  const cluster = await connectCluster(config, log);
  const out: Record<string, unknown> = { options: { ...o }, runs: {} };
  try {
    const shape = {
      profiles: o.profiles,
      celebrities: o.celebrities,
      celebrityShare: o.celebrityShare,
      zipf: o.zipf,
      reordered: o.reordered,
      seed: o.seed,
    };
    log(`[seed] ${o.profiles} profiles in keyspace ${o.keyspace} (reused when already there)`);
    const { plans, report } = await seedPopulation(cluster.client, config, shape, log);
    out.population = report;
    log(`[seed] ${JSON.stringify(report)}`);
    const pick = popularity(shape);
    const profileOf = (rng: Parameters<typeof pick>[0]) => plans[pick(rng)]!.profileId;
    const transports = o.transport === 'both' ? (['direct', 'http'] as const) : [o.transport];
    for (const transport of transports) {
      const target = await openTarget(
        transport,
        cluster.client,
        {
          keyspace: o.keyspace,
          redisUrl: o.redisUrl,
          contactPoints,
          connections: Math.max(o.concurrency, 64),
          env: o.env,
        },
        log,
      );
      try {
        const design = new SendDesign(transport, target.send, target.secret);
        log(`[${transport}] ${o.writers} writer grids × ${o.writerPosts} posts`);
        const writers = await createGrids(design, freshProfileIds(o.writers), o.writerPosts, 8);
        for (const g of writers) g.mix = newMixLog(g.posts);
        const traffic = new Traffic(target.send, design, writers, profileOf, o);
        log(`[${transport}] warm-up ${o.warmup} s`);
        await traffic.closed(o.concurrency, o.warmup, o.seed);
        traffic.reset();
        let cpu0 = await target.cpuUs();
        log(`[${transport}] saturation: ${o.concurrency} workers, ${o.seconds} s`);
        const done = await traffic.closed(o.concurrency, o.seconds, o.seed + 1);
        const satCpu = (await target.cpuUs()) - cpu0;
        const saturation = done / o.seconds;
        const sat = traffic.tally;
        const rate = saturation / 2;
        traffic.reset();
        log(
          `[${transport}] half of saturation: ${rate.toFixed(0)} ops/s, ${o.seconds} s, burst of ${o.burst}`,
        );
        const m0 = await target.metrics();
        cpu0 = await target.cpuUs();
        const [open, platform] = await Promise.all([
          traffic.open(rate, o.seconds, o.seed + 2),
          o.burst > 0 ? burst(target, o.burst, o.burstWidth) : Promise.resolve(null),
        ]);
        const halfCpu = (await target.cpuUs()) - cpu0;
        const m1 = await target.metrics();
        const half = traffic.tally;
        const d = (name: string, labels = '') =>
          counterOf(m1, name, labels) - counterOf(m0, name, labels);
        const misses =
          d('regrid_first_page_reads_total', 'result="miss"') +
          d('regrid_first_page_reads_total', 'result="bypass"');
        const orderHits = d('regrid_first_page_reads_total', 'result="hit"');
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        log(`[${transport}] checking ${writers.length} writer grids`);
        const v = await verifyRun(design, writers, cluster.client);
        const run = {
          transport,
          saturation: {
            ops_per_s: r2(saturation),
            workers: o.concurrency,
            errors: sat.errors,
            cpu_us_per_request: r2(satCpu / Math.max(done, 1)),
            writes: sat.ops,
          },
          half: {
            rate_per_s: r2(rate),
            started: open.started,
            skipped: open.skipped,
            latency_all_ms: allLatency(half),
            latency_ms: latencies(half),
            statuses: half.statuses,
            errors: half.errors,
            error_sample: half.errorSample ?? null,
            first_pages: half.firstPages,
            not_modified: half.notModified,
            cache_hit_ratio: r2(half.firstPages > 0 ? 1 - misses / half.firstPages : null),
            first_page_order_misses: misses,
            first_page_order_cache_hits: orderHits,
            cpu_us_per_request: r2(halfCpu / Math.max(open.started + (platform?.requests ?? 0), 1)),
            writes: half.ops,
          },
          burst: platform,
          checker: {
            violations: v.violations.length,
            violation_sample: v.violations.slice(0, 3),
            tombstones_total: v.tombstones.total,
            tombstones_by_cause: v.causes?.byCause ?? null,
            tombstones_unexplained: v.causes
              ? Object.values(v.causes.unexplained).reduce((s, n) => s + n, 0)
              : null,
          },
        };
        (out.runs as Record<string, unknown>)[transport] = run;
        log(`[${transport}] ${JSON.stringify(run)}`);
      } finally {
        await target.close();
      }
    }
    if (o.design === 'postgres') {
      try {
        const run = await runPostgres(o, plans, pick, log);
        (out.runs as Record<string, unknown>).postgres = run;
        log(`[postgres] ${JSON.stringify(run)}`);
      } catch (err) {
        log(`[postgres] not run: ${(err as Error).message}`);
        (out.runs as Record<string, unknown>).postgres = { not_run: (err as Error).message };
      }
    }
    if (o.json)
      await writeFile(
        o.json,
        JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? String(v) : v), 2),
      );
    return out;
  } finally {
    await cluster.close();
  }
}
