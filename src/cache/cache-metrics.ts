/**
 * The grid cache's counters as Prometheus counters. The cache already counts everything that
 * matters in its stats object (tests and benchmarks read it); wrapping that object means every
 * existing `stats.x += n` is also exported, without a second set of calls in the protocol code.
 */
import type { Counter } from 'prom-client';
import {
  cacheFallbacks,
  cacheFills,
  cacheLeaseWaits,
  cachePreviousServed,
  cacheStaleSetsRejected,
} from '../obs/metrics.js';
import type { GridCacheStats } from './grid-cache-types.js';

/** Stats fields without a family here (`hits`, `notCachedVersionMoved`) stay local. */
const EXPORTED: Partial<Record<keyof GridCacheStats, Counter>> = {
  fills: cacheFills,
  directReads: cacheFallbacks,
  leaseWaits: cacheLeaseWaits,
  previousServed: cachePreviousServed,
  staleSetsRejected: cacheStaleSetsRejected,
};

/** Fresh counters (all zero), whose increments also go to the matching Prometheus counter. */
export function exportedStats(): GridCacheStats {
  const stats: GridCacheStats = {
    hits: 0,
    fills: 0,
    directReads: 0,
    leaseWaits: 0,
    previousServed: 0,
    staleSetsRejected: 0,
    notCachedVersionMoved: 0,
  };
  return new Proxy(stats, {
    set(target, field: keyof GridCacheStats, value: number) {
      const delta = value - target[field];
      if (delta > 0) EXPORTED[field]?.inc(delta);
      target[field] = value;
      return true;
    },
  });
}
