/**
 * The two correctness signals of design §8 that must stay at zero mismatches: shadow reads (for
 * profiles without overrides, the new merged read against the plain chronological one) and cache
 * sampling (a cached first page against Cassandra at the same version). Recorded by
 * service/read/read-checks.ts; errors while checking count as `error`, never as a mismatch.
 */
import { Counter } from 'prom-client';
import { registry } from './registry.js';

export const shadowReads = new Counter({
  name: 'regrid_shadow_reads_total',
  help: 'Sampled first-page reads of profiles without overrides, compared with the chronological read',
  labelNames: ['result'] as const,
  registers: [registry],
});

export const cacheSamples = new Counter({
  name: 'regrid_cache_samples_total',
  help: 'Sampled first-page cache hits whose version equals Cassandra, compared with Cassandra',
  labelNames: ['result'] as const,
  registers: [registry],
});

export type CheckResult = 'match' | 'mismatch' | 'error';
