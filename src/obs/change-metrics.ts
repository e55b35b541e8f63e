/** Metric families of the change stream (service/changes/), on the process registry. */
import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from './registry.js';

export const changesPublished = new Counter({
  name: 'regrid_changes_published_total',
  help: 'Change events added to the streams, by who published them: the committing writer, or a roll-forward (by a later writer or the sweeper)',
  labelNames: ['by'] as const,
  registers: [registry],
});

export const changesPublishLag = new Histogram({
  name: 'regrid_changes_publish_lag_seconds',
  help: 'From a version being planned for commit to its event being in the stream',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const changesRolledForward = new Counter({
  name: 'regrid_changes_rolled_forward_total',
  help: 'Versions published by a roll-forward from the change log (their writer did not): by the next writer of the grid or by the sweeper',
  labelNames: ['by'] as const,
  registers: [registry],
});

export const changesLost = new Counter({
  name: 'regrid_changes_lost_versions_total',
  help: 'Unpublished versions the change log no longer held when rolled forward (never published)',
  registers: [registry],
});

export const changesPublishFailures = new Counter({
  name: 'regrid_changes_publish_failures_total',
  help: 'Marks or publishes Redis did not answer (left to the roll-forward); mark_late: a mark not answered within CHANGES_MARK_WAIT_MS (the batch went ahead)',
  labelNames: ['step'] as const,
  registers: [registry],
});

export const changesStreamLength = new Gauge({
  name: 'regrid_changes_stream_length',
  help: 'Entries in the change streams (XLEN summed over the shards, sampled by the sweeper)',
  registers: [registry],
});

export const changesPendingMarks = new Gauge({
  name: 'regrid_changes_pending_marks',
  help: 'Writers marks older than the sweep age at the last sweep (grids with a crashed writer)',
  registers: [registry],
});
