/**
 * One name, one state (issue 31) on real Cassandra and Redis: a grid whose head is found behind a
 * state the service already acknowledged or published lost those versions (here: the static
 * version set back by a plain write, as a node that acknowledged writes before its commit log
 * synced them leaves it after a kill). The next write moves the grid to a new generation, in its
 * own conditional batch, so no (generation, version) is issued twice; the stream publishes the
 * new generation's versions (never deduped as repeats of the lost ones). Without evidence of a
 * loss nothing changes: the generation stays 1.
 */
import { describe, expect, it } from 'vitest';
import { openPerFile } from '../support/per-file.js';
import { openChanges, randomProfile, seedGrid, type ChangesHarness } from './harness.js';

let h: ChangesHarness;
openPerFile(openChanges, (opened) => (h = opened));

/** What a kill of a node that had not synced its commit log leaves: the head set back. */
async function loseVersionsDownTo(profileId: bigint, version: bigint): Promise<void> {
  await h.client.execute(
    'UPDATE grid_overrides SET version = ? WHERE profile_id = ?',
    [version, profileId],
    { prepare: true },
  );
}

const PATIENT = { CHANGES_MARK_WAIT_MS: '5000' };

const names = (events: ReadonlyArray<{ generation: string; version: string }>) =>
  events.map((e) => `${e.generation}.${e.version}`);

describe('a grid whose head is behind what the service acknowledged or published', () => {
  it('moves to a new generation on the evidence of the stream (another process): never reusing a name', async () => {
    const me = randomProfile();
    const ids = await seedGrid(h, h.service, me, 5); // 1.1
    for (const p of ids.slice(1, 5)) await h.service.move(me, p, null); // 1.2 … 1.5
    expect(names(await h.waitEvents(me, 5))).toEqual(['1.1', '1.2', '1.3', '1.4', '1.5']);
    await loseVersionsDownTo(me, 3n);

    // A process that never wrote the grid: the stream's watermark (read with its mark) is the
    // only evidence. The mark's reply must come before the batch leaves (a Redis slower than
    // CHANGES_MARK_WAIT_MS gives none: docs/operating.md); this machine is shared, so wait longer.
    const other = await h.serviceWith(PATIENT);
    const moved = await other.move(me, ids[0]!, null);
    expect(moved).toMatchObject({ version: 4n, generation: 2n });
    const again = await other.move(me, ids[1]!, null);
    expect(again).toMatchObject({ version: 5n, generation: 2n });
    expect(await other.readHead(me)).toMatchObject({ version: 5n, generation: 2n });

    const events = await h.waitEvents(me, 7);
    expect(names(events)).toEqual(['1.1', '1.2', '1.3', '1.4', '1.5', '2.4', '2.5']);
    expect(events.slice(5).map((e) => e.post_ids)).toEqual([[`${ids[0]}`], [`${ids[1]}`]]);
    const page = await other.pages.page({ profileId: me, limit: 10 });
    expect([page.generation, page.version]).toEqual([2n, 5n]);
    expect(page.items.slice(0, 2).map((i) => i.postId)).toEqual([ids[1], ids[0]]);
  });

  it('moves to a new generation on the evidence of its own commits (stream off), once', async () => {
    const me = randomProfile();
    const off = await h.serviceWith({ CHANGES_STREAM: 'off' });
    const ids = await seedGrid(h, off, me, 4); // 1.1
    for (const p of ids.slice(1, 4)) await off.move(me, p, null); // 1.2 … 1.4
    await loseVersionsDownTo(me, 2n);
    expect(await off.move(me, ids[0]!, null)).toMatchObject({ version: 3n, generation: 2n });
    // The bump happened once: the next writes stay in generation 2.
    expect(await off.move(me, ids[1]!, null)).toMatchObject({ version: 4n, generation: 2n });
    expect(await off.move(me, ids[2]!, null)).toMatchObject({ version: 5n, generation: 2n });
    const log = await off.changes.after(me, 0n, 100);
    expect(log.generation).toBe(2n);
    if (log.page.kind !== 'ok') throw new Error('the change log should reach back to 1');
    expect(log.page.changes.map((r) => `${r.generation}.${r.version}`)).toEqual([
      '1.1',
      '1.2',
      '2.3',
      '2.4',
      '2.5',
    ]);
  });

  it('two processes that both find the head behind move it to one new generation', async () => {
    const me = randomProfile();
    const ids = await seedGrid(h, h.service, me, 6); // 1.1
    for (const p of ids.slice(1, 6)) await h.service.move(me, p, null); // 1.2 … 1.6
    await h.waitEvents(me, 6);
    await loseVersionsDownTo(me, 3n);
    const other = await h.serviceWith(PATIENT);
    const out = await Promise.all([
      h.service.move(me, ids[0]!, null),
      other.move(me, ids[1]!, null),
      h.service.move(me, ids[2]!, ids[0]!),
      other.move(me, ids[3]!, ids[1]!),
    ]);
    const committed = out;
    const named = committed.map((o) => `${o.generation}.${o.version}`);
    expect(new Set(committed.map((o) => o.generation)), named.join(' ')).toEqual(new Set([2n]));
    const versions = committed.map((o) => o.version).sort((a, b) => (a < b ? -1 : 1));
    expect(versions).toEqual(committed.map((_, i) => 4n + BigInt(i)));
    expect(await h.service.readHead(me)).toMatchObject({ generation: 2n });
  });

  it('keeps generation 1 while nothing was lost', async () => {
    const me = randomProfile();
    const ids = await seedGrid(h, h.service, me, 3);
    const other = await h.serviceWith({});
    await h.service.move(me, ids[2]!, null);
    await other.move(me, ids[1]!, null); // the stream's watermark is this process's head
    await h.service.move(me, ids[0]!, null); // its own newest is behind: another process wrote
    expect(await h.service.readHead(me)).toMatchObject({ version: 4n, generation: 1n });
    const events = await h.waitEvents(me, 4);
    expect(names(events)).toEqual(['1.1', '1.2', '1.3', '1.4']);
  });
});
