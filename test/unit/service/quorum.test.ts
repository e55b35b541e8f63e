import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  describeVerdict,
  quorumVerdict,
  requirement,
  type Level,
} from '../../../src/service/quorum.js';
import type { Replica, ReplicaMap } from '../../../src/store/replica-view.js';

const WRITE: Level[] = ['localQuorum', 'localSerial'];
const up = (dc: string, n: number, down = 0): Replica[] =>
  Array.from({ length: n }, (_, i) => ({ dc, up: i >= down }));
const simple = (rf: number, ranges: Replica[][]): ReplicaMap => ({ perDc: false, rfByDc: {}, rf, ranges }); // prettier-ignore

describe('consistency levels against live replicas', () => {
  it('a 3-node ring at RF 3: one node down still meets LOCAL_QUORUM / LOCAL_SERIAL, two do not', () => {
    const ring = (down: number) =>
      simple(
        3,
        [0, 1, 2].map(() => up('datacenter1', 3, down)),
      );
    expect(quorumVerdict(ring(0), WRITE, 'datacenter1').met).toBe(true);
    expect(quorumVerdict(ring(1), WRITE, 'datacenter1').met).toBe(true);
    const two = quorumVerdict(ring(2), WRITE, 'datacenter1');
    expect(two).toEqual({ met: false, unmet: 3, ranges: 3, example: { level: 'localQuorum', up: 1, needed: 2 } }); // prettier-ignore
    expect(describeVerdict(two)).toBe('3 of 3 token ranges cannot meet localQuorum (1 replicas up, needs 2)'); // prettier-ignore
  });

  it('counts the replication factor, not the nodes: RF 3 on one node cannot meet a quorum', () => {
    expect(quorumVerdict(simple(3, [up('dc1', 1)]), WRITE, 'dc1').met).toBe(false);
    expect(quorumVerdict(simple(1, [up('dc1', 1)]), WRITE, 'dc1').met).toBe(true);
    expect(quorumVerdict(simple(1, [up('dc1', 1, 1)]), ['one'], 'dc1').met).toBe(false);
  });

  it('LOCAL_* levels count the local DC only; QUORUM / SERIAL / ALL every DC', () => {
    const rep: ReplicaMap = {
      perDc: true,
      rfByDc: { dc1: 3, dc2: 3 },
      rf: 6,
      ranges: [[...up('dc1', 3), ...up('dc2', 3, 3)]], // dc2 entirely down
    };
    expect(quorumVerdict(rep, ['localQuorum', 'localSerial'], 'dc1').met).toBe(true);
    expect(quorumVerdict(rep, ['localQuorum'], 'dc2').met).toBe(false);
    expect(requirement('quorum', rep.ranges[0]!, rep, 'dc1').needed).toBe(4);
    expect(quorumVerdict(rep, ['quorum'], 'dc1').met).toBe(false); // 3 up of the 4 needed
    expect(quorumVerdict(rep, ['serial'], 'dc1').met).toBe(false);
    expect(quorumVerdict(rep, ['all'], 'dc1').met).toBe(false);
    expect(quorumVerdict(rep, ['localOne'], 'dc1').met).toBe(true);
    // A DC the keyspace does not replicate to has no local quorum at all.
    expect(quorumVerdict(rep, ['localQuorum'], 'dc3').met).toBe(false);
  });

  it('single DC: met exactly when at least floor(RF/2)+1 replicas of every range are up', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.nat(7), { minLength: 1, maxLength: 8 }),
        (rf, downs) => {
          const ranges = downs.map((d) => up('dc', rf, Math.min(d, rf)));
          const v = quorumVerdict(simple(rf, ranges), ['localQuorum'], 'dc');
          const short = downs.filter((d) => rf - Math.min(d, rf) < Math.floor(rf / 2) + 1).length;
          expect(v.unmet).toBe(short);
          expect(v.met).toBe(short === 0);
        },
      ),
    );
  });

  it('bringing a replica up never turns a met level unmet', () => {
    const level = fc.constantFrom<Level>('one', 'localOne', 'quorum', 'localQuorum', 'all', 'serial', 'localSerial'); // prettier-ignore
    const replica = fc.record({ dc: fc.constantFrom('a', 'b'), up: fc.boolean() });
    fc.assert(
      fc.property(
        fc.array(replica, { minLength: 1, maxLength: 6 }),
        level,
        fc.nat(5),
        (rs, lv, k) => {
          const rep: ReplicaMap = { perDc: true, rfByDc: { a: rs.filter((r) => r.dc === 'a').length, b: rs.filter((r) => r.dc === 'b').length }, rf: rs.length, ranges: [rs] }; // prettier-ignore
          const before = quorumVerdict(rep, [lv], 'a').met;
          const i = k % rs.length;
          const after = quorumVerdict({ ...rep, ranges: [rs.map((r, j) => (j === i ? { ...r, up: true } : r))] }, [lv], 'a').met; // prettier-ignore
          if (before) expect(after).toBe(true);
        },
      ),
    );
  });
});
