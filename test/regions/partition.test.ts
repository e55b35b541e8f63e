/**
 * What a DC partition does to Cassandra's consistency levels, on the private two-DC ring
 * (support/regions-ring.ts; the partition is the WAN link taken down, tools/infra/netns.ts):
 * LOCAL_QUORUM keeps working in each DC, QUORUM / EACH_QUORUM / SERIAL fail, and a LOCAL_SERIAL
 * compare-and-set in EACH DC wins on the same row with the same condition. After the heal only
 * one of those two acknowledged writes survives: the lost write issue #34 (item 5) is about.
 * Every wait here waits for a state (gossip, an answer), never for a time.
 */
import { Client, policies, types } from 'cassandra-driver';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { waitForGossip, applyNetFault } from '../../tools/loadtest/net-nemesis.js';
import { sleep } from '../../tools/infra/process-utils.js';
import { dcNodes, PLAN, regionClient } from './support/regions-ring.js';

const { keyspace } = inject('regions');
const [dc1n1, dc2n1] = dcNodes() as [ReturnType<typeof dcNodes>[0], ReturnType<typeof dcNodes>[0]];
const cl = types.consistencies;
const codes = types.responseErrorCodes;
// One attempt, no retry on another host: the coordinator's own answer reaches the test.
const once = { prepare: true, retry: new policies.retry.FallthroughRetryPolicy() };

let c1: Client;
let c2: Client;
const timings: string[] = [];

/** `fn` again until it resolves (after a heal the driver reconnects on its own schedule). */
async function untilOk<T>(fn: () => Promise<T>, deadlineMs = 60_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() - t0 > deadlineMs) throw err;
      await sleep(500);
    }
  }
}

async function healAndSettle(): Promise<void> {
  const { linkMs } = applyNetFault(PLAN, { kind: 'heal' });
  const up1 = await waitForGossip(dc1n1, [dc1n1, dc2n1], 'UN');
  const up2 = await waitForGossip(dc2n1, [dc1n1, dc2n1], 'UN');
  timings.push(`heal: links ${linkMs.toFixed(1)} ms, UN both ways after ${(Math.max(up1, up2) / 1000).toFixed(1)} s`); // prettier-ignore
  for (const c of [c1, c2]) await untilOk(() => c.execute('SELECT now() FROM system.local', [], once)); // prettier-ignore
}

const upsert = `UPDATE cas_rows SET v = ?, note = ? WHERE pk = ?`;
const cas = `UPDATE cas_rows SET v = ?, note = ? WHERE pk = ? IF v = ?`;
const code = (err: unknown) => (err as { code?: number }).code;

beforeAll(async () => {
  c1 = regionClient(1, keyspace);
  c2 = regionClient(2, keyspace);
  applyNetFault(PLAN, { kind: 'heal' });
  await c1.execute(
    'CREATE TABLE IF NOT EXISTS cas_rows (pk text PRIMARY KEY, v int, note text)',
    [],
    { consistency: cl.all },
  );
  await untilOk(() => c2.execute('SELECT pk FROM cas_rows LIMIT 1'));
});

afterEach(healAndSettle);

afterAll(async () => {
  await Promise.all([c1?.shutdown(), c2?.shutdown()]);
  console.log(`[regions] ${timings.join('; ')}`);
});

describe('two DCs, one node each, NetworkTopologyStrategy {dc1: 1, dc2: 1}', () => {
  it('with the WAN up, QUORUM, EACH_QUORUM and SERIAL succeed (so their failures below are the partition)', async () => {
    const pk = `up-${Date.now()}`;
    await c1.execute(upsert, [0, 'seed', pk], { ...once, consistency: cl.quorum });
    await c1.execute(upsert, [0, 'seed', pk], { ...once, consistency: cl.eachQuorum });
    const res = await c1.execute(cas, [1, 'dc1', pk, 0], { ...once, serialConsistency: cl.serial, consistency: cl.quorum }); // prettier-ignore
    expect(res.wasApplied()).toBe(true);
    const again = await c2.execute(cas, [1, 'dc2', pk, 0], { ...once, serialConsistency: cl.serial, consistency: cl.quorum }); // prettier-ignore
    expect(again.wasApplied()).toBe(false); // one Paxos round across both DCs sees dc1's commit
  });

  it('partitioned: LOCAL_QUORUM works in each DC, QUORUM/EACH_QUORUM/SERIAL fail, LOCAL_SERIAL lets both DCs win the same CAS; the heal keeps only one', async () => {
    const pk = `split-${Date.now()}`;
    await c1.execute(upsert, [0, 'seed', pk], { ...once, consistency: cl.all });

    const { linkMs } = applyNetFault(PLAN, { kind: 'partition' });
    const down1 = await waitForGossip(dc1n1, [dc2n1], 'DN');
    const down2 = await waitForGossip(dc2n1, [dc1n1], 'DN');
    timings.push(`partition: link ${linkMs.toFixed(1)} ms, DN both ways after ${(Math.max(down1, down2) / 1000).toFixed(1)} s`); // prettier-ignore

    await c1.execute(upsert, [0, 'dc1 local quorum', `${pk}-lq`], { ...once, consistency: cl.localQuorum }); // prettier-ignore
    await c2.execute(upsert, [0, 'dc2 local quorum', `${pk}-lq2`], { ...once, consistency: cl.localQuorum }); // prettier-ignore
    for (const consistency of [cl.quorum, cl.eachQuorum]) {
      const err = await c1.execute(upsert, [9, 'must fail', pk], { ...once, consistency }).catch((e: unknown) => e); // prettier-ignore
      expect(code(err), String(err)).toBe(codes.unavailableException);
    }
    const serial = await c1
      .execute(cas, [1, 'dc1 serial', pk, 0], {
        ...once,
        serialConsistency: cl.serial,
        consistency: cl.localQuorum,
      }) // prettier-ignore
      .catch((e: unknown) => e);
    expect(code(serial), String(serial)).toBe(codes.unavailableException);

    // The hazard: the same condition (v = 0) holds in both DCs' Paxos rounds.
    const local = { ...once, serialConsistency: cl.localSerial, consistency: cl.localQuorum };
    const won1 = await c1.execute(cas, [1, 'dc1', pk, 0], local);
    const won2 = await c2.execute(cas, [1, 'dc2', pk, 0], local);
    expect(won1.wasApplied()).toBe(true);
    expect(won2.wasApplied()).toBe(true);

    await healAndSettle();
    // A SERIAL read finishes any Paxos round and reads both DCs: one of the two acknowledged
    // compare-and-sets is gone (the later timestamp wins), without either client being told.
    const row = (await c1.execute('SELECT v, note FROM cas_rows WHERE pk = ?', [pk], { ...once, consistency: cl.serial })).first(); // prettier-ignore
    expect(row.get('v')).toBe(1);
    expect(['dc1', 'dc2']).toContain(row.get('note'));
    timings.push(`both LOCAL_SERIAL CAS applied; after the heal the row says ${row.get('note')}`);
  });

  it('isolating one node: its DC cannot answer from it, the other DC keeps LOCAL_QUORUM', async () => {
    const pk = `iso-${Date.now()}`;
    const { linkMs } = applyNetFault(PLAN, { kind: 'isolate', node: dc2n1 });
    const down = await waitForGossip(dc1n1, [dc2n1], 'DN');
    timings.push(`isolate dc2n1: link ${linkMs.toFixed(1)} ms, DN at dc1n1 after ${(down / 1000).toFixed(1)} s`); // prettier-ignore
    await c1.execute(upsert, [0, 'dc1 while dc2n1 is cut', pk], { ...once, consistency: cl.localQuorum }); // prettier-ignore
    const err = await c2
      .execute(upsert, [0, 'dc2 must fail', pk], {
        ...once,
        consistency: cl.localQuorum,
        readTimeout: 3000,
      }) // prettier-ignore
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
  });
});
