/**
 * Reset to chronological order: drop every override row of the profile in the CAS batch, keeping
 * the statics (version, generation, pins) so the version keeps counting up (caches and cursors
 * are keyed by it; a restarted version could reuse a number for a different order).
 *
 * Pins are kept: they are not part of the order being reset. Cost: one range delete
 * (`post_id >= -2^63`) inside the conditional batch: a single range tombstone in the override
 * partition, whatever the number of overrides (see docs/write-paths.md for the measurement).
 * A grid with no overrides is still bumped (the request is a write; it costs no tombstone then).
 */
import type { ServiceDeps } from '../deps.js';
import type { WriteOptions } from '../write/grid-writer.js';

export function resetGrid(deps: ServiceDeps, profileId: bigint, options: WriteOptions = {}) {
  return deps.writer.writeGrid(
    profileId,
    async ({ snapshot }) => {
      const dropped = snapshot.overrides.length;
      return {
        kind: 'write',
        mutation: dropped > 0 ? { clearOverrides: true } : {},
        result: { overridesDropped: dropped },
        change: { kind: 'reset', postIds: [] },
      };
    },
    options,
  );
}
