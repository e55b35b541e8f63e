/**
 * Re-homing grids (docs/regions.md "Home regions"): the platform's service route and the
 * operator commands `regrid region set-home` and `regrid region failover`. Each re-home is one
 * write through the write line (write-line/home-region.ts `rehomePlanner`): decided on the
 * snapshot its compare-and-set is conditioned on, one version, its Paxos at REGRID_REHOME_SERIAL.
 */
import { DomainError } from '../../domain/errors.js';
import type { HomeRegionStore } from '../../store/home-region-store.js';
import { countRehome, rehomePlanner, type RehomeResult } from '../write-line/home-region.js';
import type { GridWriter, WriteOutcome } from '../write-line/write-line.js';
import type { StatementScope } from '../../store/statement-scope.js';

const REGION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** A region name as Cassandra names data centers (and nothing a null or empty could hide in). */
export function checkRegionName(region: string, what = 'region'): string {
  if (!REGION_NAME.test(region)) {
    throw new DomainError(
      'invalid_request',
      `${what} must be a data center name (1-64 of A-Z a-z 0-9 _ . -)`,
      {
        [what]: region,
      },
    );
  }
  return region;
}

/** Sets the grid's home to `region` (a 200 that writes nothing when it is already there). */
export async function setHomeRegion(
  writer: Pick<GridWriter, 'writeGrid'>,
  profileId: bigint,
  region: string,
  scope?: StatementScope,
): Promise<WriteOutcome<RehomeResult>> {
  const to = checkRegionName(region);
  const out = await writer.writeGrid(profileId, rehomePlanner(profileId, to, 'set'), {
    anyRegion: true,
    scope,
  });
  if (out.committed) countRehome('set');
  return out;
}

export interface FailoverReport {
  /** Grids scanned (every override partition). */
  readonly scanned: number;
  /** Grids homed in `from` when scanned. */
  readonly homedThere: number;
  readonly rehomed: number;
  /** Re-homed meanwhile by someone else, or no longer homed in `from` (nothing written). */
  readonly skipped: number;
  readonly failed: Array<{ readonly profileId: bigint; readonly error: string }>;
}

/**
 * Re-homes every grid whose home is `from` to `to`: a scan of the homes (HomeRegionStore), then
 * one conditional write per such grid, `concurrency` at a time, each only if its home is still
 * `from` in the snapshot it is planned on. Failures are reported, never stop the others; running
 * it again finishes what is left.
 */
export async function failoverRegion(
  writer: Pick<GridWriter, 'writeGrid'>,
  homes: Pick<HomeRegionStore, 'homes'>,
  from: string,
  to: string,
  concurrency = 8,
): Promise<FailoverReport> {
  checkRegionName(from, 'from');
  checkRegionName(to, 'to');
  if (from === to) throw new DomainError('invalid_request', '--from and --to must differ');
  let scanned = 0;
  let homedThere = 0;
  let rehomed = 0;
  let skipped = 0;
  const failed: Array<{ profileId: bigint; error: string }> = [];
  const one = async (profileId: bigint) => {
    try {
      const planner = rehomePlanner(profileId, to, 'failover', from);
      const out = await writer.writeGrid(profileId, planner, { anyRegion: true });
      if (out.committed) {
        rehomed += 1;
        countRehome('failover');
      } else skipped += 1;
    } catch (e) {
      failed.push({ profileId, error: e instanceof Error ? e.message : String(e) });
    }
  };
  for await (const page of homes.homes()) {
    scanned += page.length;
    const mine = page.filter((h) => h.homeRegion === from).map((h) => h.profileId);
    homedThere += mine.length;
    for (let i = 0; i < mine.length; i += concurrency) {
      await Promise.all(mine.slice(i, i + concurrency).map(one));
    }
  }
  return { scanned, homedThere, rehomed, skipped, failed };
}
