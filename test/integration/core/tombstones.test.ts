/**
 * Proof, with Cassandra's own accounting (query tracing: "Read N live rows and M tombstone
 * cells", summed over every request of the real read path), that moves leave the grid read
 * tombstone-free; and a control showing the same measurement does see a tombstone when one is
 * written on purpose (so a zero means something).
 */
import { describe, expect, it } from 'vitest';
import { TracingCql } from '../../../tools/loadtest/cql-trace.js';
import { openCore, randomProfile, readAll, seedGrid, type Core } from './harness.js';
import { openPerFile } from '../support/per-file.js';

let core: Core;
openPerFile(openCore, (opened) => (core = opened));

/** Reads the whole grid through the production read path with every request traced. */
async function tracedFullRead(profileId: bigint) {
  const traced = new TracingCql(core.client);
  const ids = await readAll(core.serviceOver(traced), profileId, 20);
  const requests = traced.requests;
  return { ids, requests, tally: await traced.tally() };
}

describe('tombstones on the read path', () => {
  it('a series of moves (with relabels) followed by a full grid read meets ZERO tombstone cells', async () => {
    const me = randomProfile();
    // 1 s apart: repeated inserts into one gap exhaust it after ~32 and force relabels too.
    const ids = await seedGrid(core, me, 60, 1000);
    let relabelled = 0;
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let i = 0; i < 40; i++) {
      const post = ids[rnd(ids.length)]!;
      let after: bigint | null = rnd(5) === 0 ? null : ids[rnd(ids.length)]!;
      if (after === post) after = null;
      relabelled += (await core.service.move(me, post, after)).relabelled;
    }
    // Same gap again and again: post X always right after the same anchor, X changing.
    for (let i = 0; i < 40; i++) {
      relabelled += (await core.service.move(me, ids[10 + (i % 20)]!, ids[0]!)).relabelled;
    }
    expect(relabelled).toBeGreaterThan(0); // the relabel path was exercised, not just midpoints

    const { ids: read, requests, tally } = await tracedFullRead(me);
    expect(new Set(read).size).toBe(60);
    expect(requests).toBeGreaterThan(3); // head, overrides, several grid_posts pages, bodies
    expect(tally.reads).toBeGreaterThanOrEqual(requests);
    expect(tally.liveRows).toBeGreaterThan(60);
    console.log(
      `[tombstones] ${requests} traced requests: ${tally.liveRows} live rows, ` +
        `${tally.tombstoneCells} tombstone cells after 80 moves (${relabelled} rows relabelled)`,
    );
    expect(tally.tombstoneCells).toBe(0);
  });

  it('pinning and then unpinning everything (pins = []) leaves no tombstone either', async () => {
    const me = randomProfile();
    const ids = await seedGrid(core, me, 4);
    const setPins = (pins: bigint[]) =>
      core.service.writer.writeGrid(me, async () => ({
        kind: 'write',
        mutation: { statics: { pins } },
        result: null,
      }));
    await setPins([ids[2]!, ids[3]!]);
    expect((await core.service.pages.page({ profileId: me, limit: 10 })).items[0]!.postId).toBe(
      ids[2],
    );
    await setPins([]);
    const { ids: read, tally } = await tracedFullRead(me);
    expect(read).toEqual(ids);
    expect(tally.tombstoneCells).toBe(0);
  });

  it('control: one deliberate null bind on a scratch override row is seen as a tombstone', async () => {
    const scratch = randomProfile();
    await seedGrid(core, scratch, 3);
    const before = await tracedFullRead(scratch);
    expect(before.tally.tombstoneCells).toBe(0);
    // Exactly what the move path must never do: bind null instead of leaving a column unset.
    await core.client.execute(
      'UPDATE grid_overrides SET sort_key = ?, moved_version = ? WHERE profile_id = ? AND post_id = ?',
      [5n, null, scratch, 5n],
      { prepare: true },
    );
    const after = await tracedFullRead(scratch);
    expect(after.tally.tombstoneCells).toBeGreaterThanOrEqual(1);
  });
});
