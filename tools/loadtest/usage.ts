/**
 * The load tester's --help text, apart from its zod schema (options.ts) so that `regrid loadtest
 * --help` loads nothing else.
 */

/** The seed design's peer: the machine's PostgreSQL (trust auth), its own database. */
export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/regrid_bench';

export const USAGE = `usage: regrid loadtest [options]   (npm run loadtest -- [options])
  --direct | --target URL     drive the service in-process (default) or a running regrid over HTTP
  --jwt-secret S              HS256 secret to mint per-profile tokens (default: AUTH_JWT_SECRET)
  --design regrid|naive|postgres  which grid design to drive (default regrid)
  --compare                   run all three on the same workload, side by side
  --pg-url URL                PostgreSQL for --design postgres (default PG_URL, else
                              ${DEFAULT_PG_URL}); skipped when it does not answer
  --scenario mixed|uncontended|hot
                              mixed (default): the workload below; uncontended: one writer per
                              profile (16 x 16 unless told), vs bare conditional batches on as many
                              partitions; hot: 16 writers on one profile, vs one partition, one writer
  --mix default|kind=w,...    mixed workload besides moves (regrid only): default = moves=60,
                              creates=10,pins=8,archive=12,deletes=5,batch=5; --moves counts
                              every operation; grids stay between posts/2 and 1.5 x posts
  --profiles N --posts N      profiles, and posts per profile (default 20 x 48)
  --moves N | --duration S    stop after N moves (default 2000) or S seconds
  --concurrency N             concurrent movers (default 8)
  --hot F --hot-posts K       share of moves aimed at K contended posts of profile #0 (0.2, 2)
  --top-share F               share of moves that go to the top of the grid (0.25)
  --seed N                    workload seed (default 1)
  --samples N                 read/tombstone samples taken during the run (default 20)
  --json PATH --chart PATH    write the JSON report / the SVG chart
  --no-raw-ceiling            skip the bare conditional-batch ceiling
  --no-table-metrics          skip flush + nodetool tablestats + sstablemetadata (local node only)
  --no-progress               no progress line on stderr
  --cluster N                 run on the local N-node ring under REGRID_HOME (RF min(3, N); started if down)
  --kill-node-at P%           SIGKILL a ring node when P% of the run is done (needs --cluster 3+)
  --restart-node-at P%        start it again on its data then (default: halfway to the end)
  --kill-node I               which node (default: the last; node 1 is the seed)

  --workload production       the production-shaped workload instead (own options, docs/benchmarks.md
                              "Production-shaped workload"): --transport direct|http|both,
                              --profiles N (10000), --seconds S (15), --warmup S, --concurrency N,
                              --writers N, --burst N, --zipf S, --celebrities N, --read-share F,
                              --keyspace K (regrid_production), --redis-url U, --design postgres,
                              --env KEY=VALUE (repeatable: a setting for the service under test)`;
