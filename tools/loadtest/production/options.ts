/**
 * `--workload production` options (docs/loadtest.md "Production-shaped workload"): the zod
 * schema is the source of truth; argv goes through node:util parseArgs first. `--env KEY=VALUE`
 * may be repeated: each reaches the service under test (the child process's environment over
 * HTTP, createRegrid's settings direct), so a mechanism can be switched off by its own setting.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { DEFAULT_PG_URL } from '../usage.js';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const share = z.coerce.number().min(0).max(1);

const ProductionFields = z
  .object({
    workload: z.literal('production'),
    /** `direct` (the app's request() in this process), `http` (a child server), or both. */
    transport: z.enum(['direct', 'http', 'both']).default('both'),
    profiles: int(3, 100_000).default(10_000),
    celebrities: int(0, 20).default(3),
    celebrityShare: share.default(0.1),
    zipf: z.coerce.number().min(0).max(3).default(1),
    reordered: share.default(0.05),
    readShare: share.default(0.95),
    writers: int(1, 1_000).default(32),
    writerPosts: int(4, 200).default(24),
    pageSize: int(1, 100).default(24),
    burst: int(0, 10_000).default(1_000),
    burstWidth: int(1, 200).default(50),
    seconds: z.coerce.number().min(1).max(3_600).default(15),
    warmup: z.coerce.number().min(0).max(600).default(5),
    concurrency: int(1, 1_024).default(64),
    seed: int(0, 2 ** 31 - 1).default(1),
    keyspace: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,47}$/)
      .default('regrid_production'),
    redisUrl: z.string().default('redis://127.0.0.1:6379/13'),
    env: z
      .array(z.string().regex(/^[A-Z][A-Z0-9_]*=.*$/, 'KEY=VALUE'))
      .default([])
      .transform((pairs) =>
        Object.fromEntries(
          pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]),
        ),
      ),
    /** `postgres`: the seed's PostgreSQL design runs the same traffic too, after regrid (pg-run.ts). */
    design: z.enum(['regrid', 'postgres']).default('regrid'),
    pgUrl: z.string().default(DEFAULT_PG_URL),
    json: z.string().optional(),
  })
  .strict();

export type ProductionOptions = z.infer<typeof ProductionFields>;

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

export function parseProductionOptions(argv: readonly string[]): ProductionOptions {
  const options = Object.fromEntries(
    Object.keys(ProductionFields.shape).map((k) => [
      kebab(k),
      k === 'env' ? { type: 'string' as const, multiple: true } : { type: 'string' as const },
    ]),
  );
  const { values } = parseArgs({ args: [...argv], options, strict: true });
  const raw = Object.fromEntries(Object.entries(values).map(([k, v]) => [camel(k), v]));
  const parsed = ProductionFields.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  --${kebab(i.path.join('.'))}: ${i.message}`);
    throw new Error(`invalid production-workload options:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
