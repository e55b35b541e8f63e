/**
 * What one page read reports: the latency by page and by where the order came from, and later
 * pages that found the grid changed under their cursor. First pages the cache answered are
 * counted by the cache (cache/grid-cache.ts).
 */
import { gridChanged, pageReadDuration } from '../../obs/metrics.js';

export function recordPageRead(opts: {
  firstPage: boolean;
  /** Read from a reordered copy (`source="copy"`). */
  fromCopy: boolean;
  changed: boolean;
  seconds: number;
}): void {
  const page = opts.firstPage ? 'first' : 'later';
  const source = opts.fromCopy ? 'copy' : 'cassandra';
  pageReadDuration.observe({ page, source }, opts.seconds);
  if (opts.changed) gridChanged.inc();
}
