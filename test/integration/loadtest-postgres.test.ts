/**
 * The seed's PostgreSQL design (design article §3.3) as the load tester drives it, on the
 * machine's real PostgreSQL: a short contended workload through the runner passes the checker,
 * faults injected into the real tables afterwards are caught, and concurrent moves of one post
 * leave it exactly once, where the last committed move put it (the version row lock serializes).
 *
 * Skipped, saying why, when no PostgreSQL answers at PG_URL (default: the local server).
 */
import type { Client } from 'cassandra-driver';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { checkGrid } from '../../tools/loadtest/checker.js';
import type { GridDesign } from '../../tools/loadtest/design.js';
import { parseOptions } from '../../tools/loadtest/options.js';
import { PostgresDesign } from '../../tools/loadtest/postgres-design.js';
import { freshProfileIds, runDesign, type DesignRun } from '../../tools/loadtest/session.js';
import { verifyRun } from '../../tools/loadtest/verify.js';
import { createCassandraClient } from '../../src/store/cassandra.js';
import { postgresDown } from './support/loadtest.js';

const PG_URL = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/regrid_bench';
const SCHEMA = `loadtest_it_${process.pid}`;

const down = await postgresDown(PG_URL);
if (down) console.warn(`[loadtest-postgres] skipped: PostgreSQL at ${PG_URL}: ${down}`);

const ctx = inject('integration');
let client: Client;
let design: PostgresDesign;
let sql: pg.Client;

beforeAll(async () => {
  if (down) return;
  const config = loadConfig(process.env, { CASSANDRA_KEYSPACE: ctx.keyspace });
  client = createCassandraClient(config, { keyspace: ctx.keyspace });
  await client.connect();
  design = await PostgresDesign.create({ url: PG_URL, poolSize: 10, schema: SCHEMA });
  sql = new pg.Client({ connectionString: PG_URL });
  await sql.connect();
  await sql.query(`SET search_path = ${SCHEMA}`);
});

afterAll(async () => {
  if (down) return;
  await design?.close();
  await sql?.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await sql?.end();
  await client?.shutdown();
});

describe.skipIf(down !== null)(`seed design on PostgreSQL (${PG_URL})`, () => {
  let run: DesignRun;

  it('passes the checker: 4 profiles × 200 moves, 8 writers, 0 violations', async () => {
    const o = parseOptions([
      '--design', 'postgres', '--profiles', '4', '--posts', '24', '--moves', '800',
      '--concurrency', '8', '--hot', '0.3', '--samples', '3', '--seed', '7', '--no-progress',
    ]); // prettier-ignore
    const deps = {
      config: loadConfig(process.env, { CASSANDRA_KEYSPACE: ctx.keyspace }),
      cluster: {
        client,
        keyspace: ctx.keyspace,
        target: { ...ctx, origin: 'external' as const },
        releaseVersion: 'test',
        close: async () => {},
      },
      makeDesign: async (): Promise<GridDesign> => design,
      log: () => {},
      tableMetrics: false,
    };
    run = await runDesign('postgres', o, deps);
    const r = run.report;
    expect(r.moves).toBe(800);
    expect(r.errors).toBe(0);
    expect(r.violations).toEqual([]);
    expect(r.grids_order_unchecked).toBe(0);
    expect(r.tombstones_written).toBe(0);
    // Every ack carries its own version: the lock gave each move a distinct one per grid.
    for (const g of run.grids) {
      const versions = g.acks.map((a) => a.version);
      expect(versions.every((v) => v !== null)).toBe(true);
      expect(new Set(versions).size).toBe(versions.length);
    }
    expect(r.store_stats?.grid_entry?.n_tup_upd).toBeGreaterThanOrEqual(800);
  });

  it('catches a lost post and a misplaced one injected into grid_entry', async () => {
    const g = run.grids[1]!;
    const [victim, moved] = g.posts;
    await sql.query('DELETE FROM grid_entry WHERE profile_id = $1 AND post_id = $2', [
      g.profileId,
      victim,
    ]);
    // The largest key there is: the post jumps to the top behind the checker's back.
    await sql.query(
      `UPDATE grid_entry SET sort_key = 9223372036854775806 WHERE profile_id = $1 AND post_id = $2`,
      [g.profileId, moved],
    );
    const v = await verifyRun(design, run.grids, client);
    const kinds = v.violations.map((x) => [x.kind, x.profile]);
    expect(kinds).toContainEqual(['lost', String(g.profileId)]);
    expect(kinds).toContainEqual(['order', String(g.profileId)]);
    expect(v.violations.find((x) => x.kind === 'lost')!.posts).toEqual([String(victim)]);
  });

  it('concurrent moves of one post leave it exactly once, where the last commit put it', async () => {
    const [profileId] = freshProfileIds(1);
    const posts = await design.createGrid(profileId!, 12);
    const hot = posts[5]!;
    const anchors = [null, ...posts.filter((p) => p !== hot)];
    // 24 moves of the same post at once, to the top and after every other post.
    const targets = Array.from({ length: 24 }, (_, i) => anchors[i % anchors.length]!);
    const outcomes = await Promise.all(targets.map((after) => design.move(profileId!, hot, after)));
    const versions = outcomes.map((o) => o.version!);
    expect(new Set(versions).size).toBe(24);

    const order = await design.readAll(profileId!);
    expect(order.filter((p) => p === hot)).toHaveLength(1);
    expect([...order].sort()).toEqual([...posts].sort());
    const last = targets[versions.indexOf(versions.reduce((a, b) => (a > b ? a : b)))]!;
    const at = order.indexOf(hot);
    if (last === null) expect(at).toBe(0);
    else expect(order[at - 1]).toBe(last);
    // And the checker agrees: replaying the acks in version order gives this order.
    const acks = targets.map((after, seq) => ({
      postId: hot,
      after,
      version: versions[seq]!,
      seq,
    }));
    const check = checkGrid(
      { profileId: profileId!, initial: [...posts].reverse(), acks, uncertain: 0 },
      order,
    );
    expect(check.violations).toEqual([]);
  });

  it('relabels neighbours in the move transaction when no midpoint is left', async () => {
    const [profileId] = freshProfileIds(1);
    const posts = await design.createGrid(profileId!, 12);
    const anchor = posts[6]!;
    const movers = posts.slice(0, 5);
    // Every move lands right after the anchor, halving the gap below it: ~2^23+ wide at first.
    const acks = [];
    let relabelled = 0;
    for (let seq = 0; seq < 60; seq++) {
      const postId = movers[seq % movers.length]!;
      const r = await design.move(profileId!, postId, anchor);
      relabelled += r.relabelled ?? 0;
      acks.push({ postId, after: anchor, version: r.version, seq });
      const now = await design.readAll(profileId!);
      expect(now[now.indexOf(anchor) + 1], `move #${seq}`).toBe(postId);
    }
    expect(relabelled).toBeGreaterThan(0);
    const order = await design.readAll(profileId!);
    const check = checkGrid(
      { profileId: profileId!, initial: [...posts].reverse(), acks, uncertain: 0 },
      order,
    );
    expect(check.violations).toEqual([]);
  });
});
