/**
 * A second service over a counting driver, for tests that say what one write sends: every
 * statement (`BATCH` for a batch) from the moment `sent` starts its call until it resolves.
 */
import type { Config } from '../../../src/config/config.js';
import { GridService } from '../../../src/service/grid-service.js';
import { cqlOf, type Cql } from '../../../src/store/cassandra.js';
import { idsFromWorkers } from '../support/stores.js';
import type { Features } from './harness.js';

export function countingService(f: Features, workers: number, config: Partial<Config> = {}) {
  const base = cqlOf(f.client);
  const seen: string[] = [];
  const cql: Cql = {
    execute: (q, p, o) => (seen.push(q), base.execute(q, p, o)),
    batch: (qs, o) => (seen.push('BATCH'), base.batch(qs, o)),
  };
  const service = new GridService({
    cql,
    config: { ...f.config, ...config },
    ids: idsFromWorkers(workers, 5),
    cursorSecret: 'counting-service-tests',
  });
  const sent = async (run: () => Promise<unknown>): Promise<string[]> => {
    seen.length = 0;
    await run();
    return [...seen];
  };
  return { service, sent };
}

/** The statements among `sent` that read the override partition. */
export const overrideReadsOf = (sent: readonly string[]) =>
  sent.filter((q) => /^SELECT .* FROM grid_overrides/.test(q));
