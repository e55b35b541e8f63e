/**
 * What one page read reports: the first page's cache result, the latency by page and by where
 * the order came from, and later pages that found the grid changed under their cursor.
 */
import type { PageHead } from '../../domain/grid-source.js';
import { firstPageReads, gridChanged, pageReadDuration } from '../../obs/metrics.js';

/**
 * `fromCachedOrder`: the page was sliced from a cached order. It counts as served by the cache
 * only when Redis answered the head too; a fill's fresh order was read from Cassandra.
 */
export function recordPageRead(
  read: PageHead,
  opts: {
    firstPage: boolean;
    fromCachedOrder: boolean;
    /** Read from a reordered copy (`source="copy"`). */
    fromCopy: boolean;
    changed: boolean;
    seconds: number;
  },
): void {
  const page = opts.firstPage ? 'first' : 'later';
  const source =
    opts.fromCachedOrder && read.cache === 'hit' ? 'cache' : opts.fromCopy ? 'copy' : 'cassandra';
  pageReadDuration.observe({ page, source }, opts.seconds);
  if (opts.firstPage) firstPageReads.inc({ result: read.cache ?? 'bypass' });
  if (opts.changed) gridChanged.inc();
}
