/**
 * Reset to chronological order: drop every override row of the profile in the CAS batch, keeping
 * the statics (version, generation, pins) so the version keeps counting up (caches and cursors
 * are keyed by it; a restarted version could reuse a number for a different order).
 *
 * Pins are kept: they are not part of the order being reset. Cost: one range delete
 * (`post_id >= -2^63`) inside the conditional batch: a single range tombstone in the override
 * partition, whatever the number of overrides (see docs/write-paths.md for the measurement).
 * A grid with no overrides is still bumped (the request is a write; it costs no tombstone then).
 * Refused while `writes.reorder` is off, like every reorder write.
 */
import type { Flags } from '../flags.js';
import type { GridWriter, WriteOptions } from '../write-line/write-line.js';
import { trackOp } from '../write-line/write-op.js';

export interface ResetPorts {
  readonly writer: Pick<GridWriter, 'writeGrid'>;
  readonly flags: Pick<Flags, 'require'>;
}

export function resetGrid(ports: ResetPorts, profileId: bigint, options: WriteOptions = {}) {
  return trackOp('reset', async () => {
    await ports.flags.require('writes.reorder');
    return ports.writer.writeGrid(
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
      { ...options, op: 'reset' },
    );
  });
}
