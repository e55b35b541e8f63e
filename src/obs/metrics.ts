/**
 * The service's metric families, registered once on the process registry (registry.ts). Labels
 * are small closed sets (operation names, problem codes, statement kinds, route patterns): a
 * profile or post ID never becomes a label, it would make one series per user.
 *
 * The seams that feed these live beside the code they observe: the grid writer (writes, CAS),
 * the Cql wrapper and its budget (statements), the cache stats object (cache-stats-metrics.ts),
 * the Redis guard, the page read, and one HTTP middleware (http/observe.ts).
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from './registry.js';

const registers = [registry];

/** Seconds buckets from 1 ms to 10 s: grid writes and page reads live between those. */
const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Attempts are bounded by CAS_MAX_ATTEMPTS (≤ 100, default 8). */
const ATTEMPTS = [1, 2, 3, 4, 5, 6, 8, 12, 20, 50, 100];
/** Rows a write touches: 1 for a plain move, up to a batch order of thousands. */
const ROWS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 1024, 4096];

// --- grid writes (service/write/) ------------------------------------------------------------

export const gridWrites = new Counter({
  name: 'regrid_grid_writes_total',
  help: 'Grid operations by operation and outcome (ok, or the problem code it ended with)',
  labelNames: ['op', 'outcome'] as const,
  registers,
});

export const gridWriteDuration = new Histogram({
  name: 'regrid_grid_write_duration_seconds',
  help: 'Duration of grid operations, rate limit and retries included',
  labelNames: ['op'] as const,
  buckets: SECONDS,
  registers,
});

export const casAttempts = new Histogram({
  name: 'regrid_cas_attempts',
  help: 'Compare-and-set attempts per grid write (read, plan, conditional batch)',
  labelNames: ['op'] as const,
  buckets: ATTEMPTS,
  registers,
});

export const casLost = new Counter({
  name: 'regrid_cas_lost_total',
  help: 'Conditional batches that lost to a concurrent writer (re-read and re-planned)',
  labelNames: ['op'] as const,
  registers,
});

export const casOutcomeUnknown = new Counter({
  name: 'regrid_cas_outcome_unknown_total',
  help: 'Conditional batches whose Paxos round timed out (outcome unknown; re-read decides)',
  labelNames: ['op'] as const,
  registers,
});

export const relabels = new Counter({
  name: 'regrid_relabels_total',
  help: 'Committed grid writes that rewrote the keys of posts nobody moved (relabels)',
  labelNames: ['op'] as const,
  registers,
});

export const relabelRows = new Histogram({
  name: 'regrid_relabel_rows',
  help: 'Rows relabelled per relabelling grid write',
  buckets: ROWS,
  registers,
});

export const rowsWritten = new Histogram({
  name: 'regrid_rows_written',
  help: 'Override rows written or deleted per committed grid write',
  labelNames: ['op'] as const,
  buckets: [0, ...ROWS],
  registers,
});

export const groupWrites = new Histogram({
  name: 'regrid_group_commit_writes',
  help: 'Grid writes committed per conditional batch (group commit; 1 = a write alone)',
  buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
  registers,
});

export const rateLimited = new Counter({
  name: 'regrid_rate_limited_total',
  help: 'Moves refused by the per-profile move rate limit',
  registers,
});

// --- page reads (service/read/, cache/) -------------------------------------------------------

export const firstPageReads = new Counter({
  name: 'regrid_first_page_reads_total',
  help: 'First-page reads by cache result: hit, miss (filled or read from Cassandra), bypass (no cache)',
  labelNames: ['result'] as const,
  registers,
});

export const pageReadDuration = new Histogram({
  name: 'regrid_page_read_duration_seconds',
  help: 'Duration of grid page reads by page (first/later) and where the order came from',
  labelNames: ['page', 'source'] as const,
  buckets: SECONDS,
  registers,
});

export const gridChanged = new Counter({
  name: 'regrid_grid_changed_total',
  help: 'Later pages whose cursor was issued at another grid version (grid_changed: true)',
  registers,
});

export const pageRereads = new Counter({
  name: 'regrid_page_rereads_total',
  help: 'Page reads started again because the grid changed under them (rows: its posts changed after the head; bodies: a post was deleted meanwhile)',
  labelNames: ['reason'] as const,
  registers,
});

export const minVersionEscalations = new Counter({
  name: 'regrid_min_version_escalations_total',
  help: 'Head reads below the caller min_version at LOCAL_QUORUM, re-read at LOCAL_SERIAL',
  registers,
});

// --- cache and Redis (cache/) -----------------------------------------------------------------

export const cacheFills = new Counter({
  name: 'regrid_cache_fills_total',
  help: 'First pages read from Cassandra and kept in the cache',
  registers,
});

export const cacheFallbacks = new Counter({
  name: 'regrid_cache_fallbacks_total',
  help: 'First pages read straight from Cassandra because Redis was unusable (direct reads)',
  registers,
});

export const cacheStaleSetsRejected = new Counter({
  name: 'regrid_cache_stale_sets_rejected_total',
  help: 'Cache fills refused because a write invalidated the lease meanwhile',
  registers,
});

export const redisErrors = new Counter({
  name: 'regrid_redis_errors_total',
  help: 'Redis calls that failed or exceeded REDIS_TIMEOUT_MS',
  registers,
});

/** Each guard adds 1 while it is open and takes it back when it closes (cache/redis.ts). */
export const redisBreakerOpen = new Gauge({
  name: 'regrid_redis_breaker_open',
  help: 'Redis guards skipping Redis now (breaker cool-down or repair pending): 1 or 0 per process',
  registers,
});
