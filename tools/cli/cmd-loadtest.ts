/**
 * `regrid loadtest [options]` (`npm run loadtest -- [options]`): drives regrid (in-process, or a running server over HTTP) and
 * the naive delete + insert table with the same seeded workload, checks every grid against the
 * acknowledged moves, counts tombstones from Cassandra's own accounting, and reports (summary on
 * stdout, progress and logs on stderr, optional JSON and SVG). See docs/loadtest.md.
 */
import { ConfigurationError, loadConfig, type Config } from '../../src/config/config.js';
import { splitSettings } from '../dev-settings.js';
import type { DesignName, GridDesign } from '../loadtest/design.js';
import { connectCluster } from '../loadtest/cluster.js';
import { NaiveDesign } from '../loadtest/naive-design.js';
import { parseOptions, type LoadtestOptions } from '../loadtest/options.js';
import { USAGE } from '../loadtest/usage.js';
import { PostgresDesign } from '../loadtest/postgres-design.js';
import { RegridDirectDesign } from '../loadtest/regrid-direct-design.js';
import { RegridHttpDesign } from '../loadtest/regrid-http-design.js';
import { parseProductionOptions } from '../loadtest/production/options.js';
import { runProduction } from '../loadtest/production/run.js';
import { ringFaultEvents, ringTarget } from '../loadtest/ring-fault.js';
import { runSession } from '../loadtest/session.js';
import type { Parsed } from '../../src/cli/command-specs.js';
import { EXIT } from '../../src/cli/exit-codes.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

/** The arguments reach the zod schema as typed (options.ts parses them). */
export async function run(_parsed: Parsed, _io: unknown, args: readonly string[]): Promise<number> {
  // The production-shaped workload has options of its own (loadtest/production/options.ts).
  if (args.some((a) => a === '--workload' || a.startsWith('--workload='))) {
    let production;
    try {
      production = parseProductionOptions(args);
    } catch (err) {
      log((err as Error).message);
      return EXIT.usage;
    }
    const out = await runProduction(production, log);
    console.log(
      JSON.stringify(out, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v), 2),
    );
    return EXIT.ok;
  }
  let config: Config;
  let options: LoadtestOptions;
  try {
    // `--set NAME=value`: a constant for this run (a measurement switching a mechanism off).
    const { settings, rest: argv } = splitSettings(args);
    config = loadConfig(process.env, settings);
    options = parseOptions(argv, {
      ...(config.AUTH_JWT_SECRET ? { jwtSecret: config.AUTH_JWT_SECRET } : {}),
      ...(process.env.PG_URL ? { pgUrl: process.env.PG_URL } : {}),
    });
  } catch (err) {
    if (err instanceof ConfigurationError) throw err;
    log((err as Error).message);
    log(USAGE);
    return EXIT.usage;
  }
  if (options.mode === 'http' && !options.jwtSecret) {
    log("--target needs the server's JWT secret: --jwt-secret S or AUTH_JWT_SECRET");
    return EXIT.usage;
  }

  if (options.cluster !== undefined && options.cluster > 1) {
    config = await ringTarget(config, options.cluster, log);
  }
  // openCassandra tags the provisioning lines [cassandra] itself.
  const cluster = await connectCluster(config, log);
  const events = ringFaultEvents(config, options, log);
  try {
    const makeDesign = async (name: DesignName): Promise<GridDesign> => {
      if (name === 'naive') return NaiveDesign.create(cluster.client, config);
      if (name === 'postgres') {
        // The sampler reads beside the movers: one connection more than the concurrency.
        const poolSize = options.concurrency + 2;
        return PostgresDesign.create({ url: options.pgUrl, poolSize, schema: 'loadtest' });
      }
      if (options.mode === 'http') {
        return RegridHttpDesign.create(options.target!, options.jwtSecret!, cluster.client, config);
      }
      return RegridDirectDesign.create(cluster.client, config);
    };
    const result = await runSession(options, {
      config,
      cluster,
      makeDesign,
      log,
      // nodetool and sstablemetadata reach only the node this machine runs.
      tableMetrics: options.tableMetrics && cluster.target.origin !== 'external',
      ...(events ? { events } : {}),
    });
    console.log(result.summary);
    if (options.json) log(`JSON report: ${options.json}`);
    if (options.chart) log(`chart: ${options.chart}`);
    return EXIT.ok;
  } finally {
    await cluster.close();
  }
}
