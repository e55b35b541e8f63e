/**
 * Load-test options: the zod schema is the source of truth, the CLI only turns `--flag value`
 * pairs into an object and hands it to `parseOptions`. Bounds are deliberate: a load test must stop
 * by itself, so every loop it runs is capped by `--moves` or `--duration`.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import { parseMix } from './mix.js';
import { resolveShape, SCENARIOS } from './scenario.js';
import { DEFAULT_PG_URL } from './usage.js';

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

const LoadtestFields = z
  .object({
    target: LoopbackUrl.optional(),
    direct: z.boolean().default(false),
    jwtSecret: z.string().min(16).optional(),
    design: z.enum(['regrid', 'naive', 'postgres']).default('regrid'),
    compare: z.boolean().default(false),
    pgUrl: LoopbackUrl.default(DEFAULT_PG_URL),
    /**
     * The mixed workload (mix.ts): `default` or `moves=60,creates=10,pins=8,archive=12,deletes=5,batch=5`;
     * --moves then counts operations of every kind.
     */
    mix: z
      .string()
      .transform((spec, ctx) => {
        try {
          return parseMix(spec);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
          return z.NEVER;
        }
      })
      .optional(),
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
  .strict();

export const LoadtestOptionsSchema = LoadtestFields.superRefine((o, ctx) => {
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
  if (o.mix && (o.compare || o.design !== 'regrid')) {
    // The peers have no pins, archive or batch order.
    ctx.addIssue({ code: 'custom', message: '--mix runs regrid only (no --compare, no --design)' });
  }
  if (o.mix && o.scenario !== 'mixed') {
    ctx.addIssue({ code: 'custom', message: '--mix is a workload of its own: no --scenario' });
  }
  if (o.mix && o.posts < 4) {
    ctx.addIssue({ code: 'custom', message: '--mix needs --posts 4 or more' });
  }
  const shape = resolveShape(o);
  if ('error' in shape) ctx.addIssue({ code: 'custom', message: shape.error });
  if (o.hotPosts > o.posts) {
    ctx.addIssue({ code: 'custom', message: '--hot-posts must not exceed --posts' });
  }
}).transform((o) => ({
  ...o,
  // Checked above: the scenario's profiles, writers and hot share.
  ...(resolveShape(o) as Exclude<ReturnType<typeof resolveShape>, { error: string }>),
  mode: o.target ? ('http' as const) : ('direct' as const),
  mix: o.mix ?? null,
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

/** Switches: `--compare`; those on by default are turned off with `--no-…`. */
const SWITCHES = ['direct', 'compare'] as const;
const NEGATED = ['rawCeiling', 'tableMetrics', 'progress'] as const;

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Every flag as node:util parseArgs sees it: the schema's fields, kebab-cased. */
const FLAGS: NonNullable<ParseArgsConfig['options']> = Object.fromEntries([
  ...Object.keys(LoadtestFields.shape)
    .filter(
      (k) =>
        !(SWITCHES as readonly string[]).includes(k) && !(NEGATED as readonly string[]).includes(k),
    )
    .map((k) => [kebab(k), { type: 'string' }] as const),
  ...SWITCHES.map((k) => [kebab(k), { type: 'boolean' }] as const),
  ...NEGATED.map((k) => [`no-${kebab(k)}`, { type: 'boolean' }] as const),
]);

/**
 * Turns argv (`--profiles 10 --compare --json=out.json`) into a raw object for the schema, with
 * node:util parseArgs (strict: an unknown flag, a missing value or a stray argument throws).
 */
export function argvToObject(argv: readonly string[]): Record<string, unknown> {
  const { values } = parseArgs({ args: [...argv], options: FLAGS, strict: true });
  const out: Record<string, unknown> = {};
  for (const [flag, value] of Object.entries(values)) {
    if (flag.startsWith('no-')) out[camel(flag.slice(3))] = !value;
    else out[camel(flag)] = value;
  }
  return out;
}

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

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
