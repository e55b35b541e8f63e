/**
 * The change log (src/domain/change-log.ts) and its stored form (src/store/change-log-codec.ts):
 * a log written slot by slot as versions commit, read back, answers exactly the run of versions
 * its slots still hold, and pages of the catch-up cover the versions after `after` once each.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CHANGE_KINDS,
  changesAfter,
  changeSlot,
  retained,
  type ChangeRecord,
} from '../../../src/domain/change-log.js';
import {
  decodeChange,
  decodeChangeLog,
  encodeChange,
} from '../../../src/store/change-log-codec.js';
import { derivedPosts } from '../../../src/service/changes/planned-change.js';

const int64 = fc.bigInt({ min: 1n, max: (1n << 63n) - 1n });
const record = (version: bigint, kind = 'moved' as const): ChangeRecord => ({
  version,
  generation: 1n,
  at: 1_700_000_000_000 + Number(version),
  kind,
  postIds: [version * 10n],
});

/** The slots after versions 1..head committed one by one into `slots` slots. */
function written(head: number, slots: number): Map<number, ChangeRecord> {
  const map = new Map<number, ChangeRecord>();
  for (let v = 1n; v <= BigInt(head); v++) map.set(changeSlot(v, slots), record(v));
  return map;
}

describe('change log', () => {
  it('encodes and decodes every record exactly', () => {
    fc.assert(
      fc.property(
        int64,
        int64,
        fc.integer({ min: 0, max: 2 ** 45 }),
        fc.constantFrom(...CHANGE_KINDS),
        fc.array(int64, { maxLength: 40 }),
        (version, generation, at, kind, postIds) => {
          const r: ChangeRecord = { version, generation, at, kind, postIds };
          expect(decodeChange(encodeChange(r))).toEqual(r);
        },
      ),
    );
  });

  it('decodes a stored map, skipping cells it cannot read', () => {
    const cells = { 1: encodeChange(record(1n)), 2: Buffer.from([9, 9]), 3: 'x' };
    expect(decodeChangeLog(cells)).toEqual([record(1n)]);
    expect(decodeChangeLog(null)).toEqual([]);
    expect(decodeChangeLog(new Map([[0, encodeChange(record(4n))]]))).toEqual([record(4n)]);
  });

  it('retains exactly the last min(head, slots) versions, oldest first', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 80 }),
        (head, slots) => {
          const log = retained([...written(head, slots).values()], BigInt(head));
          const from = Math.max(1, head - slots + 1);
          expect(log.map((r) => Number(r.version))).toEqual(
            head === 0 ? [] : Array.from({ length: head - from + 1 }, (_, i) => from + i),
          );
        },
      ),
    );
  });

  it('ignores records of another turn or above the head (a newer replica state)', () => {
    const recs = [record(5n), record(6n), record(8n), record(9n)];
    expect(retained(recs, 9n).map((r) => r.version)).toEqual([8n, 9n]);
    expect(retained(recs, 6n).map((r) => r.version)).toEqual([5n, 6n]);
    expect(retained(recs, 7n)).toEqual([]);
  });

  it('pages the changes after any retained version once each, in order; older is gone', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 8, max: 64 }),
        fc.integer({ min: 1, max: 20 }),
        fc.nat(),
        (head, slots, limit, pick) => {
          const log = retained([...written(head, slots).values()], BigInt(head));
          const oldest = Math.max(1, head - slots + 1);
          const after = pick % (head + 2); // 0 .. head + 1
          let cursor = BigInt(after);
          const seen: number[] = [];
          for (let pages = 0; pages < 1000; pages++) {
            const page = changesAfter(log, BigInt(head), cursor, limit);
            if (page.kind === 'gone') {
              expect(after + 1).toBeLessThan(oldest);
              return;
            }
            expect(page.changes.length).toBeLessThanOrEqual(limit);
            seen.push(...page.changes.map((r) => Number(r.version)));
            if (page.next === undefined) break;
            cursor = page.next;
          }
          const want =
            after >= head ? [] : Array.from({ length: head - after }, (_, i) => after + 1 + i);
          expect(seen).toEqual(want);
        },
      ),
    );
  });

  it('derives the posts of an undeclared change: membership and moved rows, not relabels', () => {
    const m = {
      upserts: [
        { postId: 1n, sortKey: 5n, movedVersion: 7n },
        { postId: 2n, sortKey: 6n },
        { postId: 3n, sortKey: 4n, movedVersion: 3n },
      ],
      effects: [{ op: 'grid_put' as const, postId: 9n, authorId: 1n }],
    };
    expect(derivedPosts(m, 7n)).toEqual([9n, 1n]);
  });
});
