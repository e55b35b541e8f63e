/**
 * The load tester's checker on real Cassandra: a short clean regrid run passes (no violations, no
 * tombstones), and faults injected into real partitions afterwards are caught — a duplicate row,
 * a lost post, and a null bind (a tombstone) found by Cassandra's own accounting.
 */
import type { Client } from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { DesignName, GridDesign } from '../../tools/loadtest/design.js';
import { NaiveDesign } from '../../tools/loadtest/naive-design.js';
import { testCluster } from './support/loadtest.js';
import { parseOptions } from '../../tools/loadtest/options.js';
import { RegridDirectDesign } from '../../tools/loadtest/regrid-direct-design.js';
import { runDesign, type DesignRun, type SessionDeps } from '../../tools/loadtest/session.js';
import { verifyRun } from '../../tools/loadtest/verify.js';
import { createCassandraClient } from '../../src/store/cassandra.js';

const ctx = inject('integration');
let config: Config;
let client: Client;
let deps: SessionDeps;
const open: GridDesign[] = [];

const short = (extra: string[] = []) =>
  parseOptions([
    '--profiles', '3', '--posts', '12', '--moves', '120', '--concurrency', '4',
    '--hot', '0.3', '--samples', '3', '--seed', '11', '--no-progress', ...extra,
  ]); // prettier-ignore

/** A post of the grid without an override row: its only trace is its grid_posts row. */
async function postWithoutOverride(run: DesignRun, grid: number): Promise<bigint> {
  const g = run.grids[grid]!;
  const rs = await client.execute(
    'SELECT post_id FROM grid_overrides WHERE profile_id = ?',
    [g.profileId],
    {
      prepare: true,
    },
  );
  const overridden = new Set(rs.rows.map((r) => r.get('post_id') as bigint | null));
  const post = g.posts.find((p) => !overridden.has(p));
  if (post === undefined) throw new Error('every post has an override; use more posts');
  return post;
}

beforeAll(async () => {
  config = loadConfig(process.env, { CASSANDRA_KEYSPACE: ctx.keyspace });
  client = createCassandraClient(config, { keyspace: ctx.keyspace });
  await client.connect();
  const cluster = testCluster(client);
  const makeDesign = async (name: DesignName): Promise<GridDesign> => {
    const d =
      name === 'naive'
        ? await NaiveDesign.create(client, config)
        : await RegridDirectDesign.create(client, config);
    open.push(d);
    return d;
  };
  deps = { config, cluster, makeDesign, log: () => {}, tableMetrics: false };
});

afterAll(async () => {
  for (const d of open) await d.close();
  await client?.shutdown();
});

describe('load-test checker on real Cassandra', () => {
  let clean: DesignRun;

  it('passes a clean short regrid run: no violations, no tombstones', async () => {
    clean = await runDesign('regrid', short(), deps);
    const r = clean.report;
    expect(r.moves).toBeGreaterThan(0);
    expect(r.moves + r.rejected + r.uncertain).toBe(120);
    expect(r.violations).toEqual([]);
    expect(r.grids_order_unchecked).toBe(0);
    expect(r.tombstones_written).toBe(0);
    expect(r.tombstones_scanned_per_read_max).toBe(0);
    // The model really was exercised: acks carry versions and the hot grid saw many moves.
    expect(clean.grids[0]!.acks.length).toBeGreaterThan(20);
    expect(clean.grids[0]!.acks.every((a) => a.version !== null)).toBe(true);
  });

  it('flags a null bind: one tombstone, found by a traced read of the partition', async () => {
    const grid = clean.grids[0]!;
    const moved = grid.acks[0]!.postId;
    // The kind of write the move path must never make: binding null writes a tombstone.
    await client.execute(
      'UPDATE grid_overrides SET moved_version = ? WHERE profile_id = ? AND post_id = ?',
      [null, grid.profileId, moved],
      { prepare: true },
    );
    const v = await verifyRun(clean.design, clean.grids, client);
    expect(v.tombstones.total).toBe(1);
    expect(v.tombstones.byTable).toEqual({ grid_overrides: 1, grid_posts: 0 });
    expect(v.violations).toEqual([
      expect.objectContaining({ kind: 'tombstones', profile: String(grid.profileId) }),
    ]);
    expect(v.violations[0]!.detail).toContain('1 tombstone(s) in grid_overrides');
  });

  it('flags a lost post, naming it (and the tombstone its deletion left)', async () => {
    const grid = clean.grids[1]!;
    const victim = await postWithoutOverride(clean, 1);
    await client.execute(
      'DELETE FROM grid_posts WHERE profile_id = ? AND post_id = ?',
      [grid.profileId, victim],
      { prepare: true },
    );
    const v = await verifyRun(clean.design, clean.grids, client);
    const mine = v.violations.filter((x) => x.profile === String(grid.profileId));
    expect(mine.map((x) => x.kind).sort()).toEqual(['lost', 'tombstones']);
    expect(mine.find((x) => x.kind === 'lost')!.posts).toEqual([String(victim)]);
  });

  it('flags an injected duplicate row in the naive table, naming the post', async () => {
    // Concurrency 1: no races, so the only duplicate is the one injected below.
    const naive = await runDesign('naive', short(['--concurrency', '1', '--moves', '40']), deps);
    expect(naive.report.violations_by_kind.duplicate).toBe(0);
    expect(naive.report.violations_by_kind.lost).toBe(0);
    expect(naive.report.violations_by_kind.order).toBe(0);
    // ...but its moves did leave tombstones, counted by Cassandra.
    expect(naive.report.tombstones_written).toBeGreaterThan(0);

    const grid = naive.grids[2]!;
    const post = grid.posts[0]!;
    await client.execute(
      'INSERT INTO naive_grid (profile_id, sort_key, post_id) VALUES (?, ?, ?)',
      [grid.profileId, 1n, post],
      { prepare: true },
    );
    const v = await verifyRun(naive.design, naive.grids, client);
    const dup = v.violations.filter((x) => x.kind === 'duplicate');
    expect(dup).toEqual([
      expect.objectContaining({ profile: String(grid.profileId), posts: [String(post)] }),
    ]);
    expect(dup[0]!.detail).toContain(`${post}×2`);
  });
});
