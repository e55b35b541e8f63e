/**
 * The load tester's mixed workload (--mix) on real Cassandra, direct: a short run on a few
 * profiles issues every kind of operation, its final grids match the model (0 violations), and
 * every tombstone in its partitions sits on a row of a post it deleted or archived. Then faults
 * the model knows nothing of are caught: a post archived behind the tester's back (an unnamed
 * version, a lost post), and a null bind on the override row of a post nobody removed (a
 * tombstone no removal explains).
 */
import type { Client } from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/config.js';
import { createCassandraClient } from '../../src/store/cassandra.js';
import type { GridDesign } from '../../tools/loadtest/design.js';
import { parseOptions } from '../../tools/loadtest/options.js';
import { RegridDirectDesign } from '../../tools/loadtest/regrid-direct-design.js';
import { runDesign, type DesignRun, type SessionDeps } from '../../tools/loadtest/session.js';
import { removedPosts } from '../../tools/loadtest/tombstone-causes.js';
import { verifyRun } from '../../tools/loadtest/verify.js';
import { testCluster } from './support/loadtest.js';

const ctx = inject('integration');
let config: Config;
let client: Client;
let deps: SessionDeps;
let run: DesignRun;
const open: GridDesign[] = [];

beforeAll(async () => {
  config = loadConfig(process.env, { CASSANDRA_KEYSPACE: ctx.keyspace });
  client = createCassandraClient(config, { keyspace: ctx.keyspace });
  await client.connect();
  const makeDesign = async (): Promise<GridDesign> => {
    const d = await RegridDirectDesign.create(client, config);
    open.push(d);
    return d;
  };
  deps = { config, cluster: testCluster(client), makeDesign, log: () => {}, tableMetrics: false };
  const o = parseOptions([
    '--mix', 'default', '--profiles', '3', '--posts', '10', '--moves', '400',
    '--concurrency', '6', '--samples', '2', '--seed', '7', '--no-progress',
  ]); // prettier-ignore
  run = await runDesign('regrid', o, deps);
}, 240_000);

afterAll(async () => {
  for (const d of open) await d.close();
  await client?.shutdown();
});

describe('the mixed workload on real Cassandra (direct)', () => {
  it('sends every kind, and the final grids match the model', () => {
    const r = run.report;
    const ops = r.operations!;
    const sent = Object.values(ops).reduce((n, t) => n + t.attempted, 0);
    expect(sent).toBe(400);
    for (const kind of [
      'move',
      'create',
      'pin',
      'unpin',
      'archive',
      'unarchive',
      'delete',
      'batch',
    ]) {
      expect(ops[kind as keyof typeof ops].acked, kind).toBeGreaterThan(0);
    }
    expect(r.moves).toBe(ops.move.acked);
    expect(r.violations).toEqual([]);
    expect(r.grids_order_unchecked).toBe(0);
  });

  it('counts tombstones by table and cause; none that no removal explains', () => {
    const r = run.report;
    expect(Object.keys(r.tombstones_by_table).sort()).toEqual([
      'archived_by_time',
      'archived_posts',
      'grid_overrides',
      'grid_posts',
    ]);
    expect(r.tombstones_unexplained).toEqual({
      grid_overrides: 0,
      grid_posts: 0,
      archived_posts: 0,
    });
    // Deletes and archives took rows out of grid_posts: Cassandra counts those tombstones.
    const c = r.tombstones_by_cause!;
    expect(c.delete.grid_posts! + c.archive.grid_posts!).toBeGreaterThan(0);
    const attributed = (t: string) => c.delete[t]! + c.archive[t]!;
    for (const t of ['grid_overrides', 'grid_posts', 'archived_posts']) {
      expect(attributed(t), t).toBe(r.tombstones_by_table[t]);
    }
  });

  it('catches a post archived behind its back, and a tombstone no removal explains', async () => {
    const grid = run.grids[1]!;
    const log = grid.mix!;
    const removed = removedPosts(grid);
    const victim = [...log.live].find((p) => !log.pins.includes(p))!;
    await run.design.mixed!.archive(grid.profileId, victim); // not in the model
    const untouched = [...log.live].find((p) => p !== victim && !removed.has(p))!;
    await client.execute(
      'UPDATE grid_overrides SET moved_version = null WHERE profile_id = ? AND post_id = ?',
      [run.grids[2]!.profileId, untouched],
      { prepare: true },
    );
    const v = await verifyRun(run.design, run.grids, client);
    const on = (p: bigint) =>
      v.violations.filter((x) => x.profile === String(p)).map((x) => x.kind);
    expect(on(grid.profileId)).toEqual(expect.arrayContaining(['lost', 'order']));
    expect(on(run.grids[2]!.profileId)).toContain('tombstones');
    expect(v.causes!.unexplained.grid_overrides).toBeGreaterThan(0);
  });
});
