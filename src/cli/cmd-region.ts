/**
 * `regrid region set-home <profile_id> <region>` and `regrid region failover --from DC [--to DC]`
 * (docs/regions.md "Home regions"): re-homes through the write line, as the service route does
 * (service/operations/home-region.ts). Connects like the other operator commands (cmd-operator.ts)
 * without Redis: a re-home changes no order, so no cached page is wrong for it.
 *
 * Failover runs its Paxos at LOCAL_SERIAL (REGRID_REHOME_SERIAL=localSerial for this process
 * only): the lost region's replicas cannot answer a SERIAL round. What that can lose is in
 * docs/regions.md (writes the lost region acknowledged and had not replicated).
 */
import { commandService, openCassandra, type FindCassandra } from '../bootstrap.js';
import { loadConfig, type Config } from '../config/config.js';
import { parseId } from '../domain/ids.js';
import type { GridService } from '../service/grid-service.js';
import {
  checkRegionName,
  failoverRegion,
  setHomeRegion,
} from '../service/operations/home-region.js';
import { consistencyOf, type Cql } from '../store/cassandra.js';
import { HomeRegionStore } from '../store/home-region-store.js';
import type { Parsed } from './command-specs.js';
import { EXIT, UsageError } from './exit-codes.js';
import type { Io } from './regrid-commands.js';

type Job = (grid: GridService, config: Config, io: Io, cql: Cql) => Promise<number>;

export async function run(args: Parsed, io: Io, find: FindCassandra): Promise<number> {
  // Bad arguments throw here, before anything connects (cli-main.ts turns them into exit 2).
  const [job, failover] = prepare(args);
  const loaded = loadConfig();
  const base = failover ? { ...loaded, REGRID_REHOME_SERIAL: 'localSerial' as const } : loaded;
  const { config, target } = await find(base, (l) => io.err(l));
  // Failover verifies the schema (LOCAL_QUORUM) rather than applying it: applying claims every
  // migration with a SERIAL LWT, which the lost region's replicas cannot answer.
  const session = await openCassandra(config, () => undefined, failover ? 'verify' : 'apply', target); // prettier-ignore
  try {
    const grid = commandService(session.cql, config);
    return await job(grid, config, io, session.cql);
  } finally {
    await session.client.shutdown();
  }
}

function prepare({ values, positionals }: Parsed): [Job, boolean] {
  const [sub, ...rest] = positionals;
  const json = values['json'] === true;
  if (sub === 'set-home') {
    if (rest.length !== 2) throw new UsageError('set-home takes <profile_id> <region>');
    const profileId = parseId(rest[0]!, 'profile_id');
    const region = checkRegionName(rest[1]!);
    return [
      async (grid, _config, io) => {
        const out = await setHomeRegion(grid.writer, profileId, region);
        const from = out.result.from ?? null;
        if (json) {
          io.out(
            JSON.stringify({
              profile_id: profileId.toString(),
              home_region: region,
              previous_home_region: from,
              changed: out.committed,
              grid_version: out.version.toString(),
            }),
          );
        } else {
          const what = out.committed ? `re-homed from ${from ?? '(none)'}` : 'already homed there';
          io.out(`profile ${profileId}: home ${region} (${what}), grid version ${out.version}`);
        }
        return EXIT.ok;
      },
      false,
    ];
  }
  if (sub === 'failover') {
    if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`);
    const from = values['from'];
    if (typeof from !== 'string') throw new UsageError('failover needs --from DC');
    checkRegionName(from, 'from');
    const given = values['to'];
    return [
      async (grid, config, io, cql) => {
        const to =
          typeof given === 'string' ? given : (config.REGRID_REGION ?? config.CASSANDRA_LOCAL_DC);
        const homes = new HomeRegionStore(cql, consistencyOf(config));
        const r = await failoverRegion(grid.writer, homes, from, to);
        if (json) {
          const failed = r.failed.map((f) => ({
            profile_id: f.profileId.toString(),
            error: f.error,
          }));
          io.out(JSON.stringify({ from, to, ...r, failed }));
        } else {
          io.out(
            `scanned ${r.scanned} grid(s): ${r.homedThere} homed in ${from}, ${r.rehomed} re-homed to ${to}, ` +
              `${r.skipped} re-homed meanwhile, ${r.failed.length} failed`,
          );
          for (const f of r.failed.slice(0, 10)) io.err(`  profile ${f.profileId}: ${f.error}`);
        }
        return r.failed.length > 0 ? EXIT.findings : EXIT.ok;
      },
      true,
    ];
  }
  throw new UsageError(`unknown subcommand '${sub ?? ''}' (set-home | failover)`);
}
