/**
 * What each `regrid` command takes: its summary, its --help text and its node:util parseArgs
 * options. Plain data and node:util only, so `regrid --help` loads nothing else.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface CommandSpec {
  readonly name: string;
  readonly summary: string;
  /** The body of `regrid <name> --help`, after the first line (the summary). */
  readonly help: string;
  readonly options: Options;
  /** Arguments the command parses itself (the load tester's zod schema); only --help is read here. */
  readonly passThrough?: boolean;
  /** A development tool: what to do instead in a production install. */
  readonly devOnly?: string;
}

const json = { json: { type: 'boolean' } } as const;

export const SPECS: readonly CommandSpec[] = [
  {
    name: 'serve',
    summary: 'run the HTTP service (what `npm start` runs)',
    help: `usage: regrid serve
Configured by environment variables only (docs/configuration.md). In development, with no
CASSANDRA_CONTACT_POINTS, it uses a local ring that runs under REGRID_HOME, else the local node
(provisioned when none answers). Stops on SIGINT; on SIGTERM /readyz answers 503 for
SHUTDOWN_DRAIN_MS before the listener closes.`,
    options: {},
  },
  {
    name: 'migrate',
    summary: 'create the keyspace and apply cql/*.cql (safe to repeat)',
    help: `usage: regrid migrate [--keyspace NAME] [--status | --dry-run] [--json]
  --keyspace NAME   migrate this keyspace instead of CASSANDRA_KEYSPACE
  --status          list applied and pending migrations; change nothing (exit 1 if any pending)
  --dry-run         the same as --status
  --json            {"keyspace","applied":[...],"pending":[...]}`,
    options: {
      keyspace: { type: 'string' },
      status: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      ...json,
    },
  },
  {
    name: 'audit',
    summary: 'consistency audit of the grids (exit 1 when anything is found)',
    help: `usage: regrid audit [--profile ID]... [--every <n>(ms|s|m|h) [--times N]] [--json]
  --profile ID      audit only these profiles (repeatable); default every profile
  --every D         repeat every D (each round sets regrid_audit_findings{kind}); the exit code
                    is the last round's
  --times N         stop after N rounds (default: until stopped)
  --json            one {"profiles","dirty":[{"profile_id","findings"}]} line per round`,
    options: {
      profile: { type: 'string', multiple: true },
      every: { type: 'string' },
      times: { type: 'string' },
      ...json,
    },
  },
  {
    name: 'takedown',
    summary: 'remove a post from every grid it is on (moderation)',
    help: `usage: regrid takedown <post_id> [--json]
Exit 1 when the post is not found.`,
    options: { ...json },
  },
  {
    name: 'flags',
    summary: 'list or set the operational flags (docs/ops/rollout.md)',
    help: `usage: regrid flags list [--json] | regrid flags set <name> on|off [--json]
Other processes follow a change within 2 × FLAGS_REFRESH_MS.`,
    options: { ...json },
  },
  {
    name: 'region',
    summary: "re-home grids: one profile's home region, or every grid of a lost region",
    help: `usage: regrid region set-home <profile_id> <region> [--json]
       regrid region failover --from DC [--to DC] [--json]
  set-home          one write in the grid's compare-and-set, Paxos at REGRID_REHOME_SERIAL
                    (SERIAL: every region's quorum must answer)
  failover          scans every grid's home (one pass over grid_overrides' partitions) and
                    re-homes those of --from to --to (default REGRID_REGION, else
                    CASSANDRA_LOCAL_DC) at LOCAL_SERIAL, since the lost region cannot answer;
                    run it again to finish what failed (docs/regions.md "Home regions")
Exit 1 when some grids could not be re-homed.`,
    options: { from: { type: 'string' }, to: { type: 'string' }, ...json },
  },
  {
    name: 'import',
    summary: "bring a platform's existing posts onto their grids (docs/integration.md)",
    help: `usage: regrid import --from-cql KEYSPACE.TABLE --profile-column C --post-column C [options]
       regrid import --from-ndjson FILE|-   (one post a line: profile_id, post_id, created_at?,
                                             caption?, media_url?)
  --created-column C --caption-column C --media-column C
                    more columns of the CQL source (IDs must be bigint columns)
  --slices N        token-ring slices of a CQL source (default 64)
  --parallel N      slices at a time (default 4)
  --rate N          source posts per second at most (default: unthrottled)
  --checkpoint FILE remember finished slices; a rerun with the same file resumes
  --json            the totals and every skipped row as one JSON line
Every row is checked by the API's rules; a row that breaks one is skipped and reported with its
line number (or source row key) and the reason (the first 10 on stderr, --json all of them).
The source is only read. A rerun changes nothing. Exit 1 when some posts were not imported
(conflicting bodies, invalid rows, failed slices); 3 when Redis (REDIS_URL) does not answer.`,
    options: {
      'from-cql': { type: 'string' },
      'from-ndjson': { type: 'string' },
      'profile-column': { type: 'string' },
      'post-column': { type: 'string' },
      'created-column': { type: 'string' },
      'caption-column': { type: 'string' },
      'media-column': { type: 'string' },
      slices: { type: 'string' },
      parallel: { type: 'string' },
      rate: { type: 'string' },
      checkpoint: { type: 'string' },
      ...json,
    },
  },
  {
    name: 'seed',
    summary: 'fill a demo profile with posts (what `npm run seed:demo` runs)',
    help: `usage: regrid seed [--posts N] [--profile ID]
  --posts N         posts to create, 1..10000 (default 300), one second to one day apart
  --profile ID      the profile to fill (default the demo profile the editor opens on)`,
    options: { posts: { type: 'string', default: '300' }, profile: { type: 'string' } },
    devOnly: 'To create posts in a deployment, use the HTTP API (POST /v1/me/posts).',
  },
  {
    name: 'cassandra',
    summary: 'the local Cassandra node or ring: up | down | status | stop-node | start-node',
    help: `usage: regrid cassandra <up | down | status | stop-node N | start-node N> [options]
  up [--nodes N] [--stop-single]
                    start the local node, or an N-node ring; a ring
                    refuses to start while the single node holds its ports unless --stop-single
  down [--node single|ring]
                    stop whatever runs under REGRID_HOME (the single node and the ring nodes)
  status [--json]   the single node and every ring node: address, pid, ports, state
                    (exit 0 up, 1 a ring node down, 3 nothing answers)
  stop-node N       SIGKILL ring node N (a crash; its data stays)
  start-node N      start ring node N again on its data
Every subcommand: [--storage-port P] [--jmx-port P] for a private node's internode and JMX
ports (default 7000, 7199). Folders and CQL port: REGRID_HOME, CASSANDRA_PORT
(docs/cluster.md, docs/provisioning.md).`,
    options: {
      nodes: { type: 'string' },
      'storage-port': { type: 'string' },
      'jmx-port': { type: 'string' },
      node: { type: 'string' },
      'stop-single': { type: 'boolean' },
      ...json,
    },
    devOnly:
      'In production point CASSANDRA_CONTACT_POINTS (and CASSANDRA_LOCAL_DC) at your cluster.',
  },
  {
    name: 'loadtest',
    summary: 'drive regrid and its peers with a seeded workload (docs/loadtest.md)',
    help: 'usage: regrid loadtest [options]   (the options: regrid loadtest --help in a checkout)',
    options: {},
    passThrough: true,
    devOnly: 'Run it from a development checkout against your own test node (loopback only).',
  },
];

export function specOf(name: string): CommandSpec {
  const spec = SPECS.find((s) => s.name === name);
  if (!spec) throw new Error(`no command '${name}'`);
  return spec;
}

export interface Parsed {
  readonly values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  readonly positionals: string[];
}

/** Strict parse of a command's arguments; a usage message instead of a throw. */
export function parseCommandArgs(
  spec: CommandSpec,
  args: readonly string[],
): Parsed | { error: string } {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { ...spec.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: !spec.passThrough,
    });
    return { values, positionals };
  } catch (err) {
    // node's message goes on about '--' for positionals; its first sentence says it all.
    const message = (err as Error).message.split('. To specify')[0];
    return { error: `${message} (regrid ${spec.name} --help)` };
  }
}
