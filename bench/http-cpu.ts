/**
 * `npx tsx bench/http-cpu.ts [--seconds 3] [--rounds 5]`: the serving process's CPU time per
 * request, which moves far less than requests/s when other work shares the machine. autocannon
 * runs in a child process (so none of its work is counted), against, in interleaved rounds: a
 * bare Hono route returning a first page's bytes, a route doing one Redis GET of them, the app
 * wired as src/server.ts wires it (deadlines, request log to the null device) answering the held
 * first page and its 304, and the same app with the logger silent (what the log line costs).
 * Prints the median CPU µs per request and requests/s of each, with every round's figure.
 * Uses keyspace `regrid_bench`, the hot profile of `bench:read` (seeded by it).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Hono } from 'hono';
import { openIdGenerator } from '../src/bootstrap.js';
import { createRedisGuard } from '../src/cache/redis.js';
import { loadConfig } from '../src/config/config.js';
import { createLogger, type Logger } from '../src/obs/logger.js';
import { GridService } from '../src/service/grid-service.js';
import { listen } from './read/http.js';
import { HOT_PROFILE } from './read/seed.js';
import { nullDeviceLogger, productionApp } from './read/wired.js';
import { openLocalCassandra } from '../tools/infra/dev-stores.js';

const { values: args } = parseArgs({
  options: { seconds: { type: 'string', default: '3' }, rounds: { type: 'string', default: '5' } },
});
const config = { ...loadConfig(), CASSANDRA_KEYSPACE: 'regrid_bench', REDIS_TIMEOUT_MS: 1000 };
const session = await openLocalCassandra(config, () => {});
const guard = createRedisGuard(config, {});
if (!(await guard.waitReady(5000))) throw new Error('this benchmark needs Redis');
const { ids, lease } = await openIdGenerator(session.cql, config, (w, why) => {
  throw new Error(`lost worker lease ${w}: ${why}`);
});
const secret = randomBytes(24).toString('base64url');
const path = `/v1/profiles/${HOT_PROFILE}/grid?limit=24`;
const closers: Array<() => Promise<void>> = [];

async function served(logger: Logger) {
  const service = new GridService({
    cql: session.cql,
    config,
    ids,
    cursorSecret: secret,
    redis: guard,
  });
  const app = productionApp(service, { secret, config, logger });
  await app.request(path); // fills the order cache
  const kept = await app.request(path); // renders and keeps the page
  const s = await listen(app);
  closers.push(s.close);
  return { base: s.base, body: await kept.text(), etag: kept.headers.get('etag') ?? '' };
}

const logged = await served(nullDeviceLogger(config));
const silent = await served(createLogger({ level: 'silent' }));
const floorKey = `bench:cpu:{${HOT_PROFILE}}`;
await guard.client.set(floorKey, logged.body, 'EX', 600);
// A fresh object per answer: the adapter adds Content-Length to the one it is given.
const json = () => ({ 'content-type': 'application/json' });
const ceilings = new Hono();
ceilings.get('/bare', (c) => c.body(logged.body, 200, json()));
ceilings.get('/floor', async (c) => c.body((await guard.client.get(floorKey)) ?? '', 200, json()));
const ceil = await listen(ceilings);
closers.push(ceil.close);

const configs: ReadonlyArray<readonly [string, string, string[]]> = [
  ['bare Hono route', ceil.base + '/bare', []],
  ['one Redis GET', ceil.base + '/floor', []],
  ['held first page', logged.base + path, []],
  ['304', logged.base + path, ['-H', `if-none-match: ${logged.etag}`]],
  ['held, log silent', silent.base + path, []],
];
const cannon = (url: string, headers: string[], seconds: string) =>
  new Promise<{ requests: { total: number; average: number } }>((resolve, reject) =>
    execFile(
      'node_modules/.bin/autocannon',
      ['-j', '-c', '32', '-d', seconds, ...headers, url],
      { maxBuffer: 1 << 24 },
      (err, out) => (err ? reject(err) : resolve(JSON.parse(out))),
    ),
  );
const cpu = new Map(configs.map(([name]) => [name, [] as number[]]));
const rps = new Map(configs.map(([name]) => [name, [] as number[]]));
try {
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const [name, url, headers] of configs) {
      if (round === 0) await cannon(url, headers, '1'); // warm-up
      const before = process.cpuUsage();
      const r = await cannon(url, headers, args.seconds);
      const used = process.cpuUsage(before);
      cpu.get(name)!.push((used.user + used.system) / r.requests.total);
      rps.get(name)!.push(Math.round(r.requests.average));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`server CPU per request, median of ${args.rounds} interleaved rounds`);
  for (const [name] of configs) {
    const c = cpu.get(name)!;
    const r = rps.get(name)!;
    console.log(
      `  ${name.padEnd(17)} ${median(c).toFixed(1).padStart(6)} µs  [${c.map((x) => x.toFixed(0)).join(' ')}]` +
        `   ${String(median(r)).padStart(6)} rps  [${r.join(' ')}]`,
    );
  }
} finally {
  for (const close of closers) await close();
  await guard.client.del(floorKey);
  await lease.release();
  await guard.close();
  await session.client.shutdown();
}
