/**
 * Load-test options: the zod schema is the source of truth, the CLI only turns `--flag value`
 * pairs into an object and hands it to `parseOptions`. Bounds are deliberate: a load test must stop
 * by itself, so every loop it runs is capped by `--moves` or `--duration`.
 */
import { z } from 'zod';
import { resolveShape, SCENARIOS } from './scenario.js';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const share = z.coerce.number().min(0).max(1);
/** A point of the run: `50%` (of --moves, or of --duration). */
const percent = z
  .string()
  .regex(/^(100|[0-9]{1,2})(\.[0-9]+)?%$/, 'a share of the run such as 50%')
  .transform((v) => Number(v.slice(0, -1)) / 100);

/** Only loopback targets: the tool is for the user's own test node, never someone else's host. */
const LoopbackUrl = z
  .string()
  .url()
  .refine((u) => ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(u).hostname), {
    message: 'only loopback targets (127.0.0.1, localhost, ::1) are allowed',
  });

/** The seed design's peer: the machine's PostgreSQL (trust auth), its own database. */
const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/regrid_bench';

export const LoadtestOptionsSchema = z
  .object({
    target: LoopbackUrl.optional(),
    direct: z.boolean().default(false),
    jwtSecret: z.string().min(16).optional(),
    design: z.enum(['regrid', 'naive', 'postgres']).default('regrid'),
    compare: z.boolean().default(false),
    pgUrl: LoopbackUrl.default(DEFAULT_PG_URL),
    /** Who moves what (scenario.ts); profiles, concurrency and hot default per scenario. */
    scenario: z.enum(SCENARIOS).default('mixed'),
    profiles: int(1, 10_000).optional(),
    posts: int(2, 2_000).default(48),
    moves: int(1, 5_000_000).optional(),
    duration: z.coerce
      .number()
      .min(1)
      .max(24 * 3600)
      .optional(),
    concurrency: int(1, 512).optional(),
    hot: share.optional(),
    hotPosts: int(1, 50).default(2),
    topShare: share.default(0.25),
    seed: int(0, 2 ** 31 - 1).default(1),
    pageSize: int(1, 200).default(24),
    samples: int(2, 200).default(20),
    rawCeiling: z.boolean().default(true),
    tableMetrics: z.boolean().default(true),
    json: z.string().optional(),
    chart: z.string().optional(),
    progress: z.boolean().default(true),
    /** Run on the local ring of this many nodes under REGRID_HOME (started if it is not up). */
    cluster: int(1, 9).optional(),
    killNodeAt: percent.optional(),
    restartNodeAt: percent.optional(),
    /** The ring node to kill (default: the last one; node 1 is the seed). */
    killNode: int(2, 9).optional(),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.target && o.direct) {
      ctx.addIssue({ code: 'custom', message: 'choose one of --target URL and --direct' });
    }
    if (o.moves !== undefined && o.duration !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'choose one of --moves N and --duration S' });
    }
    if (o.target && o.design !== 'regrid' && !o.compare) {
      // The peers are not served over HTTP; they always run in-process.
      ctx.addIssue({
        code: 'custom',
        message: `--design ${o.design} runs in-process; use --direct`,
      });
    }
    if (o.killNodeAt !== undefined && (o.cluster ?? 1) < 3) {
      ctx.addIssue({ code: 'custom', message: '--kill-node-at needs --cluster 3 or more' });
    }
    if (o.restartNodeAt !== undefined && o.killNodeAt === undefined) {
      ctx.addIssue({ code: 'custom', message: '--restart-node-at needs --kill-node-at' });
    }
    if (o.restartNodeAt !== undefined && o.restartNodeAt <= (o.killNodeAt ?? 0)) {
      ctx.addIssue({ code: 'custom', message: '--restart-node-at must come after --kill-node-at' });
    }
    if (o.killNode !== undefined && o.killNode > (o.cluster ?? 1)) {
      ctx.addIssue({ code: 'custom', message: '--kill-node names a node outside the ring' });
    }
    const shape = resolveShape(o);
    if ('error' in shape) ctx.addIssue({ code: 'custom', message: shape.error });
    if (o.hotPosts > o.posts) {
      ctx.addIssue({ code: 'custom', message: '--hot-posts must not exceed --posts' });
    }
  })
  .transform((o) => ({
    ...o,
    // Checked above: the scenario's profiles, writers and hot share.
    ...(resolveShape(o) as Exclude<ReturnType<typeof resolveShape>, { error: string }>),
    mode: o.target ? ('http' as const) : ('direct' as const),
    // Neither given: a short default run.
    stop:
      o.duration !== undefined
        ? ({ kind: 'duration', seconds: o.duration } as const)
        : ({ kind: 'moves', count: o.moves ?? 2_000 } as const),
    designs: o.compare ? (['regrid', 'naive', 'postgres'] as const) : ([o.design] as const),
    // Killed at K, back halfway between K and the end unless told.
    fault:
      o.killNodeAt === undefined
        ? null
        : {
            node: o.killNode ?? o.cluster!,
            killAt: o.killNodeAt,
            restartAt: o.restartNodeAt ?? o.killNodeAt + (1 - o.killNodeAt) / 2,
          },
  }));

export type LoadtestOptions = z.infer<typeof LoadtestOptionsSchema>;

const BOOLEAN_FLAGS = new Set([
  'direct',
  'compare',
  'no-raw-ceiling',
  'no-table-metrics',
  'no-progress',
]);

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * Turns argv (`--profiles 10 --compare --json=out.json`) into a raw object. Unknown flags are kept
 * so that the strict schema reports them instead of silently ignoring a typo.
 */
export function argvToObject(argv: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument '${arg}'`);
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (BOOLEAN_FLAGS.has(flag)) {
      if (eq !== -1) throw new Error(`--${flag} takes no value`);
      if (flag.startsWith('no-')) out[camel(flag.slice(3))] = false;
      else out[camel(flag)] = true;
      continue;
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined || (eq === -1 && value.startsWith('--'))) {
      throw new Error(`--${flag} needs a value`);
    }
    out[camel(flag)] = value;
  }
  return out;
}

/** Parses CLI arguments (plus defaults from the environment, e.g. the JWT secret). */
export function parseOptions(
  argv: readonly string[],
  defaults: Record<string, unknown> = {},
): LoadtestOptions {
  const raw = { ...defaults, ...argvToObject(argv) };
  const parsed = LoadtestOptionsSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (i) => `  ${i.path.length ? `--${i.path.join('.')}: ` : ''}${i.message}`,
    );
    throw new Error(`invalid load-test options:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

export const USAGE = `usage: npm run loadtest -- [options]
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
  --kill-node I               which node (default: the last; node 1 is the seed)`;
