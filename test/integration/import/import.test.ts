/**
 * `regrid import` from a CQL table (service/import/) on the real Cassandra: a platform's own
 * table of posts (its IDs, its creation times) over many profiles becomes their grids.
 *   - every grid equals its source's newest-first order, and post_count its size;
 *   - the source is unchanged (a checksum of its rows and their cells' write times);
 *   - a rerun changes nothing (0 versions bumped, 0 posts imported);
 *   - a run killed halfway (SIGKILL of a child process) resumes from its checkpoint to the same
 *     result, redoing only unfinished slices;
 *   - a profile edited by its user while it is imported stays whole (every post once, the
 *     user's moves and new posts kept, post_count exact, the audit clean).
 * Size: REGRID_IMPORT_TEST_POSTS source posts over a hundredth as many profiles (default 10,000;
 * the issue's 100,000 over 1,000 with REGRID_IMPORT_TEST_POSTS=100000).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cqlSource } from '../../../src/service/import/sources.js';
import { runImport } from '../../../src/service/import/run-import.js';
import { consistencyOf, cqlOf } from '../../../src/store/cassandra.js';
import { SourceTable } from '../../../src/store/source-table.js';
import { openFeatures, freshProfile, type Features } from '../features/harness.js';
import { openPerFile } from '../support/per-file.js';
import { checksum, createSource, type SourceFixture } from './source-fixture.js';

let f: Features;
openPerFile(openFeatures, (opened) => {
  f = opened;
});

const POSTS = Number(process.env.REGRID_IMPORT_TEST_POSTS ?? 10_000);
const PER_PROFILE = 100;
const SOURCE_KS = `regrid_import_src_${process.pid}`;

const tableOf = (s: SourceFixture) =>
  new SourceTable(cqlOf(f.client), consistencyOf(f.config), s.keyspace, s.table, {
    profile: 'profile_id',
    post: 'post_id',
    created: 'created_at',
    caption: 'caption',
    media: 'media_url',
  });

const chunks = () => f.service.platform.importChunk.bind(f.service.platform);

async function expectGridsEqualSource(s: SourceFixture, only?: bigint[]) {
  for (const [profile, ids] of s.profiles) {
    if (only && !only.includes(profile)) continue;
    const order = await f.service.readOrder(profile);
    expect([...order.pinned, ...order.postIds], `profile ${profile}`).toEqual(ids);
    expect((await f.service.readHead(profile)).postCount, `profile ${profile}`).toBe(
      BigInt(ids.length),
    );
  }
}

describe('regrid import from a CQL table', () => {
  it(`imports ${POSTS} posts over ${POSTS / PER_PROFILE} profiles exactly, never writes the source, and a rerun is a no-op`, async () => {
    const s = await createSource(f.client, {
      keyspace: SOURCE_KS,
      profiles: POSTS / PER_PROFILE,
      postsPerProfile: PER_PROFILE,
      seed: 11,
      firstProfile: freshProfile(f),
    });
    const before = await checksum(f.client, s);
    const t0 = Date.now();
    const first = await runImport(chunks(), cqlSource(tableOf(s), 32), { parallel: 4 });
    const seconds = (Date.now() - t0) / 1000;
    console.log(
      `[import] ${first.imported} posts in ${seconds.toFixed(1)} s (${Math.round(first.imported / seconds)} posts/s), ${first.bumps} versions bumped`,
    );
    expect(first.issues).toEqual([]);
    expect(first.imported).toBe(POSTS);
    expect(first.bumps).toBe(POSTS / PER_PROFILE); // one compare-and-set per profile
    await expectGridsEqualSource(s);
    expect(await checksum(f.client, s)).toBe(before);

    const sample = [...s.profiles.keys()].slice(0, 20);
    const versions = await Promise.all(
      sample.map((p) => f.service.readHead(p).then((h) => h.version)),
    );
    const again = await runImport(chunks(), cqlSource(tableOf(s), 32), { parallel: 4 });
    expect([again.imported, again.bumps, again.present]).toEqual([0, 0, POSTS]);
    expect(
      await Promise.all(sample.map((p) => f.service.readHead(p).then((h) => h.version))),
    ).toEqual(versions);
    expect(await checksum(f.client, s)).toBe(before);
  }, 900_000);

  it('a run killed halfway resumes from its checkpoint to the same grids', async () => {
    const s = await createSource(f.client, {
      keyspace: SOURCE_KS,
      profiles: 40,
      postsPerProfile: 50,
      seed: 12,
      firstProfile: freshProfile(f),
    });
    const dir = mkdtempSync(join(tmpdir(), 'regrid-import-'));
    const checkpoint = join(dir, 'checkpoint.json');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'test/integration/import/import-child.ts',
        s.keyspace,
        s.table,
        checkpoint,
        '400',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
    );
    // Kill it (SIGKILL: no cleanup) once it has finished some slices but not all.
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        const m = /slices done (\d+)/.exec(d.toString());
        if (m && Number(m[1]) >= 4) {
          child.kill('SIGKILL');
          resolve();
        }
        if (d.toString().includes('finished'))
          reject(new Error('the child finished before the kill'));
      });
      child.on('exit', (code) => code !== null && reject(new Error(`child exited ${code}`)));
    });
    await new Promise((r) => child.once('exit', r));
    expect(existsSync(checkpoint)).toBe(true);
    const done = (JSON.parse(readFileSync(checkpoint, 'utf8')) as { done: number[] }).done;
    expect(done.length).toBeGreaterThanOrEqual(4);
    expect(done.length).toBeLessThan(16);

    const resumed = await runImport(chunks(), cqlSource(tableOf(s), 16), {
      parallel: 4,
      checkpointPath: checkpoint,
    });
    expect(resumed.issues).toEqual([]);
    expect(resumed.slicesDone).toBe(16);
    // Only the unfinished slices were read again.
    expect(resumed.rows).toBeLessThan(2000);
    await expectGridsEqualSource(s);
  }, 600_000);

  it('a profile its user edits while it is imported stays whole', async () => {
    for (let trial = 0; trial < 6; trial++) {
      const s = await createSource(f.client, {
        keyspace: SOURCE_KS,
        profiles: 1,
        postsPerProfile: 60,
        seed: 100 + trial,
        firstProfile: freshProfile(f),
      });
      const [profile, ids] = [...s.profiles][0]!;
      // The user already has two posts of their own and keeps editing during the import.
      const own = [];
      for (const caption of ['mine-1', 'mine-2'])
        own.push((await f.service.createPost(profile, { caption })).value.postId);
      const imported = runImport(chunks(), cqlSource(tableOf(s), 1), { chunkSize: 10 });
      const edits = (async () => {
        await f.service.move(profile, own[0]!, null);
        own.push((await f.service.createPost(profile, { caption: 'mine-3' })).value.postId);
        await f.service.setPins(profile, [own[1]!]);
        await f.service.move(profile, own[0]!, null);
      })();
      const [totals] = await Promise.all([imported, edits]);
      expect(totals.issues, `trial ${trial}`).toEqual([]);
      expect(totals.imported, `trial ${trial}`).toBe(ids.length);
      const order = await f.service.readOrder(profile);
      const shown = [...order.pinned, ...order.postIds];
      expect(new Set(shown).size, `trial ${trial}: a post twice`).toBe(shown.length);
      expect(new Set(shown), `trial ${trial}`).toEqual(new Set([...ids, ...own]));
      expect(order.pinned, `trial ${trial}`).toEqual([own[1]]);
      expect(order.postIds[0], `trial ${trial}: the user's move to the top`).toBe(own[0]);
      // The imported posts keep the source's order among themselves.
      expect(order.postIds.filter((p) => ids.includes(p))).toEqual(ids);
      expect((await f.service.readHead(profile)).postCount).toBe(BigInt(shown.length));
      const audit = await f.service.auditProfile(profile);
      expect(audit.findings, `trial ${trial}`).toEqual([]);
    }
  }, 600_000);
});
