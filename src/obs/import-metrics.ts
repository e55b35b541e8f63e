/** Metric families of `regrid import` (service/import/), on the process registry. */
import { Counter } from 'prom-client';
import { registry } from './registry.js';

export const importedPosts = new Counter({
  name: 'regrid_import_posts_total',
  help: 'Source posts seen by an import, by outcome: imported, present (already there), removed (deleted or taken down before: the ID is spent), duplicate (the same as an earlier row of its chunk), conflict (another body), invalid (breaks the API rule)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const importErrors = new Counter({
  name: 'regrid_import_errors_total',
  help: 'Import chunks that failed (a store error or a lost compare-and-set) and were retried or left',
  registers: [registry],
});
