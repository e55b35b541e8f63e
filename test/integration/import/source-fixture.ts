/**
 * A platform's own table of posts for the import tests: its own keyspace, its own IDs (worker
 * numbers far from the tests' generators) and creation times, partitioned by profile. Also the
 * checksum that shows the import never wrote it: every row's values and the write time of its
 * cells, hashed in token order.
 */
import { createHash } from 'node:crypto';
import type { Client } from 'cassandra-driver';
import { composeId } from '../../../src/domain/ids.js';
import { createRng } from '../../../tools/loadtest/rng.js';

export interface SourceFixture {
  readonly keyspace: string;
  readonly table: string;
  /** Each profile's post IDs, newest first (the order its grid must show). */
  readonly profiles: Map<bigint, bigint[]>;
}

export async function createSource(
  client: Client,
  opts: {
    keyspace: string;
    profiles: number;
    postsPerProfile: number;
    seed: number;
    firstProfile: bigint;
  },
): Promise<SourceFixture> {
  const { keyspace } = opts;
  const table = 'posts_by_profile';
  await client.execute(
    `CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
  );
  await client.execute(`DROP TABLE IF EXISTS ${keyspace}.${table}`);
  await client.execute(
    `CREATE TABLE ${keyspace}.${table} (profile_id bigint, post_id bigint, created_at timestamp, caption text, media_url text, PRIMARY KEY ((profile_id), post_id)) WITH CLUSTERING ORDER BY (post_id DESC)`,
  );
  const insert = `INSERT INTO ${keyspace}.${table} (profile_id, post_id, created_at, caption, media_url) VALUES (?, ?, ?, ?, ?)`;
  // Post IDs are global: derive them from the fresh profile too, so a rerun of the suite never
  // meets the bodies an earlier run imported.
  const rng = createRng(opts.seed + Number(opts.firstProfile % 1_000_000_007n));
  const profiles = new Map<bigint, bigint[]>();
  const rows: unknown[][] = [];
  const start = Date.UTC(2019, 0, 1);
  const span = Date.UTC(2026, 0, 1) - start;
  let seq = 0;
  for (let i = 0; i < opts.profiles; i++) {
    const profile = opts.firstProfile + BigInt(i);
    const ids: bigint[] = [];
    for (let k = 0; k < opts.postsPerProfile; k++) {
      const ms = start + Math.floor(rng.next() * span);
      const id = composeId({
        ms,
        worker: 6000 + (seq % 1000),
        sequence: Math.floor(seq / 1000) % 1024,
      });
      seq += 1;
      ids.push(id);
      // Some posts have no caption or media: absent in the source, absent in regrid.
      rows.push([
        profile,
        id,
        new Date(ms),
        k % 3 === 0 ? undefined : `p${k}`,
        k % 2 ? `https://cdn.example/${id}.jpg` : undefined,
      ]);
    }
    profiles.set(
      profile,
      [...new Set(ids)].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)),
    );
  }
  for (let i = 0; i < rows.length; i += 200) {
    await Promise.all(
      rows.slice(i, i + 200).map((r) => client.execute(insert, r, { prepare: true })),
    );
  }
  return { keyspace, table, profiles };
}

/** Every row and its cells' write times, in token order, hashed. */
export async function checksum(client: Client, s: SourceFixture): Promise<string> {
  const hash = createHash('sha256');
  const q = `SELECT profile_id, post_id, created_at, caption, media_url, writetime(created_at) AS w FROM ${s.keyspace}.${s.table}`;
  let pageState: string | undefined;
  do {
    const rs = await client.execute(q, [], { prepare: true, fetchSize: 5000, pageState });
    for (const r of rs.rows) {
      hash.update(
        `${r.get('profile_id')}|${r.get('post_id')}|${(r.get('created_at') as Date).getTime()}|${r.get('caption')}|${r.get('media_url')}|${r.get('w')}\n`,
      );
    }
    pageState = rs.pageState ?? undefined;
  } while (pageState);
  return hash.digest('hex');
}
