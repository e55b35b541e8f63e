/**
 * `npm run bench:tracing [-- --seconds N --rounds N --writers N --connections N]`
 *
 * What OpenTelemetry tracing costs (docs/operating.md "Tracing"), in one run on loopback against
 * the local Cassandra and Redis (keyspace `regrid_bench`): the app wired as src/server.ts wires it
 * (bench/read/wired.ts), measured with tracing off, then on (OTLP http/protobuf to a receiver in
 * this process that counts and drops what it gets), alternated for `rounds` rounds:
 *   - moves/s: `writers` closed-loop writers through HTTP, each moving posts on its own grid;
 *   - cached first-page reads/s: autocannon on one profile's first page (a cache hit).
 * Prints both figures for each mode and on ÷ off. Off is measured before tracing is first
 * started (the SDK is then loaded for good), and again between the "on" rounds with the runtime
 * stopped, so the off path is the one a deployment without OTEL_* runs.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { openIdGenerator } from '../src/bootstrap.js';
import { createRedisGuard } from '../src/cache/redis.js';
import { loadConfig } from '../src/config/config.js';
import { issueToken } from '../src/http/auth.js';
import { startTracing } from '../src/obs/tracing.js';
import { GridService } from '../src/service/grid-service.js';
import { openLocalCassandra } from '../tools/infra/dev-stores.js';
import { ensureRedis } from '../tools/infra/redis-local.js';
import { cannon, listen } from './read/http.js';
import { nullDeviceLogger, productionApp } from './read/wired.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '2' },
    writers: { type: 'string', default: '16' },
    connections: { type: 'string', default: '32' },
  },
});
const seconds = Number(args.seconds);
const rounds = Number(args.rounds);
const writers = Number(args.writers);
const connections = Number(args.connections);
const log = (line: string) => console.error(line);
const FIRST_PROFILE = 7_300_000_001n;
const POSTS = 12;

/** The OTLP receiver: counts requests and bytes, answers 200. */
async function sink() {
  const got = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => (got.bytes += c.length));
    req.on('end', () => {
      got.requests += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, got, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function main(): Promise<void> {
  const config = { ...loadConfig(), CASSANDRA_KEYSPACE: 'regrid_bench', MOVE_RATE_LIMIT: 1e9 };
  const session = await openLocalCassandra(config, log);
  log(`[redis] ${(await ensureRedis(config, log)).detail}`);
  const guard = createRedisGuard(config, { log });
  if (!(await guard.waitReady(5000))) throw new Error('the tracing benchmark needs Redis');
  const { ids, lease } = await openIdGenerator(session.cql, config, (w, why) => {
    throw new Error(`lost worker lease ${w}: ${why}`);
  });
  const secret = randomBytes(24).toString('base64url');
  const logger = nullDeviceLogger(config);
  const service = () =>
    new GridService({ cql: session.cql, config, ids, cursorSecret: secret, redis: guard });

  // Each writer's own grid, with a few posts to move.
  const seeding = service();
  const grids: Array<{ token: string; posts: string[] }> = [];
  for (let w = 0; w < writers; w++) {
    const profileId = FIRST_PROFILE + BigInt(w);
    const posts: string[] = [];
    for (let i = 0; i < POSTS; i++) {
      const out = await seeding.createPost(profileId, { caption: `t${i}` });
      posts.push(String(out.value.postId));
    }
    grids.push({ token: await issueToken(secret, profileId), posts });
  }

  const otlp = await sink();
  // The exporter reads its endpoint from the process's environment, as in production.
  const env = {
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
  };
  Object.assign(process.env, env);
  const figures: Record<'off' | 'on', { moves: number[]; reads: number[] }> = {
    off: { moves: [], reads: [] },
    on: { moves: [], reads: [] },
  };

  for (let round = 0; round < rounds; round++) {
    for (const mode of ['off', 'on'] as const) {
      const tracing = mode === 'on' ? await startTracing('bench', env) : undefined;
      // The app is handed it: its request middleware exists only when tracing is on.
      const served = await listen(
        productionApp(service(), { secret, config, logger, ...(tracing ? { tracing } : {}) }),
      );
      const moves = await moveLoad(served.base, grids, seconds);
      const page = `${served.base}/v1/profiles/${FIRST_PROFILE}/grid?limit=24`;
      await fetch(page); // fill the cache
      const reads = await cannon(page, seconds, connections);
      if (reads.errors > 0) log(`[reads] ${reads.errors} errors`);
      await served.close();
      await tracing?.shutdown();
      figures[mode].moves.push(moves);
      figures[mode].reads.push(reads.rps);
      log(`round ${round + 1} ${mode}: ${moves.toFixed(0)} moves/s, ${reads.rps} reads/s`);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const row = (name: string, off: number, on: number) =>
    `${name.padEnd(26)} ${off.toFixed(0).padStart(8)} ${on.toFixed(0).padStart(8)} ${(on / off).toFixed(3).padStart(8)}`;
  console.log(`${''.padEnd(26)} ${'off'.padStart(8)} ${'on'.padStart(8)} ${'on÷off'.padStart(8)}`);
  console.log(row('moves/s', mean(figures.off.moves), mean(figures.on.moves)));
  console.log(row('cached first page reads/s', mean(figures.off.reads), mean(figures.on.reads)));
  console.log(`(${rounds} rounds of ${seconds} s, ${writers} writers, ${connections} read connections; OTLP received ${otlp.got.requests} exports, ${otlp.got.bytes} bytes)`); // prettier-ignore

  await otlp.close();
  await lease.release();
  await guard.close();
  await session.client.shutdown();
}

/** `grids.length` closed-loop writers, each moving its last post to the top, for `seconds`. */
async function moveLoad(
  base: string,
  grids: ReadonlyArray<{ token: string; posts: string[] }>,
  seconds: number,
): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let moves = 0;
  let failed = 0;
  await Promise.all(
    grids.map(async (g) => {
      let i = 0;
      while (performance.now() < until) {
        const post = g.posts[i++ % g.posts.length]!;
        const r = await fetch(`${base}/v1/me/grid/moves`, {
          method: 'POST',
          headers: { authorization: `Bearer ${g.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ post_id: post, after: null }),
        });
        await r.arrayBuffer();
        if (r.status === 200) moves += 1;
        else failed += 1;
      }
    }),
  );
  if (failed > 0) console.error(`[moves] ${failed} not 200`);
  return moves / seconds;
}

await main();
