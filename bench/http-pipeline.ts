/**
 * `npx tsx bench/http-pipeline.ts [--seconds 2] [--rounds 2]`: where a cached first page's time
 * goes over HTTP. One process serves, side by side and driven by autocannon in turn: a bare Hono
 * route returning the page's bytes, a route doing one Redis GET of them (the floor of any Redis
 * hit), the grid route alone (pages.read + sendRendered, no middleware), the same behind
 * the observe middleware, and the whole app wired as src/server.ts wires it (deadlines, request
 * log to the null device), whose held first page the page front answers (http/routes/grid.ts), plus
 * its 304. Prints requests/s and each over the one-GET route.
 * Uses keyspace `regrid_bench`, profile 4200000001 (60 posts, created on the first run).
 */
import { Hono } from 'hono';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { openIdGenerator } from '../src/bootstrap.js';
import { createRedisGuard } from '../src/cache/redis.js';
import { loadConfig } from '../src/config/config.js';
import { sendRendered } from '../src/http/conditional.js';
import type { AppEnv } from '../src/http/env.js';
import { observe } from '../src/http/observe.js';
import { renderGridPage } from '../src/http/views.js';
import { silentLogger } from '../src/obs/logger.js';
import { GridService } from '../src/service/grid-service.js';
import { cannon, listen } from './read/http.js';
import { nullDeviceLogger, productionApp } from './read/wired.js';
import { openLocalCassandra } from '../tools/infra/dev-stores.js';

const { values: args } = parseArgs({
  options: { seconds: { type: 'string', default: '2' }, rounds: { type: 'string', default: '2' } },
});
const config = { ...loadConfig(), CASSANDRA_KEYSPACE: 'regrid_bench', REDIS_TIMEOUT_MS: 1000 };
const session = await openLocalCassandra(config, () => {});
const guard = createRedisGuard(config, {});
if (!(await guard.waitReady(5000))) throw new Error('this benchmark needs Redis');
const { ids, lease } = await openIdGenerator(session.cql, config, (w, why) => {
  throw new Error(`lost worker lease ${w}: ${why}`);
});
const secret = randomBytes(24).toString('base64url');
const service = new GridService({
  cql: session.cql,
  config,
  ids,
  cursorSecret: secret,
  redis: guard,
});
const profileId = 4_200_000_001n;
if ((await service.readHead(profileId)).version === 0n) {
  for (let i = 0; i < 60; i++) await service.createPost(profileId, { caption: `post ${i}` });
}
const logger = nullDeviceLogger(config);
const app = productionApp(service, { secret, config, logger });
const path = `/v1/profiles/${profileId}/grid?limit=24`;
await app.request(path); // fills the order cache
const kept = await app.request(path); // renders and keeps the page
const body = await kept.text();
const etag = kept.headers.get('etag') ?? '';
const floorKey = `bench:pipeline:{${profileId}}`;
await guard.client.set(floorKey, body, 'EX', 600);
const json = () => ({ 'content-type': 'application/json' });
const ceilings = new Hono();
ceilings.get('/bare', (c) => c.body(body, 200, json()));
ceilings.get('/floor', async (c) => c.body((await guard.client.get(floorKey)) ?? '', 200, json()));
const route = (h: Hono<AppEnv>) =>
  h.get('/v1/profiles/:profile_id/grid', async (c) =>
    sendRendered(c, await service.pages.read({ profileId, limit: 24 }, renderGridPage)),
  );
const alone = route(new Hono<AppEnv>());
const observed = new Hono<AppEnv>();
observed.use('*', observe(silentLogger));
route(observed);
const served = await Promise.all([ceilings, alone, observed, app].map((h) => listen(h)));
const [c, a, o, full] = served.map((s) => s.base) as [string, string, string, string];
try {
  const secs = Number(args.seconds);
  for (let r = 1; r <= Number(args.rounds); r++) {
    const bare = await cannon(c + '/bare', secs);
    const floor = await cannon(c + '/floor', secs);
    const rows = [
      ['bare route', bare.rps],
      ['one Redis GET', floor.rps],
      ['grid route alone', (await cannon(a + path, secs)).rps],
      ['+ observe', (await cannon(o + path, secs)).rps],
      ['whole app', (await cannon(full + path, secs)).rps],
      [
        'whole app, 304',
        (await cannon(full + path, secs, 32, { headers: { 'if-none-match': etag }, expect: 304 }))
          .rps,
      ],
    ] as const;
    console.log(`round ${r}`);
    for (const [name, rps] of rows)
      console.log(
        `  ${name.padEnd(18)} ${String(rps).padStart(6)} rps  ${(rps / floor.rps).toFixed(2)} × one GET`,
      );
  }
} finally {
  for (const s of served) await s.close();
  await guard.client.del(floorKey);
  await lease.release();
  await guard.close();
  await session.client.shutdown();
}
