/**
 * The round memo of grid_posts reads (store/grid-posts-memo.ts): whatever mix of point reads and
 * streams (either direction, any start, any page size, the consumer stopping anywhere) a round's
 * planners make, the memo answers exactly what Cassandra would, and reads again only what it
 * has not seen.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GridPostsMemo,
  memoizedStream,
  type IdPage,
} from '../../../src/service/write-line/known-rows.js';

type Read =
  | { readonly kind: 'has'; readonly id: bigint }
  | {
      readonly kind: 'stream';
      readonly direction: 'desc' | 'asc';
      readonly from: bigint | undefined;
      readonly pageSize: number;
      readonly take: number;
    };

const ID = fc.bigInt({ min: 1n, max: 60n });
const read: fc.Arbitrary<Read> = fc.oneof(
  fc.record({ kind: fc.constant('has' as const), id: ID }),
  fc.record({
    kind: fc.constant('stream' as const),
    direction: fc.constantFrom('desc' as const, 'asc' as const),
    from: fc.option(ID, { nil: undefined }),
    pageSize: fc.integer({ min: 1, max: 12 }),
    take: fc.integer({ min: 0, max: 70 }),
  }),
);

/** The partition as Cassandra pages it: `post_id <= from` DESC or `>= from` ASC. */
function pagesOf(rows: readonly bigint[], direction: 'desc' | 'asc', pageSize: number) {
  return async function* (from: bigint): AsyncGenerator<IdPage, void, undefined> {
    const all =
      direction === 'desc'
        ? rows.filter((r) => r <= from).reverse()
        : rows.filter((r) => r >= from);
    for (let i = 0; ; i += pageSize) {
      const ids = all.slice(i, i + pageSize);
      const last = i + pageSize >= all.length;
      yield { ids, last };
      if (last) return;
    }
  };
}

async function take(g: AsyncIterable<bigint> | Iterable<bigint>, n: number): Promise<bigint[]> {
  const out: bigint[] = [];
  if (n === 0) return out;
  for await (const id of g) {
    out.push(id);
    if (out.length >= n) break;
  }
  return out;
}

describe('grid_posts memo', () => {
  it('answers every read of a round as Cassandra would', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(ID, { maxLength: 40 }).map((a) => [...a].sort((x, y) => (x < y ? -1 : 1))),
        fc.array(read, { minLength: 1, maxLength: 12 }),
        async (rows, reads) => {
          const memo = new GridPostsMemo();
          for (const r of reads) {
            if (r.kind === 'has') {
              const known = memo.has(1n, r.id);
              if (known !== undefined) expect(known).toBe(rows.includes(r.id));
              else memo.add(1n, r.id, r.id, rows.includes(r.id) ? [r.id] : []);
              continue;
            }
            const truth = pagesOf(rows, r.direction, r.pageSize);
            const start = r.from ?? (r.direction === 'desc' ? 1n << 62n : -(1n << 62n));
            const want = await take(
              (async function* () {
                for await (const p of truth(start)) yield* p.ids;
              })(),
              r.take,
            );
            const got = await take(memoizedStream(memo, 1n, r.direction, r.from, truth), r.take);
            expect(got).toEqual(want);
          }
          // Everything the memo claims to know is true.
          for (let id = 1n; id <= 60n; id++) {
            const known = memo.has(1n, id);
            if (known !== undefined) expect(known).toBe(rows.includes(id));
          }
        },
      ),
    );
  });

  it('a slice read once is answered from memory, and other profiles are apart', async () => {
    const rows = [10n, 20n, 30n, 40n];
    let reads = 0;
    const counted = (direction: 'desc' | 'asc') => {
      const pages = pagesOf(rows, direction, 10);
      return (from: bigint) => {
        reads += 1;
        return pages(from);
      };
    };
    const memo = new GridPostsMemo();
    expect(await take(memoizedStream(memo, 1n, 'desc', 35n, counted('desc')), 9)).toEqual([
      30n,
      20n,
      10n,
    ]);
    expect(await take(memoizedStream(memo, 1n, 'desc', 25n, counted('desc')), 9)).toEqual([
      20n,
      10n,
    ]);
    expect(memo.has(1n, 20n)).toBe(true);
    expect(memo.has(1n, 21n)).toBe(false);
    expect(memo.has(1n, 36n)).toBeUndefined(); // above the slice: not read
    expect(memo.has(2n, 20n)).toBeUndefined();
    expect(reads).toBe(1);
    expect(await take(memoizedStream(memo, 1n, 'asc', 15n, counted('asc')), 9)).toEqual([
      20n,
      30n,
      40n,
    ]);
    expect(reads).toBe(2); // from 36 up it had to read
    expect(await take(memoizedStream(memo, 1n, 'desc', undefined, counted('desc')), 9)).toEqual([
      40n,
      30n,
      20n,
      10n,
    ]);
    expect(reads).toBe(2); // the whole partition is known now
  });
});
